package io.dkv.load.bench.ycsb;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.ycsb.RedisYcsbClient;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Redis side, where Debian's redis-server is installed: the binding round-trips records, and
 * the benchmark runs every workload on Redis beside dkv and stops the server at the end.
 */
class RedisSideTest
{
    private static Path redisServer()
    {
        final Optional<Path> binary = RedisServer.find();
        if (binary.isEmpty())
        {
            System.out.println("RedisSideTest skipped: " + RedisServer.BINARY + " is not installed (" +
                RedisServer.INSTALL_HINT + ")");
        }
        assumeTrue(binary.isPresent(), RedisServer.BINARY + " is not installed (" + RedisServer.INSTALL_HINT + ")");
        return binary.get();
    }

    @Test
    @Timeout(30)
    void bindingRoundTripsRecordsAsHashes() throws Exception
    {
        try (RedisServer server = RedisServer.start(redisServer()))
        {
            final Properties properties = new Properties();
            properties.setProperty(RedisYcsbClient.HOST_PROPERTY, RedisServer.HOST);
            properties.setProperty(RedisYcsbClient.PORT_PROPERTY, Integer.toString(server.port()));
            final RedisYcsbClient db = new RedisYcsbClient();
            db.setProperties(properties);
            db.init();
            try
            {
                assertEquals(Status.OK, db.insert("usertable", "user1",
                    StringByteIterator.getByteIteratorMap(Map.of("field0", "a", "field1", "bb"))));
                assertEquals(Status.OK,
                    db.update("usertable", "user1", StringByteIterator.getByteIteratorMap(Map.of("field1", "new"))));
                assertEquals(Map.of("field0", "a", "field1", "new"), read(db, "user1", null));
                assertEquals(Map.of("field1", "new"), read(db, "user1", Set.of("field1")));
                assertEquals(Status.OK, db.insert("usertable", "user2",
                    StringByteIterator.getByteIteratorMap(Map.of("field0", "c"))));
                final java.util.Vector<HashMap<String, ByteIterator>> scanned = new java.util.Vector<>();
                assertEquals(Status.OK, db.scan("usertable", "user1", 10, null, scanned));
                assertTrue(!scanned.isEmpty() && scanned.size() <= 2, "the scan from user1's score: " + scanned);
                assertEquals(Status.OK, db.delete("usertable", "user2"));
                assertEquals(Status.OK, db.delete("usertable", "user1"));
                assertEquals(Status.NOT_FOUND, db.read("usertable", "user1", null, new HashMap<>()));
                assertEquals(Status.NOT_FOUND, db.delete("usertable", "user1"));
            }
            finally
            {
                db.cleanup();
            }
        }
    }

    @Test
    @Timeout(60)
    void benchmarkRunsRedisBesideDkvAndStopsIt()
    {
        redisServer();
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exitCode =
            bench.run(YcsbBenchmarkTest.args("--workload", "a,c", "--threads", "1", "--redis", "auto"));

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final List<String[]> rows = YcsbBenchmarkTest.tables(bench.out()).get(YcsbReport.THROUGHPUT);
        assertEquals(List.of("load 1", "YCSB-A 1", "YCSB-C 1"), YcsbBenchmarkTest.keys(rows), bench::out);
        for (final String[] row : rows)
        {
            assertTrue(YcsbBenchmarkTest.number(row[4]) > 0 && row[5].matches("\\d+\\.\\d+x"),
                () -> String.join(" | ", row));
        }
        for (final String[] row : YcsbBenchmarkTest.tables(bench.out()).get(YcsbReport.LATENCY))
        {
            assertEquals("0", row[9], () -> "Redis failures: " + String.join(" | ", row));
        }
        assertTrue(bench.out().lines()
            .anyMatch(line -> line.matches("goal YCSB-C: .*, 1 thread: (MET|MISSED) \\(measured .*")),
            bench::out);
        final String port = bench.out().replaceAll("(?s).*on 127\\.0\\.0\\.1:(\\d+), its own process.*", "$1");
        assertFalse(reachable(Integer.parseInt(port)), "redis-server on port " + port + " still answers after the run");
    }

    private static Map<String, String> read(final RedisYcsbClient db, final String key, final Set<String> fields)
    {
        final Map<String, ByteIterator> result = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", key, fields, result));
        return StringByteIterator.getStringMap(result);
    }

    private static boolean reachable(final int port)
    {
        try (java.net.Socket socket = new java.net.Socket(RedisServer.HOST, port))
        {
            return socket.isConnected();
        }
        catch (final java.io.IOException ex)
        {
            return false;
        }
    }
}
