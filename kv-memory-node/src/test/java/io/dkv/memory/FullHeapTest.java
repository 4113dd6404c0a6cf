package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.MemoryFullException;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Full is not a dead end: once a node has no room outside the reserve it keeps for deletes, a write is refused with a
 * {@link MemoryFullException} naming the node and its figures, while every read still answers and every delete (one
 * key, a transaction of several, an expiry, a flush) still succeeds, its tombstones and intents taking the reserve.
 * The values deleted come back and writes succeed again.
 */
class FullHeapTest
{
    private static final int CHUNK = 64 * 1024;
    private static final int VALUE = 1_000;

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(120)
    void aFullNodeRefusesWritesButServesReadsDeletesExpiriesAndFlushes(@TempDir final Path data) throws Exception
    {
        // 1 MiB of heap, 1/8 of it kept for deletes; tombstones wherever a delete is (durability sync)
        try (KvCluster cluster = new KvCluster("shm", 1, context -> context.chunkBytes(CHUNK).heapChunks(16)
            .reserveShare(128).graceMs(300).dataDir(data));
            KvClient client = KvClient.connect(cluster.clientRaas, new KvClientContext()
                .memoryNodes(KvCluster.MEMORY_NODE_ID).durability(Durability.SYNC).timeoutMs(150)))
        {
            final byte[] value = new byte[VALUE];
            final List<byte[]> written = new ArrayList<>();
            MemoryFullException full = null;
            for (int i = 0; full == null; i++)
            {
                final byte[] key = bytes("key-" + i);
                value[0] = (byte)i;
                try
                {
                    client.put(key, value);
                    written.add(key);
                }
                catch (final MemoryFullException ex)
                {
                    full = ex;
                }
                assertTrue(i < 2_000, "a heap of 1 MiB takes no more than 1,000 values of 1 KB");
            }
            assertTrue(written.size() > 500, written.size() + " values before the node was full");
            assertEquals(KvCluster.MEMORY_NODE_ID, full.nodeId());
            assertEquals(128 * 1024, full.reserve());
            assertTrue(full.getMessage().contains("memory node 1 is full") &&
                full.getMessage().contains("kept for deletes"), full.getMessage());
            assertThrows(MemoryFullException.class, () -> client.put(bytes("one-more"), value),
                "a write is refused again");

            for (int i = 0; i < written.size(); i++)
            {
                final byte[] read = client.get(written.get(i));
                assertEquals(VALUE, read.length, "every value reads at full");
                assertEquals((byte)i, read[0]);
            }

            assertTrue(client.expireAt(written.get(0), System.currentTimeMillis() + 3_600_000L),
                "an expiry is set at full");
            final boolean both = client.transact(tx -> tx.delete(written.get(1)) & tx.delete(written.get(2)));
            assertTrue(both, "a transaction of deletes commits at full");
            for (int i = 3; i < written.size() / 2; i++)
            {
                assertTrue(client.delete(written.get(i)), "delete " + i + " at full");
            }
            assertEquals(written.size() - written.size() / 2 + 1, client.flush(), "a flush deletes the rest");
            for (final byte[] key : written)
            {
                assertNull(client.get(key));
            }

            // the values' chunks come back once no slot names them and the grace is over
            final byte[] again = bytes("after-the-flush");
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (true)
            {
                try
                {
                    client.put(again, value);
                    break;
                }
                catch (final MemoryFullException ex)
                {
                    assertTrue(System.nanoTime() < deadline, "no room came back within 60 s: " + ex.getMessage());
                    Thread.sleep(50);
                }
            }
            assertArrayEquals(value, client.get(again));
        }
    }

    @Test
    @Timeout(120)
    void aReplicatedWriteWithNoRoomIsRefusedAtOnceNotWaitedOutAsAFailingReplica()
    {
        final long[] ids = {1, 2};
        final StaticDirectory directory = new StaticDirectory();
        directory.membership(new Membership(1, 2, ids, new int[]{Membership.LIVE, Membership.LIVE}));
        final List<Raas> raases = new ArrayList<>();
        final List<MemoryNode> nodes = new ArrayList<>();
        try
        {
            for (final long id : ids)
            {
                final Raas raas =
                    RaasDriver.start(KvCluster.context("shm", id).role(NodeRecord.ROLE_MEMORY), directory);
                raases.add(raas);
                nodes.add(MemoryNode.start(raas,
                    new MemoryNodeContext().indexGroups(256).chunkBytes(CHUNK).heapChunks(16)));
            }
            final Raas clientRaas = RaasDriver.start(KvCluster.context("shm", 100), directory);
            raases.add(clientRaas);
            // a failover wait of a minute: a refusal taken for a replica failing would ask for chunks all along
            try (KvClient client = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(ids)
                .failoverWaitMs(60_000)))
            {
                assertEquals(2, client.replicas());
                final byte[] value = new byte[VALUE];
                MemoryFullException full = null;
                for (int i = 0; full == null; i++)
                {
                    assertTrue(i < 2_000, "a heap of 1 MiB takes no more than 1,000 values of 1 KB");
                    try
                    {
                        client.put(bytes("key-" + i), value);
                    }
                    catch (final MemoryFullException ex)
                    {
                        full = ex;
                    }
                }
                final long refusedBefore = refused(nodes);
                assertThrows(MemoryFullException.class, () -> client.put(bytes("one-more"), value));
                final long refused = refused(nodes) - refusedBefore;
                // (none where the node's last refusal is still taken as standing)
                assertTrue(refused <= 2, refused + " chunks refused for one write: once a node at most");
            }
        }
        finally
        {
            CloseHelper.closeAll(nodes);
            CloseHelper.closeAll(raases);
        }
    }

    private static long refused(final List<MemoryNode> nodes)
    {
        long refused = 0;
        for (final MemoryNode node : nodes)
        {
            refused += node.counters().get(MemoryNodeCounter.HEAP_FULL).get();
        }
        return refused;
    }
}
