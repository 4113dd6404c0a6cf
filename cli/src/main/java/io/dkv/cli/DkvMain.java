package io.dkv.cli;

import io.dkv.cli.cluster.DelCommand;
import io.dkv.cli.cluster.GetCommand;
import io.dkv.cli.cluster.PutCommand;
import io.dkv.cli.cluster.UpCommand;
import io.dkv.compute.ComputeNodeCommand;
import io.dkv.compute.autoscale.AutoscaleCommand;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.check.harness.CheckClientCommand;
import io.dkv.load.check.harness.CheckCommand;
import io.dkv.memory.command.MemoryNodeCommand;
import io.dkv.meta.command.MetaCommand;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.command.DriverCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.Arrays;

/**
 * The {@code dkv} command: runs whichever subcommand it is given. Each role's command lives in its role's module with
 * a main of its own; this gathers them under one name with the load tools and the CLI's own commands.
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
        return DkvCommandLine.withRules(new CommandLine(new DkvMain()));
    }

    public static void main(final String[] args)
    {
        final Object keyCommand = args.length > 0 ? keyCommand(args[0]) : null;
        if (args.length > 0 && COMPUTE_NODE.equals(args[0]))
        {
            // the compute node's own main: its join pays neither for picocli's model of every command nor for the
            // classes of every command, which building commandLine() takes about 350 ms to load
            ComputeNodeCommand.main(Arrays.copyOfRange(args, 1, args.length));
        }
        else if (keyCommand != null)
        {
            // put, get and del alone, for the same reason: a command line's whole run is mostly its start
            DkvCommandLine.run(keyCommand, Arrays.copyOfRange(args, 1, args.length));
        }
        else
        {
            System.exit(commandLine().execute(args));
        }
    }

    /** @return put, get or del by its name, else null. */
    private static Object keyCommand(final String name)
    {
        return switch (name)
        {
            case "put" -> new PutCommand();
            case "get" -> new GetCommand();
            case "del" -> new DelCommand();
            default -> null;
        };
    }
}
