package io.dkv.compute;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * appendonly and appendfsync, as Redis users set them: what a compute node's writes promise about the memory nodes'
 * disks (kv-compute-node/README.md, "Durability"). The node runs with what it was given; CONFIG GET and INFO
 * persistence answer the truth; CONFIG SET changes them while the pool runs, on every compute node before its OK.
 * Over a memory node that keeps nothing on disk, a node left to its defaults runs with appendonly no and says so, and
 * one asked for appendonly fails to start, naming that node and the way out.
 */
class AppendOnlyTest
{
    private static final String APPENDONLY_INVALID =
        "-ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument must be 'yes' or 'no'";
    private static final String APPENDFSYNC_INVALID = "-ERR CONFIG SET failed (possibly related to argument " +
        "'appendfsync') - argument(s) must be one of the following: everysec, always, no";

    @TempDir
    Path dir;

    @Test
    void configGetAnswersWhatThePoolRunsWithAndConfigSetChangesItOnEveryComputeNode() throws Exception
    {
        try (MetaCluster cluster = new MetaCluster(dir.resolve("meta"), dir.resolve("memory")))
        {
            final ComputeNode first = compute(cluster, cluster.base + 2, "yes", "everysec");
            ComputeNode second = null;
            try (RawResp one = new RawResp(first.port()))
            {
                second = compute(cluster, cluster.base + 3, "yes", "everysec");
                try (RawResp two = new RawResp(second.port()))
                {
                    assertEquals("*2[$appendonly, $yes]", one.call("CONFIG", "GET", "appendonly"));
                    assertEquals("*2[$appendfsync, $everysec]", two.call("CONFIG", "GET", "appendfsync"));
                    assertTrue(persistence(one).contains("aof_enabled:1\r\ndkv_appendfsync:everysec\r\n"),
                        persistence(one));

                    // set on the node that joined last (it met the first as it started), read on the other
                    assertEquals("+OK", two.call("CONFIG", "SET", "appendfsync", "ALWAYS"));
                    assertEquals("*2[$appendfsync, $always]", one.call("CONFIG", "GET", "appendfsync"));
                    assertEquals("+OK", one.call("CONFIG", "SET", "appendonly", "no"));
                    assertEquals("*4[$appendonly, $no, $appendfsync, $always]",
                        two.call("CONFIG", "GET", "append*"));
                    assertTrue(persistence(two).contains("aof_enabled:0\r\ndkv_appendfsync:always\r\n"),
                        persistence(two));
                    assertEquals("appendonly no, appendfsync always", second.durability());

                    // both at once, with another setting: all or none
                    assertEquals("+OK", one.call("CONFIG", "SET", "appendonly", "yes", "appendfsync", "everysec",
                        "list-compress-depth", "1"));
                    assertEquals("*4[$appendonly, $yes, $appendfsync, $everysec]",
                        two.call("CONFIG", "GET", "append*"));
                }
            }
            finally
            {
                CloseHelper.closeAll(second, first);
            }
        }
    }

    @Test
    void configSetRefusesWhatRedisRefusesAndChangesNothingThen() throws Exception
    {
        try (MetaCluster cluster = new MetaCluster(dir.resolve("meta"), dir.resolve("memory"));
            ComputeNode node = compute(cluster, cluster.base + 2, "yes", "everysec");
            RawResp resp = new RawResp(node.port()))
        {
            assertEquals(APPENDONLY_INVALID, resp.call("CONFIG", "SET", "appendonly", "maybe"));
            assertEquals(APPENDFSYNC_INVALID, resp.call("CONFIG", "SET", "appendfsync", "sometimes"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'appendfsync') - duplicate parameter",
                resp.call("CONFIG", "SET", "appendfsync", "always", "appendfsync", "no"));
            // a bad value of another setting fails the whole request: appendfsync did not change
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'list-compress-depth') - argument " +
                "couldn't be parsed into an integer", resp.call("CONFIG", "SET", "appendfsync", "always",
                "list-compress-depth", "x"));
            assertEquals("*4[$appendonly, $yes, $appendfsync, $everysec]", resp.call("CONFIG", "GET", "append*"));
        }
    }

    @Test
    void writesUnderEverysecTellTheMemoryNodeWhichWritesTheirKeysToDisk() throws Exception
    {
        try (MetaCluster cluster = new MetaCluster(dir.resolve("meta"), dir.resolve("memory"));
            ComputeNode node = compute(cluster, cluster.base + 2, "yes", "everysec");
            RawResp resp = new RawResp(node.port()))
        {
            final long before = cluster.memory().persistStats().keysPersisted();
            for (int i = 0; i < 20; i++)
            {
                assertEquals("+OK", resp.call("SET", "kept-" + i, "v" + i));
            }
            // told, not waited for: the node writes them soon after
            MetaCluster.await("the memory node wrote the keys to disk",
                () -> cluster.memory().persistStats().keysPersisted() >= before + 20);
            final String info = persistence(resp);
            assertTrue(figure(info, "dkv_persists_told") >= 20, info);
            assertEquals(0, figure(info, "dkv_persist_failures"), info);

            // the memory node's disk, as its index header shows it: fsynced within the interval, read within a second
            final long fsyncs = cluster.memory().persistStats().fsyncs();
            MetaCluster.await("the memory node fsynced the keys", () -> cluster.memory().persistStats().fsyncs() >
                fsyncs || cluster.memory().persistStats().unsyncedSinceNanos() == 0);
            final long fsyncedAt = System.currentTimeMillis();
            String disks = persistence(resp);
            // a reading is taken each second: one after the fsync shows it
            for (int tries = 0; tries < 600 && (figure(disks, "dkv_disks_read_ms_ago") < 0 ||
                System.currentTimeMillis() - figure(disks, "dkv_disks_read_ms_ago") <= fsyncedAt); tries++)
            {
                Thread.sleep(50);
                disks = persistence(resp);
            }
            assertEquals(1, figure(disks, "dkv_memory_nodes_on_disk"), disks);
            assertTrue(disks.contains("aof_last_write_status:ok\r\n"), disks);
            final long age = figure(disks, "dkv_last_fsync_age_ms");
            assertTrue(age >= 0 && age < 60_000, disks);
            assertEquals(0, figure(disks, "dkv_unsynced_ms"), "every write fsynced: " + disks);
            assertTrue(figure(disks, "dkv_fsync_lag_p99_ms") <= 60_000, disks);
            // the loops' rings carry their marks: the node's durable epoch follows the clock, a second or so behind
            String durable = persistence(resp);
            for (int tries = 0; tries < 600 && figure(durable, "dkv_durable_lag_ms") >= 60_000; tries++)
            {
                Thread.sleep(50);
                durable = persistence(resp);
            }
            assertTrue(figure(durable, "dkv_durable_lag_ms") < 60_000, durable);
            // and the compute node's client raises the nodes to the cluster's durable epoch, once a second
            for (int tries = 0; tries < 600 && (figure(durable, "dkv_cluster_durable_lag_ms") < 0 ||
                figure(durable, "dkv_cluster_durable_lag_ms") >= 60_000); tries++)
            {
                Thread.sleep(50);
                durable = persistence(resp);
            }
            final long clusterLag = figure(durable, "dkv_cluster_durable_lag_ms");
            assertTrue(clusterLag >= 0 && clusterLag < 60_000, durable);
            assertTrue(disks.contains("dkv_memory_node_" + cluster.memoryId() + ":disk=yes,last_fsync_age_ms="),
                disks);
            assertTrue(disks.contains(",durable_lag_ms="), disks);
        }
    }

    @Test
    void switchingFromNoToAlwaysAtRunTimeMakesTheNextWriteDurableBeforeItsOk() throws Exception
    {
        try (MetaCluster cluster = new MetaCluster(dir.resolve("meta"), dir.resolve("memory"));
            ComputeNode node = ComputeNode.start(context(cluster, cluster.base + 2, "yes", "no")
                .asyncCommands("on"));
            RawResp resp = new RawResp(node.port()))
        {
            final long before = cluster.memory().persistStats().keysPersisted();
            assertEquals("+OK", resp.call("SET", "memory-only", "v"));
            assertEquals(before, cluster.memory().persistStats().keysPersisted(), "appendfsync no tells nothing");

            assertEquals("+OK", resp.call("CONFIG", "SET", "appendfsync", "always"));
            assertEquals("+OK", resp.call("SET", "durable", "v"));
            // under always the OK comes once the node has the key on disk: counted before it answered
            assertTrue(cluster.memory().persistStats().keysPersisted() >= before + 1);
            assertEquals("$v", resp.call("GET", "durable"));
            assertTrue(persistence(resp).contains("aof_enabled:1\r\ndkv_appendfsync:always\r\n"));
        }
    }

    @Test
    void aNodeLeftToItsDefaultsOverAMemoryNodeWithoutDiskRunsWithAppendonlyNoAndSaysSo() throws Exception
    {
        final List<String> said = new CopyOnWriteArrayList<>();
        try (MetaCluster cluster = new MetaCluster(dir);
            ComputeNode node = ComputeNode.start(context(cluster, cluster.base + 2, "yes", "everysec")
                .appendOnlyFallback(true).log(said::add));
            RawResp resp = new RawResp(node.port()))
        {
            assertEquals(List.of("dkv compute node " + (cluster.base + 2) + ": appendonly no: memory node " +
                cluster.memoryId() + " keeps nothing on disk (started without --data-dir), so writes are kept in " +
                "memory only"), said);
            assertEquals("*4[$appendonly, $no, $appendfsync, $everysec]", resp.call("CONFIG", "GET", "append*"));
            assertTrue(persistence(resp).contains("aof_enabled:0\r\n"), persistence(resp));
            assertEquals("+OK", resp.call("SET", "k", "v"));

            // asked for at run time, it is refused naming the memory node, and nothing changes
            final String refused = resp.call("CONFIG", "SET", "appendonly", "yes");
            assertTrue(refused.startsWith("-ERR CONFIG SET failed (possibly related to argument 'appendonly') - " +
                "memory node " + cluster.memoryId() + " keeps nothing on disk"), refused);
            assertEquals("*2[$appendonly, $no]", resp.call("CONFIG", "GET", "appendonly"));
            assertEquals("+OK", resp.call("CONFIG", "SET", "appendfsync", "always"), "appendonly no: no disk needed");
        }
    }

    @Test
    void aNodeAskedForAppendonlyOverAMemoryNodeWithoutDiskFailsToStartNamingItAndTheWayOut() throws Exception
    {
        try (MetaCluster cluster = new MetaCluster(dir))
        {
            final IllegalStateException refused;
            // a start that fails leaves its RaaS handle to its caller, as the command closes its own
            try (Raas raas = cluster.node(cluster.base + 2, NodeRecord.ROLE_COMPUTE))
            {
                refused = assertThrows(IllegalStateException.class, () -> ComputeNode.start(new ComputeNodeContext()
                    .port(0).bindAddress("127.0.0.1").ioThreads(1).appendOnly("yes").appendFsync("always")
                    .raas(raas, false)));
            }
            assertEquals("memory node " + cluster.memoryId() + " keeps nothing on disk (it was started without " +
                "--data-dir), so appendonly yes with appendfsync always cannot be had: start the memory nodes with " +
                "--data-dir, or this compute node with --appendonly no", refused.getMessage());

            // appendonly no asks for no disk
            try (ComputeNode node = ComputeNode.start(context(cluster, cluster.base + 3, "no", "everysec"));
                RawResp resp = new RawResp(node.port()))
            {
                assertEquals("+OK", resp.call("SET", "k", "v"));
                assertEquals("*2[$appendonly, $no]", resp.call("CONFIG", "GET", "appendonly"));
            }
        }
    }

    @Test
    void theCommandLinesDefaultIsEverysecAndFallsBackOnlyWhenNothingWasGiven()
    {
        final ComputeNodeOptions none = new ComputeNodeOptions();
        final ComputeNodeContext defaults = none.durability(new ComputeNodeContext());
        assertEquals(List.of("yes", "everysec", true),
            List.of(defaults.appendOnly(), defaults.appendFsync(), defaults.appendOnlyFallback()));

        final ComputeNodeOptions given = new ComputeNodeOptions();
        given.appendFsync = "always";
        final ComputeNodeContext explicit = given.durability(new ComputeNodeContext());
        assertEquals(List.of("yes", "always", false),
            List.of(explicit.appendOnly(), explicit.appendFsync(), explicit.appendOnlyFallback()));

        given.appendOnly = "perhaps";
        assertEquals("--appendonly perhaps: expected yes or no",
            assertThrows(IllegalArgumentException.class, given::requireDurability).getMessage());
        given.appendOnly = "no";
        given.appendFsync = "sometimes";
        assertEquals("--appendfsync sometimes: expected one of everysec, always, no",
            assertThrows(IllegalArgumentException.class, given::requireDurability).getMessage());
    }

    private static ComputeNode compute(final MetaCluster cluster, final long nodeId, final String appendOnly,
        final String appendFsync)
    {
        return ComputeNode.start(context(cluster, nodeId, appendOnly, appendFsync));
    }

    private static ComputeNodeContext context(final MetaCluster cluster, final long nodeId, final String appendOnly,
        final String appendFsync)
    {
        return new ComputeNodeContext().port(0).bindAddress("127.0.0.1").ioThreads(1).warmupRounds(0)
            .appendOnly(appendOnly).appendFsync(appendFsync).raas(cluster.node(nodeId, NodeRecord.ROLE_COMPUTE), true);
    }

    private static String persistence(final RawResp resp) throws Exception
    {
        return resp.call("INFO", "persistence");
    }

    private static long figure(final String info, final String name)
    {
        for (final String line : info.substring(1).split("\r\n"))
        {
            if (line.startsWith(name + ":"))
            {
                return Long.parseLong(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no " + name + " in " + info);
    }
}
