package io.dkv.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
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
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int dkv(final String... args)
    {
        return DkvMain.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    }

    @Test
    void helpListsTheBenchGroupAndItsBenchmarks()
    {
        assertEquals(0, dkv("--help"));
        assertTrue(out.toString().contains("bench"), out::toString);
        assertEquals(0, dkv("bench", "--help"));
        assertTrue(out.toString().contains("verbs"), out::toString);
        assertTrue(out.toString().contains("raas"), out::toString);
        assertTrue(out.toString().contains("ycsb"), out::toString);
    }

    @Test
    void helpListsTheMetaServer()
    {
        assertEquals(0, dkv("--help"));
        assertTrue(out.toString().contains("meta"), out::toString);
        assertEquals(0, dkv("meta", "--help"));
        assertTrue(out.toString().contains("--peer"), out::toString);
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
        assertEquals(2, dkv());
        assertEquals(2, dkv("bench"));
        assertTrue(err.toString().contains("Missing required subcommand"), err::toString);
    }
}
