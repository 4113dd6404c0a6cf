package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.RefillReport;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node back from a failure joins with what its disk kept, which is out of date: keys changed,
 * deleted and added while it was down. Refilling it (as the node does before it asks to be live again)
 * brings every key it should hold to the write its other replica settled on, clears the ones deleted,
 * and keeps what writers put on it meanwhile; once live it serves its keys as the others do.
 */
class RefillTest
{
    private static final long[] IDS = {1, 2, 3};
    private static final long BACK = 2;
    private static final int KEYS = 150;

    private final StaticDirectory directory = new StaticDirectory();
    private final Raas[] raases = new Raas[IDS.length];
    private final MemoryNode[] nodes = new MemoryNode[IDS.length];
    private final List<AutoCloseable> open = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
        for (int i = 0; i < IDS.length; i++)
        {
            if (nodes[i] != null)
            {
                nodes[i].close();
            }
            if (raases[i] != null)
            {
                raases[i].close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aNodeBackFromAFailureIsBroughtUpToDateWhileWritesGoOn(final String provider) throws Exception
    {
        final Raas clientRaas = startAndFill(provider);
        final KvClient client = KvClient.connect(clientRaas, clientContext());
        open.add(client);
        final int down = takeBackDown();
        for (int k = 0; k < KEYS; k++)
        {
            if (k % 3 == 0)
            {
                client.put(key(k), value(k, 1));
            }
            else if (k % 3 == 1)
            {
                assertTrue(client.delete(key(k)), "key " + k + " deleted while node " + BACK + " is down");
            }
        }
        for (int k = KEYS; k < KEYS + 20; k++)
        {
            client.put(key(k), value(k, 1));
        }

        // back with its disk: every key as it was when it went down, none of the changes since
        startNode(provider, down);
        directory.membership(membership(3, Membership.JOINING));
        final KvClient refiller = KvClient.connect(raases[down], clientContext());
        open.add(refiller);
        final AtomicBoolean writing = new AtomicBoolean(true);
        final AtomicLong rounds = new AtomicLong();
        final AtomicReference<Throwable> writerFailed = new AtomicReference<>();
        final Thread writer = Thread.ofPlatform().start(() ->
        {
            try
            {
                while (writing.get())
                {
                    final long round = 2 + rounds.getAndIncrement();
                    for (int k = 0; k < KEYS; k += 3)
                    {
                        client.put(key(k), value(k, round));
                    }
                }
            }
            catch (final Throwable ex)
            {
                writerFailed.set(ex);
            }
        });
        RefillReport report = null;
        long refilled = 0;
        try
        {
            // as the node does: a key a writer keeps in flight all the while one pass looks at it is left for the next
            for (int pass = 0; pass < 10 && (report == null || !report.complete()); pass++)
            {
                report = refiller.refill(BACK);
                refilled += report.refilled();
            }
        }
        finally
        {
            writing.set(false);
            writer.join();
        }
        assertNull(writerFailed.get(), () -> "the writer failed: " + writerFailed.get());
        assertTrue(report.complete(), report.toString());
        assertTrue(refilled > 0, "keys changed while it was down were refilled: " + report);

        final Map<String, String> back = committedValues(down);
        for (int k = 0; k < KEYS + 20; k++)
        {
            final long[] replicas = client.replicasOf(key(k));
            final boolean onBack = replicas[0] == BACK || replicas[1] == BACK;
            final String held = back.get("key-" + k);
            if (!onBack)
            {
                continue;
            }
            final long other = replicas[0] == BACK ? replicas[1] : replicas[0];
            assertEquals(committedValues((int)other - 1).get("key-" + k), held,
                "key " + k + ": node " + BACK + "'s copy is its other replica's, write id and all");
            if (k < KEYS && k % 3 == 1)
            {
                assertNull(held, "key " + k + " was deleted while node " + BACK + " was down");
            }
        }

        directory.membership(membership(4, Membership.LIVE));
        final long last = rounds.get() + 1;
        for (int k = 0; k < KEYS + 20; k++)
        {
            final byte[] expected = k >= KEYS ? value(k, 1) : k % 3 == 0 ? value(k, last) : k % 3 == 1 ? null :
                value(k, 0);
            assertArrayEquals(expected, client.get(key(k)), "key " + k + " once node " + BACK + " is live again");
        }
    }

    /**
     * A node back with its disk has most of its keys in place: the refill's first pass finds those from whole reads of
     * the indexes and heaps (client/README.md, "Refill from whole reads"), and only those. A key overwritten or deleted
     * while the node was down holds another write at its serving replica, and is refilled; one added meanwhile is not
     * on the joiner for the sweep to judge. A sweep that took a key as in place without comparing its write ids counts
     * the changed keys as swept and leaves their old copies on the joiner, and fails this.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void theKeysANodeBackWithItsDiskHoldsUnchangedAreFoundInPlaceFromWholeReads(final String provider)
    {
        final Raas clientRaas = startAndFill(provider);
        final KvClient client = KvClient.connect(clientRaas, clientContext());
        open.add(client);
        final int down = takeBackDown();
        int unchanged = 0;
        int changed = 0;
        for (int k = 0; k < KEYS + 20; k++)
        {
            final long[] replicas = client.replicasOf(key(k));
            final boolean onBack = replicas[0] == BACK || replicas[1] == BACK;
            if (k >= KEYS || k % 3 == 0)
            {
                client.put(key(k), value(k, 1));
                changed += onBack ? 1 : 0;
            }
            else if (k % 3 == 1)
            {
                assertTrue(client.delete(key(k)), "key " + k + " deleted while node " + BACK + " is down");
                changed += onBack ? 1 : 0;
            }
            else
            {
                unchanged += onBack ? 1 : 0;
            }
        }

        startNode(provider, down);
        directory.membership(membership(3, Membership.JOINING));
        final KvClient refiller = KvClient.connect(raases[down], clientContext());
        open.add(refiller);
        final RefillReport report = refiller.refill(BACK);
        assertTrue(report.complete(), report.toString());
        assertTrue(unchanged > 10 && changed > 10, "keys on node " + BACK + ": " + unchanged + " unchanged, " +
            changed + " changed");
        assertEquals(unchanged, report.swept(), "every unchanged key found in place from whole reads, and only " +
            "those: " + report);
        assertEquals(unchanged, report.inPlace(), report.toString());
        assertEquals(changed, report.refilled(), "every key changed, deleted or added meanwhile refilled: " + report);

        final Map<String, String> back = committedValues(down);
        for (int k = 0; k < KEYS + 20; k++)
        {
            final long[] replicas = client.replicasOf(key(k));
            if (replicas[0] == BACK || replicas[1] == BACK)
            {
                final long other = replicas[0] == BACK ? replicas[1] : replicas[0];
                assertEquals(committedValues((int)other - 1).get("key-" + k), back.get("key-" + k),
                    "key " + k + ": node " + BACK + "'s copy is its other replica's");
            }
        }
        final RefillReport again = refiller.refill(BACK);
        assertEquals(unchanged + changed - deletedOnBack(client), again.swept(),
            "a second refill finds every copy in place from whole reads: " + again);
        assertEquals(0, again.refilled(), again.toString());
    }

    /** @return keys deleted while node {@link #BACK} was down whose replicas include it: none left to sweep. */
    private static int deletedOnBack(final KvClient client)
    {
        int deleted = 0;
        for (int k = 1; k < KEYS; k += 3)
        {
            final long[] replicas = client.replicasOf(key(k));
            deleted += replicas[0] == BACK || replicas[1] == BACK ? 1 : 0;
        }
        return deleted;
    }

    /**
     * A refill makes its first pass during its wait for the writes that skip the joiner, and a second after it that
     * reads again only what changed ({@code KvClient.refill}): a writer that does not know of the joiner yet (its
     * membership still says the node is down, and it reads it again only after an hour) overwrites, deletes and adds
     * keys between the two passes, on the serving replicas alone, and the joiner ends with every change. A second pass
     * without its look at the first pass's groups (a deleted key's serving word gone, its copy on the joiner skipped
     * as in place) leaves the deleted keys on the joiner, and fails this.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void whatAWriterUnawareOfTheJoinerDoesBetweenThePassesReachesIt(final String provider)
    {
        final Raas clientRaas = startAndFill(provider);
        final KvClient client = KvClient.connect(clientRaas, clientContext());
        open.add(client);
        final int down = takeBackDown();
        // its own driver, over a directory that reads the membership of epoch 2 whatever the cluster's is now
        final Raas unawareRaas = RaasDriver.start(KvCluster.context(provider, 101), new MembershipOf(directory,
            () -> membership(2, Membership.DOWN)));
        open.add(unawareRaas);
        final KvClient unaware = KvClient.connect(unawareRaas, clientContext().membershipLeaseMs(100));
        open.add(unaware);

        startNode(provider, down);
        directory.membership(membership(3, Membership.JOINING));
        final KvClient refiller = KvClient.connect(raases[down], clientContext());
        open.add(refiller);
        final RefillReport report = refiller.refill(BACK, 0, () ->
        {
            for (int k = 0; k < KEYS; k++)
            {
                if (k % 3 == 0)
                {
                    unaware.put(key(k), value(k, 1));
                }
                else if (k % 3 == 1)
                {
                    assertTrue(unaware.delete(key(k)), "key " + k + " deleted between the passes");
                }
            }
            for (int k = KEYS; k < KEYS + 20; k++)
            {
                unaware.put(key(k), value(k, 1));
            }
        });
        assertTrue(report.complete(), report.toString());

        final Map<String, String> back = committedValues(down);
        int onBack = 0;
        for (int k = 0; k < KEYS + 20; k++)
        {
            final long[] replicas = client.replicasOf(key(k));
            if (replicas[0] != BACK && replicas[1] != BACK)
            {
                continue;
            }
            onBack++;
            final long other = replicas[0] == BACK ? replicas[1] : replicas[0];
            assertEquals(committedValues((int)other - 1).get("key-" + k), back.get("key-" + k),
                "key " + k + ": node " + BACK + "'s copy is its other replica's after the second pass");
        }
        assertTrue(onBack > KEYS / 3, "keys placed on node " + BACK + ": " + onBack);

        directory.membership(membership(4, Membership.LIVE));
        for (int k = 0; k < KEYS + 20; k++)
        {
            final byte[] expected = k >= KEYS || k % 3 == 0 ? value(k, 1) : k % 3 == 1 ? null : value(k, 0);
            assertArrayEquals(expected, client.get(key(k)), "key " + k + " once node " + BACK + " is live again");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void onlyAJoiningNodeIsRefilled(final String provider)
    {
        directory.membership(membership(1, Membership.LIVE));
        for (int i = 0; i < IDS.length; i++)
        {
            startNode(provider, i);
        }
        final KvClient client = KvClient.connect(raases[0], clientContext());
        open.add(client);
        final KvException live = assertThrows(KvException.class, () -> client.refill(BACK));
        assertTrue(live.getMessage().contains("memory node 2 (live"), live.getMessage());
        final KvException stranger = assertThrows(KvException.class, () -> client.refill(9));
        assertTrue(stranger.getMessage().contains("memory node 9 is none of"), stranger.getMessage());
    }

    /** Start every node, the membership all live, and put {@link #KEYS} keys. @return the writer's driver. */
    private Raas startAndFill(final String provider)
    {
        directory.membership(membership(1, Membership.LIVE));
        for (int i = 0; i < IDS.length; i++)
        {
            startNode(provider, i);
        }
        final Raas clientRaas = RaasDriver.start(KvCluster.context(provider, 100), directory);
        open.add(clientRaas);
        try (KvClient filler = KvClient.connect(clientRaas, clientContext()))
        {
            for (int k = 0; k < KEYS; k++)
            {
                filler.put(key(k), value(k, 0));
            }
        }
        return clientRaas;
    }

    /** Stop node {@link #BACK} and declare it down. @return its index. */
    private int takeBackDown()
    {
        final int down = (int)BACK - 1;
        nodes[down].close();
        nodes[down] = null;
        raases[down].close();
        raases[down] = null;
        directory.membership(membership(2, Membership.DOWN));
        return down;
    }

    private void startNode(final String provider, final int i)
    {
        raases[i] = RaasDriver.start(KvCluster.context(provider, IDS[i]).role(NodeRecord.ROLE_MEMORY), directory);
        nodes[i] = MemoryNode.start(raases[i], new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20)
            .heapChunks(16).dataDir(dir.resolve("node-" + IDS[i])));
    }

    private Map<String, String> committedValues(final int i)
    {
        return IndexInspector.committedValues(raases[i].localMemory(nodes[i].indexRegion()),
            raases[i].localMemory(nodes[i].heapRegion()));
    }

    private static KvClientContext clientContext()
    {
        return new KvClientContext().memoryNodes(IDS).durability(Durability.SYNC).timeoutMs(4_000)
            .unavailableRetryMs(0).membershipRefreshMs(50);
    }

    private static Membership membership(final long epoch, final int stateOfBack)
    {
        return new Membership(epoch, 2, IDS, new int[]{Membership.LIVE, stateOfBack, Membership.LIVE});
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
