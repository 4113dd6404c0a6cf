package io.dkv.load;

import io.dkv.compute.ComputeNodeCommand;
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
        CheckCommand.class,
        CheckClientCommand.class,
        CommandLine.HelpCommand.class
    })
public final class DkvMain implements Runnable
{
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
        commandLine.getErr().println("dkv " + commandLine.getCommandName() + ": " + ex.getMessage());
        if (System.getenv("DKV_DEBUG") != null)
        {
            ex.printStackTrace(commandLine.getErr());
        }
        commandLine.getErr().flush();
        return 1;
    }

    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }
}
