package io.dkv.memory;

import io.dkv.format.IndexLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a memory node's index in its own memory, for tests that check what clients left in it.
 */
final class IndexInspector
{
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Receives a slot's offset and its word. */
    @FunctionalInterface
    interface SlotVisitor
    {
        void visit(long slot, long word);
    }

    private IndexInspector()
    {
    }

    /** Visit every slot (empty ones too) of every subtable in use. */
    static void forEachSlot(final MemorySegment index, final SlotVisitor visitor)
    {
        final int groups = index.get(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET);
        final int subtables = index.get(INT, IndexLayout.SUBTABLES_OFFSET);
        final long start = IndexLayout.subtablesOffset(index.get(INT, IndexLayout.MAX_GLOBAL_DEPTH_OFFSET));
        final long buckets = (long)groups * 3 * subtables;
        for (long bucket = 0; bucket < buckets; bucket++)
        {
            for (int i = 0; i < IndexLayout.SLOTS_PER_BUCKET; i++)
            {
                final long slot = start + bucket * IndexLayout.BUCKET_LENGTH + IndexLayout.BUCKET_HEADER_LENGTH +
                    (long)i * IndexLayout.SLOT_LENGTH;
                visitor.visit(slot, index.get(LONG, slot));
            }
        }
    }

    static long firstEmptySlot(final MemorySegment index)
    {
        final long[] found = {-1};
        forEachSlot(index, (slot, word) ->
        {
            if (found[0] < 0 && word == SlotWord.EMPTY)
            {
                found[0] = slot;
            }
        });
        return found[0];
    }

    /** @return how many committed slots hold each key, the key read from the block its slot points at. */
    static Map<String, Integer> committedSlotsByKey(final MemorySegment index, final MemorySegment heap)
    {
        final Map<String, Integer> counts = new HashMap<>();
        forEachSlot(index, (slot, word) ->
        {
            if (SlotWord.isCommitted(word))
            {
                final long block = SlotWord.blockOffset(word);
                final byte[] key =
                    heap.asSlice(block + KvBlockLayout.HEADER_LENGTH, KvBlockLayout.keyLength(heap, block))
                    .toArray(ValueLayout.JAVA_BYTE);
                counts.merge(new String(key, StandardCharsets.UTF_8), 1, Integer::sum);
            }
        });
        return counts;
    }

    /** @return the heap offset of the block the key's committed slot names, or -1 when it has none. */
    static long committedBlock(final MemorySegment index, final MemorySegment heap, final String key)
    {
        final long[] slot = committedSlot(index, heap, key);
        return slot[0] < 0 ? -1 : SlotWord.blockOffset(slot[1]);
    }

    /** @return the offset and word of the key's committed slot; an offset of -1 when it has none. */
    static long[] committedSlot(final MemorySegment index, final MemorySegment heap, final String key)
    {
        final long[] found = {-1, SlotWord.EMPTY};
        forEachSlot(index, (slot, word) ->
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
        return found;
    }

    /** @return each key's value and write id, "value@writeId", as its committed slots' blocks hold them. */
    static Map<String, String> committedValues(final MemorySegment index, final MemorySegment heap)
    {
        final Map<String, String> values = new HashMap<>();
        forEachSlot(index, (slot, word) ->
        {
            // a tombstone is a committed miss: no value (where versions are kept it stays until D reaches its epoch,
            // where an emptied slot says the same)
            if (SlotWord.isCommitted(word) &&
                KvBlockLayout.expireAt(heap, SlotWord.blockOffset(word)) != KvBlockLayout.TOMBSTONE)
            {
                final long block = SlotWord.blockOffset(word);
                final String key = new String(heap.asSlice(block + KvBlockLayout.HEADER_LENGTH,
                    KvBlockLayout.keyLength(heap, block)).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                final String value = new String(KvBlockLayout.value(heap, block), StandardCharsets.UTF_8);
                values.put(key, value + "@" + Long.toHexString(KvBlockLayout.writeId(heap, block)));
            }
        });
        return values;
    }

    /** @return the slots a writer made tentative and has not committed or emptied since. */
    static int tentativeSlots(final MemorySegment index)
    {
        final int[] count = new int[1];
        forEachSlot(index, (slot, word) ->
        {
            if (!SlotWord.isEmpty(word) && !SlotWord.isCommitted(word))
            {
                count[0]++;
            }
        });
        return count[0];
    }

    static int subtables(final MemorySegment index)
    {
        return index.get(INT, IndexLayout.SUBTABLES_OFFSET);
    }
}
