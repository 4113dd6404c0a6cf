package io.dkv.load;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

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
    void aGroupWithoutSubcommandIsAUsageError()
    {
        assertEquals(2, dkv());
        assertEquals(2, dkv("bench"));
        assertTrue(err.toString().contains("Missing required subcommand"), err::toString);
    }
}
