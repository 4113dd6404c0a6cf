package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.RefillReport;
import io.dkv.format.KvBlockLayout;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A refill that meets a write not answered yet (its block pending: a writer under durability sync died before it told
 * the key's head) settles it on every replica's disk before the joiner has a copy, as a reader would; and the
 * joiner's copies are fsynced before it is read. Copied as it was, the joiner's copy was the only one a later loss of
 * the serving replica could not undo (RecoveryModelTest's REFILL_COPIES_PENDING).
 */
class PendingRefillTest
{
    private static final long[] IDS = {1, 2};
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
            if (nodes[i] != null)
            {
                nodes[i].close();
                raases[i].close();
            }
        }
    }

    @Test
    void aPendingWriteIsSettledOnEveryReplicaBeforeTheJoinerIsGivenACopy(@TempDir final Path data)
        throws InterruptedException
    {
        directory.membership(membership(1, Membership.LIVE, Membership.LIVE, 0));
        for (int i = 0; i < IDS.length; i++)
        {
            raases[i] = RaasDriver.start(KvCluster.context("shm", IDS[i]).role(NodeRecord.ROLE_MEMORY), directory);
            nodes[i] = MemoryNode.start(raases[i], new MemoryNodeContext().indexGroups(256)
                .dataDir(data.resolve("node-" + IDS[i])).fsyncIntervalMs(3_600_000));
        }
        final Raas clientRaas = RaasDriver.start(KvCluster.context("shm", 100), directory);
        open.add(clientRaas);
        final KvClient synced = KvClient.connect(clientRaas, clientContext(Durability.SYNC));
        open.add(synced);
        synced.put(bytes("k"), bytes("on both disks"));

        // node 1 down; a writer under sync publishes on node 2 and dies before telling it: its block stays pending
        // and node 2's disk has the older value (this writer tells nobody; its block made pending as that one's was)
        directory.membership(membership(2, Membership.DOWN, Membership.LIVE, 2));
        Thread.sleep(4 * REFRESH_MS);
        final Raas writerRaas = RaasDriver.start(KvCluster.context("shm", 101), directory);
        open.add(writerRaas);
        final KvClient unannounced = KvClient.connect(writerRaas, clientContext(Durability.NONE));
        open.add(unannounced);
        unannounced.put(bytes("k"), bytes("published, not answered"));
        final long pending = IndexInspector.committedBlock(index(1), heap(1), "k");
        heap(1).set(ValueLayout.JAVA_BYTE, pending + KvBlockLayout.STATE_OFFSET, KvBlockLayout.PENDING);
        final long persistedBefore = nodes[1].persistStats().keysPersisted();

        directory.membership(membership(3, Membership.JOINING, Membership.LIVE, 2));
        final KvClient refiller = KvClient.connect(raases[0], clientContext(Durability.ASYNC));
        open.add(refiller);
        final RefillReport report = refiller.refill(IDS[0]);
        assertTrue(report.complete(), report.toString());

        assertTrue(nodes[1].persistStats().keysPersisted() > persistedBefore, "node 2 was told to write it to disk");
        assertFalse(KvBlockLayout.isPending(heap(1), pending), "and settled it before the copy was made");
        final long copy = IndexInspector.committedBlock(index(0), heap(0), "k");
        assertEquals(IndexInspector.committedValues(index(1), heap(1)).get("k"),
            IndexInspector.committedValues(index(0), heap(0)).get("k"), "the joiner holds the pending write's copy");
        assertFalse(KvBlockLayout.isPending(heap(0), copy), "the joiner's copy is settled");
        assertEquals(0, nodes[0].persistStats().unsyncedSinceNanos(),
            "and on the joiner's disk, fsynced although the interval is an hour");
    }

    private MemorySegment index(final int i)
    {
        return raases[i].localMemory(nodes[i].indexRegion());
    }

    private MemorySegment heap(final int i)
    {
        return raases[i].localMemory(nodes[i].heapRegion());
    }

    private static KvClientContext clientContext(final Durability durability)
    {
        return new KvClientContext().memoryNodes(IDS).timeoutMs(1_000).unavailableRetryMs(0)
            .membershipRefreshMs(REFRESH_MS).durability(durability);
    }

    private static Membership membership(final long epoch, final int stateOne, final int stateTwo, final long leftOne)
    {
        return new Membership(epoch, 2, IDS, new int[]{stateOne, stateTwo}, new long[2],
            new int[]{Membership.PLACED, Membership.PLACED}, Membership.STEADY, new long[]{leftOne, 0});
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
