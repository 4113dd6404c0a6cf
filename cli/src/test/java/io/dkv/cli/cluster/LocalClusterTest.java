package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.CommandRun;
import io.dkv.load.Tiers;
import io.dkv.process.RoleProcess;
import io.dkv.load.resp.RespSocket;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code dkv up} starts a MetaServer, memory nodes, a driver and a compute node as processes; {@code dkv put},
 * {@code get} and {@code del} from another process reach the data through the driver, and redis-cli reaches the same
 * data through the compute node, and go on doing so once a memory node is drained (they follow the MetaServer's
 * membership); stopping {@code up} stops them all. The cluster secret {@code up} generates is
 * readable by its owner only, and is what an operator removes records with.
 */
class LocalClusterTest
{
    /** Long enough for any machine: what is checked is that it ends well, never how fast. */
    private static final long STOP_TIMEOUT_MS = 120_000;

    private final CommandRun dkv = new CommandRun(DkvMain::commandLine);

    /** {@code dkv up} in a process of its own, on any free port (a redis-server may hold 6379), stopped by the test. */
    static RoleProcess up(final Path dir, final Path clusterFile, final String... more)
    {
        final List<String> arguments = new ArrayList<>(List.of("up", "--dir", dir.resolve("run").toString(),
            "--cluster", clusterFile.toString(), "--index-groups", "1024", "--heap-chunks", "8", "--compute-port",
            "0"));
        arguments.addAll(List.of(more));
        return RoleProcess.start("dkv up", "256m", Map.of(), DkvMain.class.getName(), arguments,
            Pattern.compile("Ctrl-C stops the cluster"), dir.resolve("up.log"), List.of());
    }

    @Test
    void aComputeRangeRunsTheAutoscalerWithItsNodesOnOnePort(@TempDir final Path dir) throws Exception
    {
        final Path clusterFile = dir.resolve("cluster.properties");
        final RoleProcess up = up(dir, clusterFile, "--compute", "1..2");
        try
        {
            final int[] ports = ClusterFile.read(clusterFile).computePorts();
            assertEquals(1, ports.length, "the autoscaler's nodes share one port");
            assertTrue(up.logTail().contains("autoscaler") && up.logTail().contains("1 compute node(s), RESP on " +
                "127.0.0.1:" + ports[0]), up::logTail);
            try (RespSocket socket = new RespSocket("127.0.0.1:" + ports[0], 30_000))
            {
                assertEquals("OK", ((RespSocket.Simple)socket.call("SET".getBytes(), "scaled".getBytes(),
                    "yes".getBytes())).text());
            }
            assertEquals(0, dkv.run("get", "--cluster=" + clusterFile, "scaled"), dkv::err);
            assertEquals("yes", dkv.out().trim(), "what the autoscaled node set, dkv get reads");
        }
        finally
        {
            assertEquals(0, up.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly on SIGTERM, as on Ctrl-C");
        }
        final String autoscaleLog = Files.readString(dir.resolve("run").resolve("autoscale.log"));
        assertTrue(autoscaleLog.contains("SIGTERM: draining 1 compute node(s)") && autoscaleLog.contains("stopped"),
            autoscaleLog);
        final String nodeLog = Files.readString(dir.resolve("run").resolve("autoscale").resolve("compute-node-0.log"));
        assertTrue(nodeLog.contains("stopped and deregistered"), nodeLog);
    }

    @Test
    void keysArePutReadAndDeletedThroughTheLocalCluster(@TempDir final Path dir) throws Exception
    {
        final Path clusterFile = dir.resolve("cluster.properties");
        final RoleProcess up = up(dir, clusterFile);
        try
        {
            final String cluster = "--cluster=" + clusterFile;
            assertTrue(Files.exists(clusterFile), up::logTail);
            // a cluster of its own directory, beside any the user runs with the default one
            assertEquals(UpCommand.driverName(dir.resolve("run")), ClusterFile.read(clusterFile).driverName());
            assertNotEquals(UpCommand.DRIVER_NAME, ClusterFile.read(clusterFile).driverName());
            for (int i = 0; i < 20; i++)
            {
                assertEquals(0, dkv.run("put", cluster, "key-" + i, "value-" + i), dkv::err);
                assertEquals("OK", dkv.out().trim());
            }
            for (int i = 0; i < 20; i++)
            {
                assertEquals(0, dkv.run("get", cluster, "key-" + i), dkv::err);
                assertEquals("value-" + i, dkv.out().trim());
            }
            assertEquals(0, dkv.run("del", cluster, "key-3"));
            assertEquals("1", dkv.out().trim());
            assertEquals(0, dkv.run("del", cluster, "key-3"));
            assertEquals("0", dkv.out().trim());
            assertEquals(1, dkv.run("get", cluster, "key-3"), "a key without a value exits with 1");
            assertEquals("(nil)", dkv.out().trim());
            final Path secret = dir.resolve(UpCommand.SECRET_FILE);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)),
                "the secret file's mode");
            final String meta = ClusterFile.read(clusterFile).meta();
            assertEquals(secret.toString(), ClusterFile.read(clusterFile).secretFile());
            assertEquals(0,
                dkv.run("meta", "withdraw", "--meta", meta, "--cluster-secret-file", secret.toString(), "--region",
                    "nothing"),
                dkv::err);
            assertEquals("withdrew region 'nothing'", dkv.out().trim());
            final Path wrong = dir.resolve("wrong-secret");
            Files.writeString(wrong, "cd".repeat(32));
            Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));
            assertTrue(dkv.run("meta", "evict", "--meta", meta, "--cluster-secret-file", wrong.toString(), "--node",
                "101") != 0);
            assertTrue(dkv.err().contains("the cluster secret differs"), dkv::err);
            final String log = up.logTail();
            assertTrue(log.contains("memory node") && log.contains("node 101") && log.contains("node 102"), log);
        }
        finally
        {
            assertEquals(0, up.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly on SIGTERM, as on Ctrl-C");
        }
        assertFalse(Files.exists(clusterFile), "the cluster file goes with the cluster");
        assertTrue(up.logTail().contains("stopped 5 processes"), up::logTail);
        assertEquals(1, dkv.run("get", "--cluster=" + clusterFile, "key-1"));
        assertTrue(dkv.err().contains("start one with ./dkv up"), dkv::err);
    }

    /** @return the exit status of a process that ends by itself, once it has. */
    private static int exitStatus(final RoleProcess process) throws InterruptedException
    {
        final long deadline = System.nanoTime() + STOP_TIMEOUT_MS * 1_000_000L;
        while (process.isAlive() && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(20);
        }
        return process.exitStatus();
    }

    @Test
    @Tag(Tiers.SOAK)
    void putGetAndDelFollowTheMembershipAfterAMemoryNodeIsDrained(@TempDir final Path dir) throws Exception
    {
        final Path clusterFile = dir.resolve("cluster.properties");
        final RoleProcess up = up(dir, clusterFile);
        try
        {
            final String cluster = "--cluster=" + clusterFile;
            for (int i = 0; i < 10; i++)
            {
                assertEquals(0, dkv.run("put", cluster, "before-" + i, "value-" + i), dkv::err);
            }
            final ClusterFile described = ClusterFile.read(clusterFile);
            final long drained = UpCommand.FIRST_MEMORY_NODE_ID + 1;
            // the operator's drain, as ./dkv memory-node --drain runs it: it exits once the node has left the tier
            final RoleProcess drain = RoleProcess.start("drain of memory node " + drained, "256m", Map.of(),
                List.of("memory-node", "--drain", Long.toString(drained), "--meta", described.meta(),
                    "--cluster-secret-file", described.secretFile(), "--node-id", "301", "--provider",
                    described.provider()),
                Pattern.compile("memory node " + drained + " has left the memory tier"), dir.resolve("drain.log"));
            assertEquals(0, exitStatus(drain), drain::logTail);

            for (int i = 0; i < 10; i++)
            {
                assertEquals(0, dkv.run("get", cluster, "before-" + i), dkv::err);
                assertEquals("value-" + i, dkv.out().trim(), "a key written before the drain, read after it");
            }
            for (int i = 0; i < 10; i++)
            {
                assertEquals(0, dkv.run("put", cluster, "after-" + i, "new-" + i), dkv::err);
                assertEquals("OK", dkv.out().trim());
            }
            for (int i = 0; i < 10; i++)
            {
                assertEquals(0, dkv.run("get", cluster, "after-" + i), dkv::err);
                assertEquals("new-" + i, dkv.out().trim(), "a key written after the drain");
            }
            assertEquals(0, dkv.run("del", cluster, "before-3"), dkv::err);
            assertEquals("1", dkv.out().trim());
            assertEquals(1, dkv.run("get", cluster, "before-3"), "deleted after the drain, gone");
            assertEquals("(nil)", dkv.out().trim());
        }
        finally
        {
            assertEquals(0, up.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly on SIGTERM, as on Ctrl-C");
        }
    }

    @Test
    void redisCliAndDkvPutAndGetShareTheStoreThroughTheComputeNode(@TempDir final Path dir) throws Exception
    {
        final String missing = RedisCli.missingReason();
        if (missing != null)
        {
            System.out.println("LocalClusterTest: redis-cli checks skipped: " + missing);
        }
        assumeTrue(missing == null, missing);
        final Path clusterFile = dir.resolve("cluster.properties");
        final RoleProcess up = up(dir, clusterFile);
        try
        {
            final int[] ports = ClusterFile.read(clusterFile).computePorts();
            assertEquals(1, ports.length, "one compute node by default");
            final RedisCli redisCli = new RedisCli(ports[0]);
            assertTrue(up.logTail().contains("redis-cli -p " + ports[0] + " set greeting hello"), up::logTail);
            final String cluster = "--cluster=" + clusterFile;

            assertEquals("OK", redisCli.call("set", "greeting", "hello"));
            assertEquals("hello", redisCli.call("get", "greeting"));
            assertEquals(0, dkv.run("get", cluster, "greeting"), dkv::err);
            assertEquals("hello", dkv.out().trim(), "what redis-cli set, dkv get reads");

            assertEquals(0, dkv.run("put", cluster, "from-dkv", "put by dkv"), dkv::err);
            assertEquals("put by dkv", redisCli.call("get", "from-dkv"), "what dkv put set, redis-cli reads");

            assertEquals("1", redisCli.call("del", "from-dkv"));
            assertEquals(1, dkv.run("get", cluster, "from-dkv"), "what redis-cli deleted, dkv get does not find");
            assertEquals("", redisCli.call("get", "absent"), "redis-cli prints nothing for a nil reply when piped");
        }
        finally
        {
            assertEquals(0, up.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly on SIGTERM, as on Ctrl-C");
        }
        final String computeLog = Files.readString(dir.resolve("run").resolve("compute-node-" +
            UpCommand.FIRST_COMPUTE_NODE_ID + ".log"));
        assertTrue(computeLog.contains("stopped and deregistered"), computeLog);
    }
}
