package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node that is down takes only its own keys with it: a client connects while it is down,
 * serves the other node's keys and fails its keys at once with an error naming it, reads the node's
 * view again no more often than its retry interval, and serves its keys again once it is back.
 */
class PartialFailureTest
{
    private static final long UP = 1;
    private static final long DOWN = 2;
    private static final long RUNNING_CLIENT = 100;
    private static final long LATER_CLIENT = 101;
    private static final int KEYS = 24;
    private static final int RETRY_MS = 250;
    private static final int TIMEOUT_MS = 1_000;

    private final StaticDirectory directory = new StaticDirectory();
    /** The clients' clock: the retry interval passes when a test moves it. */
    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Integer> upKeys = new ArrayList<>();
    private final List<Integer> downKeys = new ArrayList<>();
    private Raas downRaas;
    private MemoryNode downNode;
    private KvClient running;

    @BeforeEach
    void twoNodesWithKeysOnBothThenOneStops()
    {
        startNode(UP, new MemoryNodeContext());
        startNode(DOWN, new MemoryNodeContext());
        running = connect(RUNNING_CLIENT);
        open.add(running);
        for (int k = 0; k < KEYS; k++)
        {
            running.put(key(k), value(k));
        }
        stopDownNode();
        for (int k = 0; k < KEYS; k++)
        {
            try
            {
                assertArrayEquals(value(k), running.get(key(k)), "key " + k);
                upKeys.add(k);
            }
            catch (final KvException ex)
            {
                assertTrue(ex.getMessage().contains("memory node " + DOWN), ex.getMessage());
                downKeys.add(k);
            }
        }
        assertFalse(upKeys.isEmpty(), "some keys live on node " + UP);
        assertFalse(downKeys.isEmpty(), "some keys live on node " + DOWN);
    }

    @AfterEach
    void close() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
    }

    @Test
    void aClientConnectedWhileANodeIsDownServesTheOtherNodesKeysAndFailsItsKeysByName()
    {
        final KvClient later = laterClient();

        for (final int k : upKeys)
        {
            assertArrayEquals(value(k), later.get(key(k)));
            later.put(key(k), value(k + KEYS));
            assertArrayEquals(value(k + KEYS), running.get(key(k)));
        }
        assertEquals(upKeys.size(), later.multiGet(keys(upKeys)).size());
        for (final int k : downKeys)
        {
            final KvException get = assertThrows(KvException.class, () -> later.get(key(k)));
            assertTrue(get.getMessage().startsWith("memory node " + DOWN + " is unavailable: "), get.getMessage());
            final KvException put = assertThrows(KvException.class, () -> later.put(key(k), value(k)));
            assertTrue(put.getMessage().startsWith("memory node " + DOWN + " is unavailable: "), put.getMessage());
        }
        // a multiGet fails as get of its keys would: naming the node of a key it cannot read
        final KvException multiGet = assertThrows(KvException.class,
            () -> later.multiGet(keys(List.of(upKeys.getFirst(), downKeys.getFirst()))));
        assertTrue(multiGet.getMessage().startsWith("memory node " + DOWN + " is unavailable: "),
            multiGet.getMessage());
    }

    @Test
    void aNodeBackAfterTheRetryIntervalServesItsKeysAgain()
    {
        final KvClient later = laterClient();
        final byte[] downKey = key(downKeys.getFirst());
        assertThrows(KvException.class, () -> later.get(downKey));

        startNode(DOWN, new MemoryNodeContext());
        // within the retry interval the node is not looked at again: its keys fail at once, as they did
        final KvException notYet = assertThrows(KvException.class, () -> later.get(downKey));
        assertTrue(notYet.getMessage().startsWith("memory node " + DOWN + " is unavailable: "), notYet.getMessage());

        clock.advance(TimeUnit.MILLISECONDS.toNanos(RETRY_MS));
        // it came back empty: its keys are misses, and new writes land on it
        assertNull(later.get(downKey));
        later.put(downKey, value(0));
        assertArrayEquals(value(0), later.get(downKey));
        assertArrayEquals(value(0), running.get(downKey));
        for (final int k : upKeys)
        {
            assertArrayEquals(value(k), later.get(key(k)));
        }
    }

    @Test
    void aNodeThatComesBackWithAGracePeriodTooShortForTheClientIsRefusedByName()
    {
        final KvClient later = laterClient();
        startNode(DOWN, new MemoryNodeContext().graceMs(TIMEOUT_MS / 2));
        clock.advance(TimeUnit.MILLISECONDS.toNanos(RETRY_MS));

        final KvException refused = assertThrows(KvException.class, () -> later.get(key(downKeys.getFirst())));
        assertTrue(refused.getMessage().contains("memory node " + DOWN + "'s grace period of " + TIMEOUT_MS / 2),
            refused.getMessage());
        for (final int k : upKeys)
        {
            assertArrayEquals(value(k), later.get(key(k)));
        }
    }

    private KvClient laterClient()
    {
        return connect(LATER_CLIENT);
    }

    private KvClient connect(final long clientId)
    {
        final KvClient client = KvClient.connect(raas(clientId), new KvClientContext().memoryNodes(UP, DOWN)
            .timeoutMs(TIMEOUT_MS).unavailableRetryMs(RETRY_MS).nanoClock(clock));
        open.add(client);
        return client;
    }

    private void startNode(final long id, final MemoryNodeContext context)
    {
        final Raas raas = raas(id);
        final MemoryNode node = MemoryNode.start(raas, context.indexGroups(1024).chunkBytes(2 << 20).heapChunks(8));
        open.add(node);
        if (id == DOWN)
        {
            downRaas = raas;
            downNode = node;
        }
    }

    private void stopDownNode()
    {
        open.remove(downNode);
        open.remove(downRaas);
        downNode.close();
        downRaas.close();
    }

    private Raas raas(final long nodeId)
    {
        final Raas raas = RaasDriver.start(KvCluster.context("shm", nodeId), directory);
        open.add(raas);
        return raas;
    }

    private static List<byte[]> keys(final List<Integer> ks)
    {
        return ks.stream().map(PartialFailureTest::key).toList();
    }

    private static byte[] key(final int k)
    {
        return numbered("key-", k);
    }

    private static byte[] value(final int k)
    {
        return numbered("value-", k);
    }

    private static byte[] numbered(final String prefix, final int k)
    {
        return (prefix + k).getBytes(StandardCharsets.UTF_8);
    }
}
