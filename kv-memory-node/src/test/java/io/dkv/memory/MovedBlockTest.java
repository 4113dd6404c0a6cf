package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.Versioned;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A block moved to another offset with its bytes whole, its slot swapped to name the copy (what the cleaner will do,
 * kv-memory-node/README.md, "The cleaner"), is the same version of its key: it reads the same, and a compare-and-set
 * by the version read before the move takes effect, compared by write id, not by slot word.
 */
@Timeout(60)
class MovedBlockTest
{
    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle SLOT_ATOMIC = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    /** Moves at most, so that no copy is ever written where an earlier one was. */
    private static final int MOVES = 8_000;

    @Test
    void aMovedBlockIsTheVersionItWasAndACompareAndSetByThatVersionTakesEffect() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm");
            KvClient client = KvClient.connect(cluster.clientRaas,
                new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID)))
        {
            client.put(bytes("key-a"), bytes("v1"));
            final Versioned before = client.getVersioned(bytes("key-a"));
            // a block of the same length elsewhere in the heap: the copy goes over it, its key emptied first
            client.put(bytes("key-b"), bytes("xx"));
            final MemorySegment index = cluster.index();
            final MemorySegment heap = cluster.heap();
            final long[] slotA = slotOf(index, heap, "key-a");
            final long[] slotB = slotOf(index, heap, "key-b");
            final long from = SlotWord.blockOffset(slotA[1]);
            final long to = SlotWord.blockOffset(slotB[1]);
            final int length = KvBlockLayout.blockLength(5, 2);

            index.set(SLOT, slotB[0], SlotWord.EMPTY);
            MemorySegment.copy(heap, from, heap, to, length);
            final long moved = SlotWord.committed(KeyHash.fingerprint(KeyHash.hash(bytes("key-a"))), to, length,
                SlotWord.expires(slotA[1]), SlotWord.generation(slotB[1]));
            index.set(SLOT, slotA[0], moved);

            assertArrayEquals(bytes("v1"), client.get(bytes("key-a")), "the copy reads as the block did");
            assertTrue(client.compareAndSetVersion(bytes("key-a"), before, bytes("v2")),
                "the version read before the move is the key's still: its write id is the copy's");
            assertArrayEquals(bytes("v2"), client.get(bytes("key-a")));
            assertTrue(!client.compareAndSetVersion(bytes("key-a"), before, bytes("v3")), "a version replaced");
            assertEquals(KvBlockLayout.writeId(heap, to), before.writeId);
        }
    }

    @Test
    void aChainedWriteGoesOnOverAReplicaWhoseBlockMoved() throws Exception
    {
        // two copies: a write wins the tail, then swaps the head from the word it read first; a move of the head's
        // block in between leaves the head at the same write under another word, which the write goes over
        final StaticDirectory directory = new StaticDirectory();
        directory.membership(new Membership(1, 2, new long[] {1, 2}, new int[] {Membership.LIVE, Membership.LIVE}));
        final List<AutoCloseable> open = new ArrayList<>();
        try
        {
            final List<Raas> raases = new ArrayList<>();
            final List<MemoryNode> nodes = new ArrayList<>();
            for (final long id : new long[] {1, 2})
            {
                final Raas raas = RaasDriver.start(KvCluster.context("shm", id).role(NodeRecord.ROLE_MEMORY),
                    directory);
                raases.add(raas);
                open.add(raas);
                nodes.add(MemoryNode.start(raas,
                    new MemoryNodeContext().indexGroups(64).chunkBytes(4 << 20).heapChunks(8)));
                open.add(nodes.getLast());
            }
            final Raas clientRaas = RaasDriver.start(KvCluster.context("shm", 100), directory);
            open.add(clientRaas);
            final KvClient client = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(1, 2));
            open.add(client);
            // each copy's scratch: a value's block the test writes its moved copies into, 128 bytes apart, never again
            client.put(bytes("scratch"), new byte[MOVES * 128 + 1024]);
            client.put(bytes("key"), bytes("v00000"));
            final Mover[] movers = new Mover[2];
            for (int n = 0; n < 2; n++)
            {
                movers[n] = new Mover(raases.get(n).localMemory(nodes.get(n).indexRegion()),
                    raases.get(n).localMemory(nodes.get(n).heapRegion()));
            }
            final AtomicBoolean writing = new AtomicBoolean(true);
            final Thread moving = new Thread(() ->
            {
                while (writing.get() && movers[0].moves + movers[1].moves < MOVES)
                {
                    movers[0].moveIfNew();
                    movers[1].moveIfNew();
                }
            }, "mover");
            moving.start();
            try
            {
                for (int i = 1; i <= 2_000; i++)
                {
                    final int moved = movers[0].moves + movers[1].moves;
                    client.put(bytes("key"), bytes(String.format("v%05d", i)));
                    if (i % 10 == 0)
                    {
                        // now and then the next write waits for a move of this one, so that moves happen however busy
                        // the host (the mover may have made it already)
                        while (movers[0].moves + movers[1].moves == moved && moving.isAlive())
                        {
                            Thread.onSpinWait();
                        }
                    }
                }
            }
            finally
            {
                writing.set(false);
                moving.join();
            }
            assertArrayEquals(bytes("v02000"), client.get(bytes("key")));
            assertTrue(movers[0].moves + movers[1].moves >= 200, "blocks moved: " + movers[0].moves + " and " +
                movers[1].moves);
        }
        finally
        {
            for (int i = open.size() - 1; i >= 0; i--)
            {
                open.get(i).close();
            }
        }
    }

    /** Moves each new block of "key" on one node into its scratch, as the cleaner will: copy whole, then CAS. */
    private static final class Mover
    {
        private final MemorySegment index;
        private final MemorySegment heap;
        private final long slot;
        private final long scratchWord;
        private long nextCopy;
        private long lastMoved;
        private volatile int moves;

        Mover(final MemorySegment index, final MemorySegment heap)
        {
            this.index = index;
            this.heap = heap;
            this.slot = slotOf(index, heap, "key")[0];
            this.scratchWord = slotOf(index, heap, "scratch")[1];
            this.nextCopy = (SlotWord.blockOffset(scratchWord) + KvBlockLayout.HEADER_LENGTH + 64 + 63) & ~63L;
        }

        void moveIfNew()
        {
            final long word = (long)SLOT_ATOMIC.getVolatile(index, slot);
            if (!SlotWord.isCommitted(word) || SlotWord.isSealed(word) || word == lastMoved ||
                KvBlockLayout.isPending(heap, SlotWord.blockOffset(word)))
            {
                return;
            }
            final int length = KvBlockLayout.blockLength(3, 6);
            MemorySegment.copy(heap, SlotWord.blockOffset(word), heap, nextCopy, length);
            final long moved = SlotWord.committed(SlotWord.fingerprint(word), nextCopy, length,
                SlotWord.expires(word), SlotWord.generation(scratchWord));
            nextCopy += 128;
            if (SLOT_ATOMIC.compareAndSet(index, slot, word, moved))
            {
                lastMoved = moved;
                moves = moves + 1;
            }
        }
    }

    /** @return the slot offset and word of the key's committed slot. */
    private static long[] slotOf(final MemorySegment index, final MemorySegment heap, final String key)
    {
        final long[] found = IndexInspector.committedSlot(index, heap, key);
        assertTrue(found[0] >= 0, "no committed slot of " + key);
        return found;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
