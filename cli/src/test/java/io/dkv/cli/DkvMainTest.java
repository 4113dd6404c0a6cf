package io.dkv.cli;

import io.dkv.load.CommandRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The top-level command lists its subcommands and refuses to run without one.
 */
class DkvMainTest
{
    private final CommandRun dkv = new CommandRun(DkvMain::commandLine);

    @Test
    void helpListsTheBenchGroupAndItsBenchmarks()
    {
        assertEquals(0, dkv.run("--help"));
        assertTrue(dkv.out().contains("bench"), dkv::out);
        assertEquals(0, dkv.run("bench", "--help"));
        assertTrue(dkv.out().contains("verbs"), dkv::out);
        assertTrue(dkv.out().contains("raas"), dkv::out);
        assertTrue(dkv.out().contains("ycsb"), dkv::out);
    }

    @Test
    void helpListsTheMetaServer()
    {
        assertEquals(0, dkv.run("--help"));
        assertTrue(dkv.out().contains("meta"), dkv::out);
        assertEquals(0, dkv.run("meta", "--help"));
        assertTrue(dkv.out().contains("--peer"), dkv::out);
    }

    @Test
    void everyHelpTextIsAValidFormatString()
    {
        // picocli formats help lines with String.format: a bare '%' prints a warning and the raw text
        final List<String> broken = new ArrayList<>();
        collectBrokenHelp(DkvMain.commandLine(), broken);
        assertTrue(broken.isEmpty(), () -> "help lines that are not format strings: " + broken);
    }

    private static void collectBrokenHelp(final CommandLine command, final List<String> broken)
    {
        final CommandSpec spec = command.getCommandSpec();
        final List<String> lines = new ArrayList<>();
        lines.addAll(List.of(spec.usageMessage().description()));
        lines.addAll(List.of(spec.usageMessage().header()));
        lines.addAll(List.of(spec.usageMessage().footer()));
        for (final OptionSpec option : spec.options())
        {
            lines.addAll(List.of(option.description()));
        }
        for (final String line : lines)
        {
            try
            {
                String.format(line.replace("${DEFAULT-VALUE}", "").replace("${COMPLETION-CANDIDATES}", ""));
            }
            catch (final IllegalFormatException ex)
            {
                broken.add(spec.qualifiedName() + ": " + line);
            }
        }
        command.getSubcommands().values().forEach(sub -> collectBrokenHelp(sub, broken));
    }

    @Test
    void aGroupWithoutSubcommandIsAUsageError()
    {
        assertEquals(2, dkv.run());
        assertEquals(2, dkv.run("bench"));
        assertTrue(dkv.err().contains("Missing required subcommand"), dkv::err);
    }
}
