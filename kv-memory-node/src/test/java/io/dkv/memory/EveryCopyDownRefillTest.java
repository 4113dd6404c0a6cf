package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.RefillReport;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every copy of the keys down at once (memory nodes paused past their leases, say), then back with their memory:
 * no copy serves to refill another from. The copy of the replica that stopped serving last holds every write
 * acknowledged, since each was made on every replica serving at the time: the refill settles each key on it, and on
 * nothing else. Before, no key could be refilled and the nodes stayed joining for ever.
 */
class EveryCopyDownRefillTest
{
    private static final long[] IDS = {1, 2};
    private static final int KEYS = 90;
    private static final int ADDED = 20;
    private static final int REFRESH_MS = 50;

    private final StaticDirectory directory = new StaticDirectory();
    private final Raas[] raases = new Raas[IDS.length];
    private final MemoryNode[] nodes = new MemoryNode[IDS.length];
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
        for (int i = 0; i < IDS.length; i++)
        {
            nodes[i].close();
            raases[i].close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void eachKeySettlesOnTheCopyOfTheReplicaThatServedLast(final String provider)
    {
        final KvClient client = writeWhileNodeOneIsDown(provider);
        // node 1 stopped serving in epoch 2, node 2 in epoch 3: both back, as the incarnations they served as
        directory.membership(membership(4, Membership.JOINING, Membership.JOINING, 2, 3));

        final RefillReport one = refill(0);
        assertTrue(one.complete(), one.toString());
        assertTrue(one.refilled() > 0, "node 1 took the writes it missed from node 2: " + one);
        final RefillReport two = refill(1);
        assertTrue(two.complete(), two.toString());
        assertEquals(0, two.refilled(), "node 2's copies were the ones to keep: " + two);
        assertEquals(committedValues(1), committedValues(0), "both copies alike, write ids and all");

        directory.membership(membership(5, Membership.LIVE, Membership.LIVE, 0, 0));
        awaitRefreshDue();
        for (int k = 0; k < KEYS + ADDED; k++)
        {
            final byte[] expected = k >= KEYS ? value(k, 1) : k % 3 == 0 ? value(k, 1) : k % 3 == 1 ? null :
                value(k, 0);
            assertArrayEquals(expected, client.get(key(k)), "key " + k + " once both are live again");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void nothingIsSettledWhileTheReplicaThatServedLastIsNotBackWithItsMemory(final String provider)
    {
        writeWhileNodeOneIsDown(provider);
        final Map<String, String> before = committedValues(0);

        directory.membership(membership(4, Membership.JOINING, Membership.DOWN, 2, 3));
        final RefillReport notBack = refill(0);
        assertFalse(notBack.complete(), "node 2, which served last, is still down: " + notBack);

        directory.membership(membership(5, Membership.JOINING, Membership.JOINING, 2, 3 | Membership.MEMORY_LOST));
        final RefillReport lost = refill(0);
        assertFalse(lost.complete(), "node 2 came back as another incarnation, its memory lost: " + lost);
        assertEquals(before, committedValues(0), "node 1's copies untouched: nothing to settle them on");
    }

    /**
     * Both nodes live, every key written; node 1 down while node 2 alone takes writes, puts, deletes and new keys;
     * then node 2 down too. The nodes keep their memory throughout, as nodes paused past their leases do.
     *
     * @return the client that wrote.
     */
    private KvClient writeWhileNodeOneIsDown(final String provider)
    {
        directory.membership(membership(1, Membership.LIVE, Membership.LIVE, 0, 0));
        for (int i = 0; i < IDS.length; i++)
        {
            raases[i] = RaasDriver.start(KvCluster.context(provider, IDS[i]).role(NodeRecord.ROLE_MEMORY), directory);
            nodes[i] = MemoryNode.start(raases[i], new MemoryNodeContext().indexGroups(256));
        }
        final Raas clientRaas = RaasDriver.start(KvCluster.context(provider, 100), directory);
        open.add(clientRaas);
        final KvClient client = KvClient.connect(clientRaas, clientContext());
        open.add(client);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k, 0));
        }
        directory.membership(membership(2, Membership.DOWN, Membership.LIVE, 2, 0));
        awaitRefreshDue();
        for (int k = 0; k < KEYS; k++)
        {
            if (k % 3 == 0)
            {
                client.put(key(k), value(k, 1));
            }
            else if (k % 3 == 1)
            {
                assertTrue(client.delete(key(k)), "key " + k + " deleted while node 1 is down");
            }
        }
        for (int k = KEYS; k < KEYS + ADDED; k++)
        {
            client.put(key(k), value(k, 1));
        }
        directory.membership(membership(3, Membership.DOWN, Membership.DOWN, 2, 3));
        assertNull(committedValues(0).get("key-" + KEYS), "node 1 missed the keys added while it was down");
        return client;
    }

    /** Past the client's membership refresh period: its next operation reads the membership the test set. */
    private static void awaitRefreshDue()
    {
        try
        {
            Thread.sleep(4 * REFRESH_MS);
        }
        catch (final InterruptedException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** As the node's rejoin does: passes until one is complete, or three. */
    private RefillReport refill(final int i)
    {
        final KvClient refiller = KvClient.connect(raases[i], clientContext());
        open.add(refiller);
        RefillReport report = null;
        for (int pass = 0; pass < 3 && (report == null || !report.complete()); pass++)
        {
            report = refiller.refill(IDS[i]);
        }
        return report;
    }

    private Map<String, String> committedValues(final int i)
    {
        return IndexInspector.committedValues(raases[i].localMemory(nodes[i].indexRegion()),
            raases[i].localMemory(nodes[i].heapRegion()));
    }

    private static KvClientContext clientContext()
    {
        return new KvClientContext().memoryNodes(IDS).timeoutMs(1_000).unavailableRetryMs(0)
            .membershipRefreshMs(REFRESH_MS);
    }

    private static Membership membership(final long epoch, final int stateOne, final int stateTwo, final long leftOne,
        final long leftTwo)
    {
        return new Membership(epoch, 2, IDS, new int[]{stateOne, stateTwo}, new long[2],
            new int[]{Membership.PLACED, Membership.PLACED}, Membership.STEADY, new long[]{leftOne, leftTwo});
    }

    private static byte[] key(final int k)
    {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k, final long round)
    {
        return ("value-" + k + "-" + round).getBytes(StandardCharsets.UTF_8);
    }
}
