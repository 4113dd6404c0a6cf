package io.dkv.memory;

import io.dkv.client.layout.IndexLayout;
import io.dkv.client.layout.KeyHash;
import io.dkv.client.layout.KvBlockLayout;
import io.dkv.client.layout.SlotWord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The index and the heap as the memory node itself reaches them, in its own memory: to find what
 * a key holds now (for the key store) and to put keys back after a restart. Clients keep working
 * on the same memory meanwhile: slot words are read whole, and a block a committed slot points at
 * is never rewritten.
 */
final class LocalIndex
{
    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Slots are 8-byte aligned: swapped with the same atomic instruction the RDMA CAS uses on this memory. */
    private static final VarHandle SLOT_ATOMIC = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    /** Receives a slot's offset in the index region and its word. */
    @FunctionalInterface
    interface SlotVisitor
    {
        void visit(long slot, long word);
    }

    private final MemorySegment index;
    private final MemorySegment heap;
    private final int groups;
    private final long subtableOffset;

    LocalIndex(final MemorySegment index, final MemorySegment heap, final int groups, final long subtableOffset)
    {
        this.index = index;
        this.heap = heap;
        this.groups = groups;
        this.subtableOffset = subtableOffset;
    }

    /** @return the key of the whole block at {@code blockOffset}, or null when there is none there. */
    byte[] keyAt(final long blockOffset)
    {
        if (blockOffset < 64 || (blockOffset & 63) != 0 || blockOffset >= heap.byteSize() ||
            !KvBlockLayout.isWhole(heap, blockOffset, (int)Math.min(Integer.MAX_VALUE, heap.byteSize() - blockOffset)))
        {
            return null;
        }
        final int keyLength = KvBlockLayout.keyLength(heap, blockOffset);
        return heap.asSlice(blockOffset + KvBlockLayout.HEADER_LENGTH, keyLength).toArray(ValueLayout.JAVA_BYTE);
    }

    /** @return the heap offset of the block the key's committed slot points at, or -1 when it has no value. */
    long findCommitted(final byte[] key)
    {
        final long hash = KeyHash.hash(key);
        final int fingerprint = KeyHash.fingerprint(hash);
        for (int candidate = 0; candidate < 2; candidate++)
        {
            final long bucket = candidateOffset(hash, candidate);
            for (int i = 0; i < IndexLayout.SLOTS_PER_COMBINED_BUCKET; i++)
            {
                final long word = index.get(SLOT, bucket + IndexLayout.slotOffsetInCombined(i));
                if (SlotWord.isCommitted(word) && SlotWord.fingerprint(word) == fingerprint)
                {
                    final long block = SlotWord.blockOffset(word);
                    if (KvBlockLayout.isWhole(heap, block, (int)Math.min(Integer.MAX_VALUE, heap.byteSize() - block)) &&
                        KvBlockLayout.hasKey(heap, block, key))
                    {
                        return block;
                    }
                }
            }
        }
        return -1;
    }

    /** @return the value of the whole block at {@code blockOffset}. */
    byte[] valueAt(final long blockOffset)
    {
        return KvBlockLayout.value(heap, blockOffset);
    }

    /**
     * Put a key back while no client runs yet: its block at {@code blockOffset} (written by the
     * caller) and a committed slot in the first empty candidate slot.
     *
     * @return false when both candidate buckets are full.
     */
    boolean restore(final byte[] key, final long blockOffset, final int blockLength)
    {
        final long hash = KeyHash.hash(key);
        final long word = SlotWord.committed(KeyHash.fingerprint(hash), blockOffset, blockLength);
        for (int candidate = 0; candidate < 2; candidate++)
        {
            final long bucket = candidateOffset(hash, candidate);
            for (int i = 0; i < IndexLayout.SLOTS_PER_COMBINED_BUCKET; i++)
            {
                final long slot = bucket + IndexLayout.slotOffsetInCombined(i);
                if (SlotWord.isEmpty(index.get(SLOT, slot)))
                {
                    index.set(SLOT, slot, word);
                    return true;
                }
            }
        }
        return false;
    }

    /** Visit every non-empty slot of the subtable. */
    void forEachSlot(final SlotVisitor visitor)
    {
        final long buckets = (long)groups * 3;
        for (long bucket = 0; bucket < buckets; bucket++)
        {
            final long first = subtableOffset + bucket * IndexLayout.BUCKET_LENGTH + IndexLayout.BUCKET_HEADER_LENGTH;
            for (int i = 0; i < IndexLayout.SLOTS_PER_BUCKET; i++)
            {
                final long slot = first + (long)i * IndexLayout.SLOT_LENGTH;
                final long word = index.get(SLOT, slot);
                if (!SlotWord.isEmpty(word))
                {
                    visitor.visit(slot, word);
                }
            }
        }
    }

    /** @return true when the slot held {@code word} and is empty now. */
    boolean clearSlot(final long slot, final long word)
    {
        return SLOT_ATOMIC.compareAndSet(index, slot, word, SlotWord.EMPTY);
    }

    MemorySegment heap()
    {
        return heap;
    }

    private long candidateOffset(final long hash, final int candidate)
    {
        return subtableOffset + IndexLayout.combinedBucketOffset(KeyHash.group(hash, candidate, groups), KeyHash.side(hash, candidate));
    }
}
