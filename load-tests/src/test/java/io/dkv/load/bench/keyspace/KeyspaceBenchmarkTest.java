package io.dkv.load.bench.keyspace;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The keyspace benchmark finds every key at dkv and at redis-server, and says how their times compare. */
class KeyspaceBenchmarkTest
{
    private final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

    @Test
    @Timeout(180)
    void everyScanAndDbsizeFindsEveryKeyAtBoth()
    {
        assumeTrue(RedisServer.find().isPresent(), "redis-server is not installed (.ci/run installs it)");

        final int exitCode = bench.run("keyspace", "--keys", "3000", "--count", "100");

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final String title = "A whole scan and DBSIZE, dkv beside redis-server";
        final List<String[]> rows = ReportTables.tables(bench.out(), List.of(title)).get(title);
        assertEquals(3, rows.size(), bench::out);
        for (final String[] row : rows)
        {
            assertEquals("3,000", row[2], bench::out);
            assertEquals("3,000", row[4], bench::out);
            assertTrue(row[5].endsWith("x"), bench::out);
        }
    }

    @Test
    void refusesAnEmptyKeyspace()
    {
        final int exitCode = bench.run("keyspace", "--keys", "0");

        assertTrue(exitCode != 0, bench::out);
        assertTrue(bench.err().contains("--keys 0"), bench::err);
    }
}
