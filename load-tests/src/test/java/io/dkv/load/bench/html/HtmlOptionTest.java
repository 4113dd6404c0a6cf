package io.dkv.load.bench.html;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --html}: each benchmark that draws a page says so in its help, and a file that cannot be written is refused
 * by name before anything runs.
 */
class HtmlOptionTest
{
    private final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

    @Test
    void isInTheHelpOfEachBenchmarkThatDrawsAPage()
    {
        for (final String benchmark : new String[]{"ycsb", "raas", "compute"})
        {
            assertEquals(0, bench.run(benchmark, "--help"), bench::err);
            assertTrue(bench.out().contains("--html=FILE") && bench.out().contains("self-contained HTML page"),
                () -> benchmark + ":\n" + bench.out());
        }
    }

    @Test
    void refusesADirectoryAndAPathUnderAFileBeforeRunning(@TempDir final Path dir) throws IOException
    {
        assertEquals(2, bench.run("ycsb", "--html", dir.toString()));
        assertTrue(bench.err().contains("--html " + dir + ": is a directory; name a file"), bench::err);

        final Path file = Files.writeString(dir.resolve("plain"), "x");
        final Path under = file.resolve("page.html");
        assertEquals(2, bench.run("raas", "--html", under.toString()));
        assertTrue(bench.err().contains("--html " + under + ": cannot write in " + file + ", which is not a directory"),
            bench::err);
    }
}
