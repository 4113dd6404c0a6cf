package io.dkv.load;

import io.dkv.load.bench.BenchCommand;
import io.dkv.load.driver.DriverCommand;
import io.dkv.load.meta.MetaCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
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
        BenchCommand.class,
        DriverCommand.class,
        MetaCommand.class,
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
        return new CommandLine(new DkvMain()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }
}
