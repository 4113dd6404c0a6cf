package io.dkv.load.bench.html;

import java.util.Locale;

/**
 * Text and numbers as they go into the page's markup: escaped so that any figure or label stays text, and
 * coordinates with one decimal whatever the default locale.
 */
public final class Markup
{
    private Markup()
    {
    }

    /** @return the text with the characters that mean something in XML and HTML escaped. */
    public static String escape(final String text)
    {
        final StringBuilder escaped = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }

    /** @return a coordinate with one decimal. */
    static String coordinate(final double value)
    {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
