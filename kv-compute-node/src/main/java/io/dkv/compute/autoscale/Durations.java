package io.dkv.compute.autoscale;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as an operator writes them on a command line: {@code 15s}, {@code 300s}, {@code 500ms}, {@code 5m}. */
final class Durations
{
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h)?");

    private Durations()
    {
    }

    /**
     * @param option the option it was given to, for the error.
     * @param text   digits and a unit (ms, s, m or h); digits alone are seconds, as HPA's seconds are.
     * @return the duration in milliseconds.
     * @throws IllegalArgumentException naming the option and the value.
     */
    static long parseMillis(final String option, final String text)
    {
        final Matcher matcher = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!matcher.matches())
        {
            throw new IllegalArgumentException(option + " " + text + " is not a duration such as 500ms, 15s, 5m or 1h");
        }
        final long value = Long.parseLong(matcher.group(1));
        final String unit = matcher.group(2) == null ? "s" : matcher.group(2);
        return switch (unit)
        {
            case "ms" -> value;
            case "s" -> value * 1_000;
            case "m" -> value * 60_000;
            default -> value * 3_600_000;
        };
    }
}
