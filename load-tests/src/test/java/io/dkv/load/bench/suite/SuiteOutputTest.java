package io.dkv.load.bench.suite;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What redis's harness printed, read back into passed, failed (with why) and left out; and a tree that is none. */
class SuiteOutputTest
{
    private static final String PRINTED = String.join("\n",
        "Cleanup: may take some time... OK",
        "\u001b[1;37;49mTesting unit/expire\u001b[0m",
        "[\u001b[0;32;49mok\u001b[0m]: EXPIRE - set timeouts multiple times (1 ms)",
        "[\u001b[0;31;49merr\u001b[0m]: EXPIRE - write on expire should work in tests/unit/expire.tcl",
        "d 'LPUSH' is not supported by this dkv compute node yet",
        "ERR command 'LPUSH' is not supported by this dkv compute node yet",
        "    while executing",
        "[ok]: SETEX - Check value (0 ms)",
        "[ignore]: Redis should lazy expire keys: Tag: needs:debug denied",
        "[err]: INCRBYFLOAT decrement in tests/unit/type/incr.tcl",
        "Expected '1.1' to equal or match '1.2'",
        "[1/1 done]: unit/expire (5 seconds)",
        "!!! WARNING The following tests failed:",
        "*** [err]: EXPIRE - write on expire should work in tests/unit/expire.tcl");

    @Test
    void readsPassedFailedAndLeftOutTestsOnce()
    {
        final SuiteOutput output = SuiteOutput.parse(PRINTED);

        assertEquals(List.of("EXPIRE - set timeouts multiple times", "SETEX - Check value"), output.passed());
        assertEquals(2, output.failed().size(), "the summary at the end is not counted again");
        assertEquals("EXPIRE - write on expire should work", output.failed().get(0)[0]);
        assertEquals("ERR command 'LPUSH' is not supported by this dkv compute node yet", output.failed().get(0)[1]);
        assertEquals("Expected '1.1' to equal or match '1.2'", output.failed().get(1)[1]);
        assertEquals(1, output.skipped());
        assertTrue(output.finished());
    }

    @Test
    void aFileThatStoppedDidNotRunToItsEnd()
    {
        final SuiteOutput output = SuiteOutput.parse("[ok]: A (1 ms)\n[exception]: Executing test client: boom\n");

        assertFalse(output.finished());
        assertEquals(1, output.failed().size());
    }

    @Test
    void refusesAFolderThatHoldsNoRedisSource() throws Exception
    {
        final Path empty = Files.createTempDirectory("not-redis-");
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

        final int exitCode = bench.run("redis-suite", "--redis-source", empty.toString());

        assertTrue(exitCode != 0, bench::out);
        assertTrue(bench.err().contains("--redis-source " + empty + ": no redis source tree there"), bench::err);
        Files.delete(empty);
    }
}
