package io.dkv.load.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientConfiguration;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.Raas;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node killed with SIGKILL takes only its own keys with it: a client that runs on and one
 * (or a compute node) started while it is down serve the other node's keys and fail its keys with an
 * error naming it; once it is started again on its data directory, the same clients serve its keys
 * again.
 */
class MemoryNodeDownTest
{
    private static final long DYING_NODE = 221;
    private static final long SURVIVING_NODE = 222;
    private static final int KEYS = 24;
    private static final int TIMEOUT_MS = 1_000;

    @Test
    void onlyTheDeadNodesKeysFailAndTheyAreServedAgainOnceItIsBack(@TempDir final Path dir) throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        try (RoleProcess meta = metaServer(dir, secret);
            RoleProcess survivor = memoryNode(dir, secret, meta, SURVIVING_NODE, "survivor.log"))
        {
            RoleProcess dying = memoryNode(dir, secret, meta, DYING_NODE, "dying-1.log");
            try (Raas raas = raas(secret, meta, 321);
                KvClient running = KvClient.connect(raas, clientContext()))
            {
                for (int k = 0; k < KEYS; k++)
                {
                    running.put(key(k), value(k));
                }
                dying.kill();

                final List<Integer> deadKeys = new ArrayList<>();
                final List<Integer> liveKeys = new ArrayList<>();
                for (int k = 0; k < KEYS; k++)
                {
                    if (servedOrFailsNamingTheDeadNode(running, k))
                    {
                        liveKeys.add(k);
                    }
                    else
                    {
                        deadKeys.add(k);
                    }
                }
                assertFalse(deadKeys.isEmpty(), "some keys live on the killed node");
                assertFalse(liveKeys.isEmpty(), "some keys live on the surviving node");
                // its requests left unanswered by the dead node hold up no lane, slot or connection of the others
                for (int round = 0; round < 50; round++)
                {
                    for (final int k : liveKeys)
                    {
                        running.put(key(k), value(k));
                        assertArrayEquals(value(k), running.get(key(k)));
                    }
                }
                assertEquals(liveKeys.size(), running.multiGet(keys(liveKeys)).size());
                final KvException multiGet =
                    assertThrows(KvException.class, () -> running.multiGet(keys(List.of(liveKeys.get(0),
                    deadKeys.get(0)))));
                assertTrue(multiGet.getMessage().contains("memory node " + DYING_NODE), multiGet.getMessage());

                try (Raas startedLater = raas(secret, meta, 322);
                    KvClient newClient = KvClient.connect(startedLater, clientContext());
                    RoleProcess computeNode = computeNode(dir, secret, meta);
                    Jedis redis = new Jedis(computeNode.readyGroup(2), Integer.parseInt(computeNode.readyGroup(3))))
                {
                    for (final int k : liveKeys)
                    {
                        assertArrayEquals(value(k), newClient.get(key(k)));
                        assertArrayEquals(value(k), redis.get(key(k)));
                    }
                    for (final int k : deadKeys)
                    {
                        final KvException failed = assertThrows(KvException.class, () -> newClient.get(key(k)));
                        assertEquals("memory node " + DYING_NODE + " is unavailable",
                            failed.getMessage().substring(0, failed.getMessage().indexOf(':')));
                        final JedisDataException refused =
                            assertThrows(JedisDataException.class, () -> redis.get(key(k)));
                        assertTrue(refused.getMessage().contains("memory node " + DYING_NODE), refused.getMessage());
                    }

                    dying = memoryNode(dir, secret, meta, DYING_NODE, "dying-2.log");
                    for (final int k : deadKeys)
                    {
                        assertArrayEquals(value(k), newClient.get(key(k)), "key " + k + " through the new client");
                        assertArrayEquals(value(k), running.get(key(k)), "key " + k + " through the running client");
                        assertArrayEquals(value(k), redis.get(key(k)), "key " + k + " through the compute node");
                    }
                }
            }
            finally
            {
                dying.close();
            }
        }
    }

    /**
     * @return true when the key is served with its value; false when it fails naming the dead node.
     */
    private static boolean servedOrFailsNamingTheDeadNode(final KvClient client, final int k)
    {
        try
        {
            assertArrayEquals(value(k), client.get(key(k)), "key " + k);
            return true;
        }
        catch (final KvException ex)
        {
            assertTrue(ex.getMessage().contains("memory node " + DYING_NODE), ex.getMessage());
            return false;
        }
    }

    private static KvClientContext clientContext()
    {
        // every operation on the dead node's keys reads its view again: the first after its restart finds it
        return new KvClientContext().memoryNodes(DYING_NODE, SURVIVING_NODE).timeoutMs(TIMEOUT_MS)
            .durability(Durability.SYNC).unavailableRetryMs(0);
    }

    private static Raas raas(final Path secret, final RoleProcess meta, final long nodeId)
    {
        return TcpRoles.raas(secret, meta, nodeId, TIMEOUT_MS);
    }

    /** One copy of each key, as this test is about: a node down takes its keys' only copies with it. */
    private static RoleProcess metaServer(final Path dir, final Path secret)
    {
        return TcpRoles.metaServer(dir, secret, "--replicas", "1", "--founders", DYING_NODE + "," + SURVIVING_NODE);
    }

    private static RoleProcess memoryNode(
        final Path dir, final Path secret, final RoleProcess meta, final long id, final String log)
    {
        return RoleProcess.start("memory node " + id, "256m", Map.of(),
            List.of("memory-node", "--cluster-secret-file", secret.toString(), "--node-id", Long.toString(id),
                "--provider", "tcp", "--meta", meta.readyGroup(1), "--data-dir", dir.resolve("data-" + id).toString(),
                "--index-groups", "1024", "--heap-chunks", "4"), ReadyLines.MEMORY_NODE, dir.resolve(log));
    }

    private static RoleProcess computeNode(final Path dir, final Path secret, final RoleProcess meta)
    {
        return RoleProcess.start("compute node", "256m",
            Map.of(KvClientConfiguration.MEMORY_NODES_PROP_NAME, DYING_NODE + "," + SURVIVING_NODE,
                KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Integer.toString(TIMEOUT_MS),
                KvClientConfiguration.UNAVAILABLE_RETRY_MS_PROP_NAME, "0"),
            List.of("compute-node", "--node-id", "401", "--port", "0", "--provider", "tcp",
                "--meta", meta.readyGroup(1), "--cluster-secret-file", secret.toString(),
                "--address", "127.0.0.1:0"), ReadyLines.COMPUTE_NODE, dir.resolve("compute.log"));
    }

    private static List<byte[]> keys(final List<Integer> ks)
    {
        return ks.stream().map(MemoryNodeDownTest::key).toList();
    }

    private static byte[] key(final int k)
    {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k)
    {
        return ("value-" + k).getBytes(StandardCharsets.UTF_8);
    }
}
