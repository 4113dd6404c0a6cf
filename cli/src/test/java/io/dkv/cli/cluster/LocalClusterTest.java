package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.process.RoleProcess;
import io.dkv.load.resp.RespSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code dkv up} starts a MetaServer, memory nodes, a driver and a compute node as processes; {@code dkv put},
 * {@code get} and {@code del} from another process reach the data through the driver, and redis-cli reaches the same
 * data through the compute node; stopping {@code up} stops them all. The cluster secret {@code up} generates is
 * readable by its owner only, and is what an operator removes records with.
 */
class LocalClusterTest
{
    /** Long enough for any machine: what is checked is that it ends well, never how fast. */
    private static final long STOP_TIMEOUT_MS = 120_000;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** {@code dkv up} in a process of its own, on any free port (a redis-server may hold 6379), stopped by the test. */
    private static RoleProcess up(final Path dir, final Path clusterFile, final String... more)
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
            assertEquals(0, dkv("get", "--cluster=" + clusterFile, "scaled"), err::toString);
            assertEquals("yes", out.toString().trim(), "what the autoscaled node set, dkv get reads");
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

    private int dkv(final String... args)
    {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        return DkvMain.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
            .execute(args);
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
            for (int i = 0; i < 20; i++)
            {
                assertEquals(0, dkv("put", cluster, "key-" + i, "value-" + i), err::toString);
                assertEquals("OK", out.toString().trim());
            }
            for (int i = 0; i < 20; i++)
            {
                assertEquals(0, dkv("get", cluster, "key-" + i), err::toString);
                assertEquals("value-" + i, out.toString().trim());
            }
            assertEquals(0, dkv("del", cluster, "key-3"));
            assertEquals("1", out.toString().trim());
            assertEquals(0, dkv("del", cluster, "key-3"));
            assertEquals("0", out.toString().trim());
            assertEquals(1, dkv("get", cluster, "key-3"), "a key without a value exits with 1");
            assertEquals("(nil)", out.toString().trim());
            final Path secret = dir.resolve(UpCommand.SECRET_FILE);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)),
                "the secret file's mode");
            final String meta = ClusterFile.read(clusterFile).meta();
            assertEquals(secret.toString(), ClusterFile.read(clusterFile).secretFile());
            assertEquals(0,
                dkv("meta", "withdraw", "--meta", meta, "--cluster-secret-file", secret.toString(), "--region",
                    "nothing"),
                err::toString);
            assertEquals("withdrew region 'nothing'", out.toString().trim());
            final Path wrong = dir.resolve("wrong-secret");
            Files.writeString(wrong, "cd".repeat(32));
            Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));
            assertTrue(dkv("meta", "evict", "--meta", meta, "--cluster-secret-file", wrong.toString(), "--node",
                "101") != 0);
            assertTrue(err.toString().contains("the cluster secret differs"), err::toString);
            final String log = up.logTail();
            assertTrue(log.contains("memory node") && log.contains("node 101") && log.contains("node 102"), log);
        }
        finally
        {
            assertEquals(0, up.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly on SIGTERM, as on Ctrl-C");
        }
        assertFalse(Files.exists(clusterFile), "the cluster file goes with the cluster");
        assertTrue(up.logTail().contains("stopped 5 processes"), up::logTail);
        assertEquals(1, dkv("get", "--cluster=" + clusterFile, "key-1"));
        assertTrue(err.toString().contains("start one with ./dkv up"), err::toString);
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
            assertEquals(0, dkv("get", cluster, "greeting"), err::toString);
            assertEquals("hello", out.toString().trim(), "what redis-cli set, dkv get reads");

            assertEquals(0, dkv("put", cluster, "from-dkv", "put by dkv"), err::toString);
            assertEquals("put by dkv", redisCli.call("get", "from-dkv"), "what dkv put set, redis-cli reads");

            assertEquals("1", redisCli.call("del", "from-dkv"));
            assertEquals(1, dkv("get", cluster, "from-dkv"), "what redis-cli deleted, dkv get does not find");
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
