package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.Versioned;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

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

    /** @return the slot offset and word of the key's committed slot. */
    private static long[] slotOf(final MemorySegment index, final MemorySegment heap, final String key)
    {
        final long[] found = {-1, 0};
        IndexInspector.forEachSlot(index, (slot, word) ->
        {
            if (SlotWord.isCommitted(word))
            {
                final long block = SlotWord.blockOffset(word);
                final String held = new String(heap.asSlice(block + KvBlockLayout.HEADER_LENGTH,
                    KvBlockLayout.keyLength(heap, block)).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                if (held.equals(key))
                {
                    found[0] = slot;
                    found[1] = word;
                }
            }
        });
        assertTrue(found[0] >= 0, "no committed slot of " + key);
        return found;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
