package io.dkv.memory;

import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;

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
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Slots are 8-byte aligned: swapped with the same atomic instruction the RDMA CAS uses on this memory. */
    private static final VarHandle SLOT_ATOMIC = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    /** Receives a slot's offset in the index region and its word. */
    @FunctionalInterface
    interface SlotVisitor
    {
        void visit(long slot, long word);
    }

    static final int SPLIT_DONE = 0;
    static final int SPLIT_FULL = 1;

    private final MemorySegment index;
    private final MemorySegment heap;
    private final int groups;
    private final int maxGlobalDepth;

    /**
     * @param index a formatted index (see {@link IndexLayout}); its directory and headers are this
     *              node's to change, its slots everyone's.
     */
    LocalIndex(final MemorySegment index, final MemorySegment heap, final int groups, final int maxGlobalDepth)
    {
        this.index = index;
        this.heap = heap;
        this.groups = groups;
        this.maxGlobalDepth = maxGlobalDepth;
    }

    private int globalDepth()
    {
        return index.get(INT, IndexLayout.GLOBAL_DEPTH_OFFSET);
    }

    private int subtables()
    {
        return index.get(INT, IndexLayout.SUBTABLES_OFFSET);
    }

    private long subtableAt(final int number)
    {
        return IndexLayout.subtablesOffset(maxGlobalDepth) + number * IndexLayout.subtableLength(groups);
    }

    private long directoryEntry(final long position)
    {
        return index.get(SLOT, IndexLayout.DIRECTORY_OFFSET + position * IndexLayout.DIRECTORY_ENTRY_LENGTH);
    }

    private void directoryEntry(final long position, final long entry)
    {
        index.set(SLOT, IndexLayout.DIRECTORY_OFFSET + position * IndexLayout.DIRECTORY_ENTRY_LENGTH, entry);
    }

    /** @return the offset of the subtable that holds keys of this hash. */
    long subtableFor(final long hash)
    {
        return IndexLayout.subtableOffset(directoryEntry(hash & ((1L << globalDepth()) - 1)));
    }

    /** @return the local depth of the subtable at {@code subtable}, or -1 when the directory does not point at it. */
    int localDepthOf(final long subtable)
    {
        final long entries = 1L << globalDepth();
        for (long j = 0; j < entries; j++)
        {
            final long entry = directoryEntry(j);
            if (IndexLayout.subtableOffset(entry) == subtable)
            {
                return IndexLayout.localDepth(entry);
            }
        }
        return -1;
    }

    /**
     * Split a subtable of local depth d in two of depth d + 1, while clients keep using the index:
     * lock its buckets (clients wait while they see the lock), move the slots of keys whose hash
     * has bit d set to the same places in a new subtable (by CAS, so a client's CAS on a slot either
     * comes before the move, which then moves what it wrote, or fails and the client reads again),
     * clear the tentative slots of those keys (their inserts start over), point the directory at
     * both halves (doubling it when d is the global depth), and unlock the buckets with their new
     * depth and suffix. Only the node's thread calls this.
     *
     * @param seenDepth the subtable's depth when the asker found its buckets full, or -1: when it
     *                  has split since, the asker reads the directory again instead.
     * @return SPLIT_DONE, or SPLIT_FULL when the subtable is at the largest depth or no subtable is left.
     */
    int split(final long subtable, final int seenDepth)
    {
        final int depth = localDepthOf(subtable);
        if (depth < 0 || (seenDepth >= 0 && depth != seenDepth))
        {
            return SPLIT_DONE;
        }
        final int count = subtables();
        if (depth >= maxGlobalDepth || count >= 1 << maxGlobalDepth)
        {
            return SPLIT_FULL;
        }
        final long sibling = subtableAt(count);
        index.set(INT, IndexLayout.SUBTABLES_OFFSET, count + 1);
        final long suffix = index.get(SLOT, subtable) & ((1L << depth) - 1);
        final long buckets = (long)groups * 3;
        for (long bucket = 0; bucket < buckets; bucket++)
        {
            index.set(SLOT, sibling + bucket * IndexLayout.BUCKET_LENGTH,
                IndexLayout.bucketHeader(depth + 1, suffix | (1L << depth)));
            final long header = subtable + bucket * IndexLayout.BUCKET_LENGTH;
            SLOT_ATOMIC.setVolatile(index, header, index.get(SLOT, header) | IndexLayout.BUCKET_LOCKED);
        }
        for (long bucket = 0; bucket < buckets; bucket++)
        {
            final long first = bucket * IndexLayout.BUCKET_LENGTH + IndexLayout.BUCKET_HEADER_LENGTH;
            for (int i = 0; i < IndexLayout.SLOTS_PER_BUCKET; i++)
            {
                final long relative = first + (long)i * IndexLayout.SLOT_LENGTH;
                moveIfItsKeyGoes(subtable + relative, sibling + relative, depth);
            }
        }
        publishSplit(subtable, sibling, depth);
        for (long bucket = 0; bucket < buckets; bucket++)
        {
            SLOT_ATOMIC.setVolatile(index, subtable + bucket * IndexLayout.BUCKET_LENGTH,
                IndexLayout.bucketHeader(depth + 1, suffix));
        }
        return SPLIT_DONE;
    }

    private void moveIfItsKeyGoes(final long from, final long to, final int depth)
    {
        while (true)
        {
            final long word = (long)SLOT_ATOMIC.getVolatile(index, from);
            if (SlotWord.isEmpty(word))
            {
                return;
            }
            final byte[] key = keyAt(SlotWord.blockOffset(word));
            if (key == null || ((KeyHash.hash(key) >>> depth) & 1) == 0)
            {
                return;
            }
            if (!SlotWord.isCommitted(word))
            {
                if (clearSlot(from, word))
                {
                    return;
                }
                continue;
            }
            SLOT_ATOMIC.setVolatile(index, to, word);
            if (SLOT_ATOMIC.compareAndSet(index, from, word, SlotWord.EMPTY))
            {
                return;
            }
            // a client swapped it meanwhile: move what it holds now
            SLOT_ATOMIC.setVolatile(index, to, SlotWord.EMPTY);
        }
    }

    /** Point the directory's entries of the split subtable at its two halves, under the directory's version. */
    private void publishSplit(final long subtable, final long sibling, final int depth)
    {
        final long version = index.get(SLOT, IndexLayout.DIRECTORY_VERSION_OFFSET);
        SLOT_ATOMIC.setVolatile(index, IndexLayout.DIRECTORY_VERSION_OFFSET, version + 1);
        int global = globalDepth();
        if (depth == global)
        {
            final long entries = 1L << global;
            for (long j = 0; j < entries; j++)
            {
                directoryEntry(j + entries, directoryEntry(j));
            }
            global++;
            index.set(INT, IndexLayout.GLOBAL_DEPTH_OFFSET, global);
        }
        final long entries = 1L << global;
        for (long j = 0; j < entries; j++)
        {
            if (IndexLayout.subtableOffset(directoryEntry(j)) == subtable)
            {
                directoryEntry(j, IndexLayout.directoryEntry(depth + 1, ((j >>> depth) & 1) == 0 ? subtable : sibling));
            }
        }
        SLOT_ATOMIC.setVolatile(index, IndexLayout.DIRECTORY_VERSION_OFFSET, version + 2);
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

    /** @return true when the whole block at {@code blockOffset} is of that write. */
    boolean holdsWrite(final long blockOffset, final long writeId)
    {
        return keyAt(blockOffset) != null && KvBlockLayout.writeId(heap, blockOffset) == writeId;
    }

    /**
     * Publish the node's disk state in the index header, where clients read it ({@link IndexLayout}: fsyncState,
     * lastFsyncAt, unsyncedSince): each field one aligned store, so a reader sees each whole.
     */
    void publishDiskState(final long lastFsyncEpochMs, final long unsyncedSinceEpochMs, final int lagP99Ms,
        final boolean lastFsyncOk)
    {
        index.set(INT, IndexLayout.FSYNC_STATE_OFFSET,
            (lastFsyncOk ? 0 : IndexLayout.FSYNC_FAILED) | Math.max(0, lagP99Ms));
        index.set(SLOT, IndexLayout.LAST_FSYNC_AT_OFFSET, lastFsyncEpochMs);
        index.set(SLOT, IndexLayout.UNSYNCED_SINCE_OFFSET, unsyncedSinceEpochMs);
    }

    /** Publish the node's durable epoch in the index header ({@link IndexLayout#DURABLE_EPOCH_OFFSET}). */
    void publishDurableEpoch(final long epoch)
    {
        index.set(SLOT, IndexLayout.DURABLE_EPOCH_OFFSET, epoch);
    }

    /** @return the cluster's durable epoch as a client last wrote it ({@code IndexLayout}'s clusterDurable). */
    long clusterDurableEpoch()
    {
        return (long)SLOT_ATOMIC.getVolatile(index, (long)IndexLayout.CLUSTER_DURABLE_EPOCH_OFFSET);
    }

    /**
     * Publish what this incarnation loaded from its disk ({@link IndexLayout#RESTORED_DURABLE_EPOCH_OFFSET}): the
     * durable epoch and the cluster's durable epoch it kept, from which a pool that lost every copy chooses its cut.
     */
    void publishRestored(final long durableEpoch, final long clusterDurableEpoch)
    {
        index.set(SLOT, IndexLayout.RESTORED_DURABLE_EPOCH_OFFSET, durableEpoch);
        index.set(SLOT, IndexLayout.RESTORED_CLUSTER_DURABLE_EPOCH_OFFSET, clusterDurableEpoch);
    }

    /** Publish the epoch the node's keys were rolled back to ({@link IndexLayout#ROLLED_BACK_TO_OFFSET}). */
    void publishRolledBackTo(final long epoch)
    {
        SLOT_ATOMIC.setVolatile(index, (long)IndexLayout.ROLLED_BACK_TO_OFFSET, epoch);
    }

    /** Mark the (whole) block at {@code blockOffset} settled: its key's state is on disk. */
    void settle(final long blockOffset)
    {
        KvBlockLayout.settle(heap, blockOffset);
    }

    /**
     * @param wholeBlock a block known whole and of this key (-1: none): a slot pointing at it is taken without
     *                   checking the block again (a block is never written over while a slot points at it), which
     *                   spares a persisted key the second checksum of its block.
     * @return the heap offset of the block the key's committed slot points at, or -1 when it has no value.
     */
    long findCommitted(final byte[] key, final long wholeBlock)
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
                    if (block == wholeBlock ||
                        KvBlockLayout.isWhole(heap, block, (int)Math.min(Integer.MAX_VALUE, heap.byteSize() - block)) &&
                        KvBlockLayout.hasKey(heap, block, key))
                    {
                        return block;
                    }
                }
            }
        }
        return -1;
    }

    /**
     * @return the offset in the index region of the committed slot whose whole block holds the key, or -1 when it has
     * none.
     */
    long committedSlotOf(final byte[] key)
    {
        final long hash = KeyHash.hash(key);
        final int fingerprint = KeyHash.fingerprint(hash);
        for (int candidate = 0; candidate < 2; candidate++)
        {
            final long bucket = candidateOffset(hash, candidate);
            for (int i = 0; i < IndexLayout.SLOTS_PER_COMBINED_BUCKET; i++)
            {
                final long slot = bucket + IndexLayout.slotOffsetInCombined(i);
                final long word = index.get(SLOT, slot);
                if (SlotWord.isCommitted(word) && SlotWord.fingerprint(word) == fingerprint)
                {
                    final long block = SlotWord.blockOffset(word);
                    if (KvBlockLayout.isWhole(heap, block, (int)Math.min(Integer.MAX_VALUE, heap.byteSize() - block)) &&
                        KvBlockLayout.hasKey(heap, block, key))
                    {
                        return slot;
                    }
                }
            }
        }
        return -1;
    }

    /** @return the word of the slot at {@code slot} (an offset {@link #committedSlotOf} gave). */
    long slotWord(final long slot)
    {
        return (long)SLOT_ATOMIC.getVolatile(index, slot);
    }

    /**
     * Point the key's committed slot at another block of it, written by the caller.
     *
     * @return true when the slot held {@code word} and now points at the block.
     */
    boolean replaceSlot(final byte[] key, final long slot, final long word, final long blockOffset,
        final int blockLength, final boolean expires, final int generation)
    {
        return SLOT_ATOMIC.compareAndSet(index, slot, word, SlotWord.committed(KeyHash.fingerprint(KeyHash.hash(key)),
            blockOffset, blockLength, expires, generation));
    }

    /** @return the expiry time of the whole block at {@code blockOffset} (see {@link KvBlockLayout#expireAt}). */
    long expireAtOf(final long blockOffset)
    {
        return KvBlockLayout.expireAt(heap, blockOffset);
    }

    /** @return bytes of the block at {@code blockOffset} as its header gives them (a multiple of 64). */
    long blockLengthOf(final long blockOffset)
    {
        final long bytes = (long)KvBlockLayout.HEADER_LENGTH + KvBlockLayout.keyLength(heap, blockOffset) +
            KvBlockLayout.valueLength(heap, blockOffset);
        return bytes + SlotWord.UNIT - 1 & ~(SlotWord.UNIT - 1L);
    }

    /** @return the write id of the block at {@code blockOffset}: which write it is, the same on every replica. */
    long writeIdOf(final long blockOffset)
    {
        return KvBlockLayout.writeId(heap, blockOffset);
    }

    /** @return the epoch of the write the block at {@code blockOffset} holds ({@link KvBlockLayout#epoch}). */
    long epochOf(final long blockOffset)
    {
        return KvBlockLayout.epoch(heap, blockOffset);
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
     * @return false when both candidate buckets are full and their subtable cannot split.
     */
    boolean restore(final byte[] key, final long blockOffset, final int blockLength, final boolean expires,
        final int generation)
    {
        final long hash = KeyHash.hash(key);
        final long word = SlotWord.committed(KeyHash.fingerprint(hash), blockOffset, blockLength, expires, generation);
        while (true)
        {
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
            if (split(subtableFor(hash), -1) == SPLIT_FULL)
            {
                return false;
            }
        }
    }

    /** Visit every non-empty slot of every subtable. */
    void forEachSlot(final SlotVisitor visitor)
    {
        final long buckets = (long)groups * 3 * subtables();
        final long start = subtableAt(0);
        for (long bucket = 0; bucket < buckets; bucket++)
        {
            final long first = start + bucket * IndexLayout.BUCKET_LENGTH + IndexLayout.BUCKET_HEADER_LENGTH;
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
        return subtableFor(hash) +
            IndexLayout.combinedBucketOffset(KeyHash.group(hash, candidate, groups), KeyHash.side(hash, candidate));
    }
}
