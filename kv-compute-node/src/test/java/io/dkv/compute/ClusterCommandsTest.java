package io.dkv.compute;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node with no RaaS handle to find others by answers CLUSTER as a one-node redis 7 cluster holding every
 * slot does: the replies of redis-server started with {@code --cluster-enabled yes} and given slots 0-16383, the same
 * shapes (types, lengths, field names, slot ranges) in RESP2 and RESP3, where only the node's host, port and id differ.
 */
class ClusterCommandsTest
{
    @TempDir
    static Path dir;
    private static RedisServer redis;
    private static TestStore store;

    @BeforeAll
    static void start() throws Exception
    {
        store = new TestStore(new ComputeNodeContext());
        final String binary = RedisServer.binary("redis-server");
        if (binary != null)
        {
            redis = RedisServer.start(binary, dir, "--cluster-enabled", "yes", "--cluster-config-file",
                dir.resolve("nodes.conf").toString());
            try (RawResp admin = new RawResp(redis.port()))
            {
                assertEquals("+OK", admin.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
                final long deadline = System.nanoTime() + 30_000_000_000L;
                // redis's cluster cron marks the state ok a moment after the slots are added
                while (!admin.call("CLUSTER", "INFO").contains("cluster_state:ok") && System.nanoTime() < deadline)
                {
                    Thread.sleep(20);
                }
            }
        }
    }

    @AfterAll
    static void stop()
    {
        if (store != null)
        {
            store.close();
        }
        if (redis != null)
        {
            redis.close();
        }
    }

    @Test
    void clusterSlotsShardsNodesAndInfoHaveTheShapesOfAOneNodeRedisCluster() throws Exception
    {
        Assumptions.assumeTrue(redis != null, "redis-server is not installed (.ci/run installs it)");
        for (final String protocol : new String[]{"2", "3"})
        {
            for (final String sub : new String[]{"SLOTS", "SHARDS", "NODES", "INFO", "MYID"})
            {
                final String theirs = normalized(redis.port(), "", protocol, sub);
                final String ours = normalized(store.port(), "127.0.0.1", protocol, sub);
                assertEquals(theirs, ours, () -> "CLUSTER " + sub + " in RESP" + protocol);
            }
        }
    }

    @Test
    void clusterMisusesGetRedisErrors() throws Exception
    {
        try (RawResp ours = new RawResp(store.port()))
        {
            assertEquals("-ERR wrong number of arguments for 'cluster' command", ours.call("CLUSTER"));
            assertEquals("-ERR wrong number of arguments for 'cluster|slots' command", ours.call("CLUSTER", "SLOTS",
                "x"));
            assertEquals("-ERR unknown subcommand 'foo'. Try CLUSTER HELP.", ours.call("cluster", "foo"));
            assertEquals("+OK", ours.call("READONLY"));
            assertEquals("+OK", ours.call("READWRITE"));
            final String myId = ours.call("CLUSTER", "MYID");
            assertTrue(myId.matches("\\$[0-9a-f]{40}"), () -> "a node id is 40 hex digits: " + myId);
        }
    }

    /** The reply with the node's own host, port (and bus port) and id made placeholders. */
    private static String normalized(final int port, final String host, final String protocol, final String sub)
        throws Exception
    {
        try (RawResp connection = new RawResp(port))
        {
            connection.call("HELLO", protocol);
            final String id = connection.call("CLUSTER", "MYID").substring(1);
            final String reply = connection.call("CLUSTER", sub);
            return reply.replace(id, "ID")
                .replaceAll(host.isEmpty() ? "\\$(?=[,\\]])" : "\\$" + host.replace(".", "\\."), "\\$HOST")
                .replace(" " + host + ":" + port + "@", " HOST:PORT@")
                .replaceAll("@[0-9]+ ", "@BUS ")
                .replace(":" + port + ",", ":PORT,");
        }
    }
}
