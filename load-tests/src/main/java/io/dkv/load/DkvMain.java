package io.dkv.load;

import io.dkv.compute.ComputeNodeCommand;
import io.dkv.compute.autoscale.AutoscaleCommand;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.check.harness.CheckClientCommand;
import io.dkv.load.check.harness.CheckCommand;
import io.dkv.load.cluster.DelCommand;
import io.dkv.load.cluster.GetCommand;
import io.dkv.load.cluster.PutCommand;
import io.dkv.load.cluster.UpCommand;
import io.dkv.load.driver.DriverCommand;
import io.dkv.load.memory.MemoryNodeCommand;
import io.dkv.load.meta.MetaCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

import java.util.Arrays;

/**
 * The {@code dkv} command: runs whichever subcommand it is given.
 */
@Command(
    name = "dkv",
    mixinStandardHelpOptions = true,
    versionProvider = ManifestVersionProvider.class,
    description = "dkv, a disaggregated key-value store: its roles, benchmarks and tools.",
    subcommands = {
        UpCommand.class,
        PutCommand.class,
        GetCommand.class,
        DelCommand.class,
        BenchCommand.class,
        DriverCommand.class,
        MetaCommand.class,
        MemoryNodeCommand.class,
        ComputeNodeCommand.class,
        AutoscaleCommand.class,
        CheckCommand.class,
        CheckClientCommand.class,
        CommandLine.HelpCommand.class
    })
public final class DkvMain implements Runnable
{
    private static final String COMPUTE_NODE = "compute-node";

    @Spec
    private CommandSpec spec;

    public void run()
    {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /**
     * @return the command line with dkv's parsing rules, ready to execute.
     */
    public static CommandLine commandLine()
    {
        return new CommandLine(new DkvMain())
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setExecutionExceptionHandler(DkvMain::reportFailure);
    }

    /**
     * A command that fails says why in one line (its message names what was wrong); the stack trace
     * is for developers, shown when DKV_DEBUG is set.
     */
    private static int reportFailure(final Exception ex, final CommandLine commandLine, final ParseResult parseResult)
    {
        return reportFailure("dkv " + commandLine.getCommandName(), ex, commandLine);
    }

    private static int reportFailure(final String name, final Exception ex, final CommandLine commandLine)
    {
        commandLine.getErr().println(name + ": " + ex.getMessage());
        if (System.getenv("DKV_DEBUG") != null)
        {
            ex.printStackTrace(commandLine.getErr());
        }
        commandLine.getErr().flush();
        return 1;
    }

    /**
     * The command line of {@code dkv compute-node} alone, with dkv's parsing rules: what {@link #main} runs for it.
     * Picocli reflects over every subcommand's options, and loads their classes, when it builds a command line:
     * {@link #commandLine()} takes about 350 ms before any command runs, most of a compute node's join time.
     */
    public static CommandLine computeNodeCommandLine()
    {
        final String name = "dkv " + COMPUTE_NODE;
        return new CommandLine(new ComputeNodeCommand())
            .setCommandName(name)
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setExecutionExceptionHandler((ex, commandLine, parseResult) -> reportFailure(name, ex, commandLine));
    }

    /** As picocli's execute calls a command: its exit status, or one line saying why it failed and 1. */
    static int callComputeNode(final ComputeNodeCommand command)
    {
        try
        {
            return command.call();
        }
        catch (final Exception ex)
        {
            final CommandLine commandLine = computeNodeCommandLine();
            return reportFailure(commandLine.getCommandName(), ex, commandLine);
        }
    }

    public static void main(final String[] args)
    {
        if (args.length > 0 && COMPUTE_NODE.equals(args[0]))
        {
            final String[] rest = Arrays.copyOfRange(args, 1, args.length);
            final ComputeNodeCommand simple = ComputeNodeCommand.parseSimple(rest);
            System.exit(simple == null ? computeNodeCommandLine().execute(rest) : callComputeNode(simple));
        }
        System.exit(commandLine().execute(args));
    }
}
