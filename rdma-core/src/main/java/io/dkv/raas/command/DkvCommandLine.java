package io.dkv.raas.command;

import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

import java.io.PrintWriter;

/**
 * The rules every dkv command line runs with, whichever main starts it ({@code ./dkv}, or a role's own main as
 * Aeron's {@code MediaDriver} has one): enum values in any case, and a command that fails says why in one line (its
 * message names what was wrong); the stack trace is for developers, shown when DKV_DEBUG is set.
 */
public final class DkvCommandLine
{
    private static final String DKV = "dkv";

    private DkvCommandLine()
    {
    }

    /**
     * @param command a picocli command.
     * @return its command line named as {@code ./dkv} runs it ({@code dkv meta}), with dkv's rules: what a role's own
     * main runs, so that its usage and its failures read as they do through {@code ./dkv}.
     */
    public static CommandLine of(final Object command)
    {
        final CommandLine commandLine = new CommandLine(command);
        return withRules(commandLine.setCommandName(DKV + " " + commandLine.getCommandName()));
    }

    /**
     * @param commandLine a command line, its subcommands added.
     * @return it, with dkv's rules.
     */
    public static CommandLine withRules(final CommandLine commandLine)
    {
        return commandLine
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setExecutionExceptionHandler(DkvCommandLine::reportFailure);
    }

    /**
     * Run a role's command as its main does: parse, call, and exit with its status.
     *
     * @param command a picocli command.
     * @param args    its arguments, without the subcommand name {@code ./dkv} takes before them.
     */
    public static void run(final Object command, final String[] args)
    {
        System.exit(of(command).execute(args));
    }

    private static int reportFailure(final Exception ex, final CommandLine commandLine, final ParseResult parseResult)
    {
        // a role's own main names its top command "dkv meta"; ./dkv's subcommands are named without the "dkv"
        final String name = commandLine.getCommandName();
        return reportFailure(name.equals(DKV) || name.startsWith(DKV + " ") ? name : DKV + " " + name, ex,
            commandLine.getErr());
    }

    /**
     * Say in one line that a command failed and why.
     *
     * @param name the command as a person types it, e.g. {@code dkv compute-node}.
     * @param ex   what it threw.
     * @param err  where to say it: the command line's error stream.
     * @return 1, the exit status of a command that failed.
     */
    public static int reportFailure(final String name, final Exception ex, final PrintWriter err)
    {
        err.println(name + ": " + ex.getMessage());
        if (System.getenv("DKV_DEBUG") != null)
        {
            ex.printStackTrace(err);
        }
        err.flush();
        return 1;
    }
}
