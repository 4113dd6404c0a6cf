package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.CommandRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The "try it" lines {@code dkv up} prints work as printed: with a cluster file of its own ({@code --cluster FILE}),
 * each {@code ./dkv} line names it; with the default one, none needs to.
 */
class UpTryItTest
{
    @TempDir
    Path dir;

    @Test
    void theDefaultClusterFileIsNotNamed()
    {
        assertEquals(List.of("./dkv put greeting hello", "./dkv get greeting", "./dkv del greeting",
            "redis-cli -p 6379 set greeting hello", "redis-cli -p 6379 get greeting"),
            UpCommand.tryIt(ClusterFile.defaultPath(), 6379));
    }

    @Test
    void aClusterFileOfItsOwnIsNamedOnEachDkvLine()
    {
        final Path file = dir.resolve("mine.properties");
        assertEquals(List.of("./dkv put --cluster " + file + " greeting hello", "./dkv get --cluster " + file +
            " greeting", "./dkv del --cluster " + file + " greeting"), UpCommand.tryIt(file, -1));
    }

    @Test
    void theLinesAreCommandsDkvTakes()
    {
        // the file names no cluster, so each fails on it, after its arguments were taken: not a usage error
        final Path file = dir.resolve("none.properties");
        final CommandRun dkv = new CommandRun(DkvMain::commandLine);
        for (final String line : UpCommand.tryIt(file, -1))
        {
            final String[] words = line.substring("./dkv ".length()).split(" ");
            dkv.run(words);
            assertTrue(dkv.err().contains(file.toString()), () -> line + ": " + dkv.err());
            assertTrue(!dkv.err().contains("Unknown option") && !dkv.err().contains("Usage:"), () -> line + ": " +
                dkv.err());
        }
    }
}
