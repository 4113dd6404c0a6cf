package io.dkv.load.bench;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The check the benchmarks make of their numeric options before they run: a value outside its range is a usage
 * error naming the option, the value and the range.
 */
public final class OptionRange
{
    private OptionRange()
    {
    }

    /**
     * @param spec   the command whose option it is.
     * @param option the option's name, as given on the command line.
     * @throws ParameterException when {@code value} is not in {@code [min, max]}.
     */
    public static void require(final CommandSpec spec, final String option, final long value, final long min,
        final long max)
    {
        if (value < min || value > max)
        {
            throw new ParameterException(spec.commandLine(), option + " " + value + " is outside " + min + ".." + max);
        }
    }
}
