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
    void everyScanAndDbsizeFindsEveryKeyAtBothAndFlushallLeavesNone()
    {
        assumeTrue(RedisServer.find().isPresent(), "redis-server is not installed (.ci/run installs it)");

        final int exitCode = bench.run("keyspace", "--keys", "3000", "--count", "100");

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final String title = "A whole scan, DBSIZE and FLUSHALL, dkv beside redis-server";
        final List<String[]> rows = ReportTables.tables(bench.out(), List.of(title)).get(title);
        assertEquals(4, rows.size(), bench::out);
        for (final String[] row : rows.subList(0, 3))
        {
            assertEquals("3,000", row[2], bench::out);
            assertEquals("3,000", row[4], bench::out);
            assertTrue(row[5].endsWith("x"), bench::out);
        }
        assertEquals("0", rows.get(3)[2], "no key left after dkv's FLUSHALL");
        assertEquals("0", rows.get(3)[4], "no key left after redis's FLUSHALL");
    }

    @Test
    void refusesAnEmptyKeyspace()
    {
        final int exitCode = bench.run("keyspace", "--keys", "0");

        assertTrue(exitCode != 0, bench::out);
        assertTrue(bench.err().contains("--keys 0"), bench::err);
    }
}
