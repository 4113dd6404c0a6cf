package io.dkv.load.check.harness;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people type them: {@code 500ms}, {@code 60s}, {@code 2m}, {@code 1h}.
 */
public final class DurationConverter implements ITypeConverter<Duration>
{
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

    public Duration convert(final String value)
    {
        final Matcher matcher = DURATION.matcher(value.trim());
        if (!matcher.matches())
        {
            throw new TypeConversionException("'" + value + "' is not a duration such as 500ms, 60s, 2m or 1h");
        }
        final long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2))
        {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }
}
