package io.dkv.load;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Supplier;

/**
 * Runs a dkv command line in the test's JVM, as {@code ./dkv} would run it, and keeps what the last run printed to
 * its standard output and error.
 */
public final class CommandRun
{
    private final Supplier<CommandLine> commandLine;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** @param commandLine makes the command line each run parses its arguments with, a new one each time. */
    public CommandRun(final Supplier<CommandLine> commandLine)
    {
        this.commandLine = commandLine;
    }

    /** @return the exit status of the command with these arguments. */
    public int run(final String... args)
    {
        return run(commandLine.get(), args);
    }

    /**
     * @param command another command line, as a role's own main parses with.
     * @return its exit status with these arguments.
     */
    public int run(final CommandLine command, final String... args)
    {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        return command.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
    }

    /** @return what the last run printed to its standard output. */
    public String out()
    {
        return out.toString();
    }

    /** @return what the last run printed to its standard error. */
    public String err()
    {
        return err.toString();
    }
}
