package io.dkv.compute.command;

/**
 * The glob patterns CONFIG GET takes: {@code *}, {@code ?} and {@code [...]} character classes, as redis's
 * stringmatch.
 */
final class Glob
{
    private Glob()
    {
    }

    static boolean matches(final String pattern, final String text)
    {
        return matches(pattern, 0, text, 0);
    }

    private static boolean matches(final String pattern, final int p, final String text, final int t)
    {
        if (p == pattern.length())
        {
            return t == text.length();
        }
        final char c = pattern.charAt(p);
        if (c == '*')
        {
            for (int i = t; i <= text.length(); i++)
            {
                if (matches(pattern, p + 1, text, i))
                {
                    return true;
                }
            }
            return false;
        }
        if (t == text.length())
        {
            return false;
        }
        if (c == '?')
        {
            return matches(pattern, p + 1, text, t + 1);
        }
        if (c == '[')
        {
            final int close = pattern.indexOf(']', p + 1);
            if (close > p)
            {
                final boolean negate = close > p + 1 && pattern.charAt(p + 1) == '^';
                boolean found = false;
                for (int i = negate ? p + 2 : p + 1; i < close; i++)
                {
                    if (i + 2 < close && pattern.charAt(i + 1) == '-')
                    {
                        found |= text.charAt(t) >= pattern.charAt(i) && text.charAt(t) <= pattern.charAt(i + 2);
                        i += 2;
                    }
                    else
                    {
                        found |= pattern.charAt(i) == text.charAt(t);
                    }
                }
                return found != negate && matches(pattern, close + 1, text, t + 1);
            }
        }
        if (c == '\\' && p + 1 < pattern.length())
        {
            return pattern.charAt(p + 1) == text.charAt(t) && matches(pattern, p + 2, text, t + 1);
        }
        return c == text.charAt(t) && matches(pattern, p + 1, text, t + 1);
    }
}
