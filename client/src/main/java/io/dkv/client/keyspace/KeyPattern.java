package io.dkv.client.keyspace;

/**
 * Redis's glob patterns over bytes, as its {@code stringmatchlen} reads them (SCAN's MATCH, KEYS, CONFIG GET):
 * {@code *} any run, {@code ?} any one byte, {@code [abc]}, {@code [^abc]}, {@code [a-z]} (ends in either order) a
 * class, {@code \} the next byte as itself. A class left open takes the rest of the pattern; bytes compare signed,
 * as C's {@code char} does on the platforms redis runs on. A star that found no match for the rest of the pattern
 * anywhere ends the search (redis 7's rule): a match costs at most the pattern's length times the text's.
 */
public final class KeyPattern
{
    private final byte[] pattern;
    private final boolean noCase;
    /** Set once a star found no match for the rest anywhere: no earlier star can then match longer. */
    private boolean skipLonger;

    private KeyPattern(final byte[] pattern, final boolean noCase)
    {
        this.pattern = pattern;
        this.noCase = noCase;
    }

    /** @return a pattern that matches as redis's, case-sensitive. */
    public static KeyPattern of(final byte[] pattern)
    {
        return new KeyPattern(pattern.clone(), false);
    }

    /** @return a pattern that matches ASCII letters whatever their case (redis's nocase form). */
    public static KeyPattern ignoringCase(final byte[] pattern)
    {
        return new KeyPattern(pattern.clone(), true);
    }

    /** @return true when the pattern is "*": every key matches, none need be looked at. */
    public boolean matchesEverything()
    {
        for (final byte b : pattern)
        {
            if (b != '*')
            {
                return false;
            }
        }
        return pattern.length > 0;
    }

    /** Not thread-safe: one pattern per thread (it keeps the state of the match in progress). */
    public boolean matches(final byte[] text)
    {
        skipLonger = false;
        return match(0, text, 0);
    }

    private boolean match(final int patternFrom, final byte[] text, final int textFrom)
    {
        int p = patternFrom;
        int t = textFrom;
        while (p < pattern.length && t < text.length)
        {
            switch (pattern[p])
            {
                case '*':
                {
                    while (p + 1 < pattern.length && pattern[p + 1] == '*')
                    {
                        p++;
                    }
                    if (p + 1 == pattern.length)
                    {
                        return true;
                    }
                    for (; t < text.length; t++)
                    {
                        if (match(p + 1, text, t))
                        {
                            return true;
                        }
                        if (skipLonger)
                        {
                            return false;
                        }
                    }
                    skipLonger = true;
                    return false;
                }
                case '?':
                    t++;
                    break;
                case '[':
                {
                    p = matchClass(p + 1, text[t]);
                    if (p < 0)
                    {
                        return false;
                    }
                    t++;
                    break;
                }
                case '\\':
                    if (p + 1 < pattern.length)
                    {
                        p++;
                    }
                    if (!same(pattern[p], text[t]))
                    {
                        return false;
                    }
                    t++;
                    break;
                default:
                    if (!same(pattern[p], text[t]))
                    {
                        return false;
                    }
                    t++;
                    break;
            }
            p++;
            if (t == text.length)
            {
                while (p < pattern.length && pattern[p] == '*')
                {
                    p++;
                }
            }
        }
        return p == pattern.length && t == text.length;
    }

    /**
     * @param from the first byte after '['.
     * @return the offset of the class's closing ']' (or of its last byte, where it is left open), or -1 when the byte
     * is not in the class.
     */
    private int matchClass(final int from, final byte c)
    {
        int p = from;
        final boolean not = p < pattern.length && pattern[p] == '^';
        if (not)
        {
            p++;
        }
        boolean match = false;
        while (true)
        {
            if (p < pattern.length && pattern[p] == '\\' && pattern.length - p >= 2)
            {
                p++;
                match |= same(pattern[p], c);
            }
            else if (p < pattern.length && pattern[p] == ']')
            {
                break;
            }
            else if (p >= pattern.length)
            {
                p--;
                break;
            }
            else if (pattern.length - p >= 3 && pattern[p + 1] == '-')
            {
                int start = pattern[p];
                int end = pattern[p + 2];
                int value = c;
                if (start > end)
                {
                    final int swap = start;
                    start = end;
                    end = swap;
                }
                if (noCase)
                {
                    start = lower(start);
                    end = lower(end);
                    value = lower(value);
                }
                p += 2;
                match |= value >= start && value <= end;
            }
            else
            {
                match |= same(pattern[p], c);
            }
            p++;
        }
        return match != not ? p : -1;
    }

    private boolean same(final byte a, final byte b)
    {
        return a == b || (noCase && lower(a) == lower(b));
    }

    private static int lower(final int c)
    {
        return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
    }
}
