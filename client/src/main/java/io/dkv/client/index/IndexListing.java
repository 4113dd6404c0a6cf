package io.dkv.client.index;

import io.dkv.client.KvException;
import io.dkv.client.KvSession;
import io.dkv.client.node.MemoryNodeDisk;
import io.dkv.client.node.MemoryNodeHeap;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.client.node.NodeLinks;
import io.dkv.client.replication.ReplicaCopier;
import io.dkv.format.HeapLayout;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A node's index read whole, range by range, and the keys of the blocks its committed slots name: how a scan of an
 * index learns every key it holds ({@link ReplicaCopier}).
 */
public final class IndexListing
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Blocks of one node whose keys a scan of its index reads in one round. */
    static final int KEY_BATCH = 32;
    /** The bytes of a block read to learn its key: the header and keys of up to 96 bytes. */
    static final int KEY_PREFIX = 2 * SlotWord.UNIT;

    private final NodeLinks links;
    /** The blocks {@link #keysOf} reads in one round, and the node of that round. */
    private MemorySegment keyBlocks;
    private final int[] roundNode = new int[1];
    /** The block {@link #keyOf} reads, its header first; made at its first. */
    private MemorySegment block;
    /** The expiry and write id of the block whose key {@link #keyRead} or {@link #keyOf} returned last. */
    private long lastExpireAt;
    private long lastWriteId;
    /** An index header, read by {@link #diskOf}, or a heap header, by {@link #heapOf}; made at its first. */
    private MemorySegment header;

    public IndexListing(final NodeLinks links)
    {
        this.links = links;
    }

    /** @return the buffer an index or heap header is read into (the longer of the two), made at its first use. */
    private MemorySegment headerBuffer()
    {
        if (header == null)
        {
            header = allocateBuffer(Math.max(IndexLayout.HEADER_LENGTH, HeapLayout.HEADER_LENGTH));
        }
        return header;
    }

    /** @return the node's disk as its index header shows it now; unreachable when it cannot be read. */
    public MemoryNodeDisk diskOf(final int node)
    {
        final MemorySegment header = headerBuffer();
        try
        {
            readIndex(node, 0, header, IndexLayout.HEADER_LENGTH);
        }
        catch (final KvException ex)
        {
            return MemoryNodeDisk.unreachable(links.nodeId(node));
        }
        final int fsyncState = header.get(INT, IndexLayout.FSYNC_STATE_OFFSET);
        return new MemoryNodeDisk(links.nodeId(node), true,
            (header.get(INT, IndexLayout.FLAGS_OFFSET) & IndexLayout.FLAG_PERSISTENT) != 0,
            header.get(LONG, IndexLayout.LAST_FSYNC_AT_OFFSET), (fsyncState & IndexLayout.FSYNC_FAILED) == 0,
            header.get(LONG, IndexLayout.UNSYNCED_SINCE_OFFSET), fsyncState & ~IndexLayout.FSYNC_FAILED,
            header.get(LONG, IndexLayout.DURABLE_EPOCH_OFFSET),
            header.get(LONG, IndexLayout.CLUSTER_DURABLE_EPOCH_OFFSET),
            header.get(LONG, IndexLayout.RESTORED_DURABLE_EPOCH_OFFSET),
            header.get(LONG, IndexLayout.RESTORED_CLUSTER_DURABLE_EPOCH_OFFSET),
            header.get(LONG, IndexLayout.ROLLED_BACK_TO_OFFSET), links.view(node).index.nodeEpoch());
    }

    /** @return the node's heap as its header shows it now (one READ); unreachable when it cannot be read. */
    public MemoryNodeHeap heapOf(final int node)
    {
        final MemorySegment header = headerBuffer();
        try
        {
            links.connection(links.use(node)).read(links.view(node).heap, 0, header, 0, HeapLayout.HEADER_LENGTH);
        }
        catch (final RaasException | KvException ex)
        {
            return MemoryNodeHeap.unreachable(links.nodeId(node));
        }
        return new MemoryNodeHeap(links.nodeId(node), true, header.get(LONG, HeapLayout.CAPACITY_OFFSET),
            header.get(LONG, HeapLayout.HANDED_OUT_OFFSET), header.get(LONG, HeapLayout.LIVE_OFFSET),
            header.get(LONG, HeapLayout.RESERVE_OFFSET), header.get(LONG, HeapLayout.ROOM_OFFSET),
            header.get(INT, HeapLayout.PINNED_OFFSET),
            Integer.toUnsignedLong(header.get(INT, HeapLayout.WALKED_AT_OFFSET)) * 1000,
            header.get(LONG, HeapLayout.LIMIT_OFFSET));
    }

    /** @return registered memory of this thread's, for the ranges of an index it reads. */
    public MemorySegment allocateBuffer(final int size)
    {
        return links.raas().allocateBuffer(size);
    }

    /**
     * Raise the cluster's durable epoch in a node's index header ({@link IndexLayout#CLUSTER_DURABLE_EPOCH_OFFSET}) to
     * {@code epoch}: compare-and-swaps that only ever raise it, so that a client whose D is behind another's never
     * lowers what the node reads.
     *
     * @param seen what the header held when last read (its {@link #diskOf}).
     */
    public void raiseClusterDurableEpoch(final int node, final long seen, final long epoch)
    {
        long expected = seen;
        try
        {
            while (expected < epoch)
            {
                final long found = links.connection(links.use(node)).cas(links.view(node).index,
                    IndexLayout.CLUSTER_DURABLE_EPOCH_OFFSET, expected, epoch);
                if (found == expected)
                {
                    return;
                }
                expected = found;
            }
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
    }

    /** Read bytes of a node's index region into a registered buffer of this thread's. */
    public void readIndex(final int node, final long offset, final MemorySegment dst, final int length)
    {
        try
        {
            links.connection(links.use(node)).read(links.view(node).index, offset, dst, 0, length);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
    }

    /**
     * Read ranges of a node's heap, each {@code lengths[i]} bytes at {@code offsets[i]}, into a registered buffer of
     * this thread's one after another from its start, in one round: the pieces of a window of blocks, or blocks too
     * far apart to read their window whole ({@link WholeReads}).
     */
    public void readHeapBlocks(final int node, final long[] offsets, final int[] lengths, final int count,
        final MemorySegment dst)
    {
        final MemoryNodeView view = links.view(links.use(node));
        roundNode[0] = node;
        final long token = links.startRequests();
        long at = 0;
        try
        {
            final Connection connection = links.connection(node);
            for (int i = 0; i < count; i++)
            {
                connection.readAsync(view.heap, offsets[i], dst, at, lengths[i], token);
                at += lengths[i];
            }
            connection.flush();
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        links.awaitRound(roundNode, 1, count);
    }

    /**
     * The keys of the blocks committed slot words name at a node, {@link #KEY_BATCH} blocks to a round (posted
     * together, awaited together), each read only as far as its key: its header and the first bytes after, where most
     * keys end ({@link #KEY_PREFIX}); a longer key is read on its own ({@link #keyOf}). The value is not read, so its
     * checksum is not checked: the words were read just before, and the node reuses a block's memory only a grace
     * period after its slot was replaced, so what is read is the block the word names; the header's tag and lengths
     * are checked against the word's length, and the key's fingerprint against the word's.
     *
     * @param keysOut filled with word i's key at i, or null when its block does not agree with the word (its slot was
     *                replaced and the block reclaimed since the word was read).
     */
    public void keysOf(final int node, final long[] words, final int count, final byte[][] keysOut)
    {
        keysOf(node, words, count, keysOut, null);
    }

    /**
     * As {@link #keysOf(int, long[], int, byte[][])}, with each block's expiry.
     *
     * @param expireAtOut where not null, filled with word i's block's expireAt at i (where its key is not null).
     */
    public void keysOf(final int node, final long[] words, final int count, final byte[][] keysOut,
        final long[] expireAtOut)
    {
        keysOf(node, words, count, keysOut, expireAtOut, null);
    }

    /**
     * As {@link #keysOf(int, long[], int, byte[][], long[])}, with each block's write id: the header's, read with the
     * key (a block never changes its write id, and the word was read just before, as for the key).
     *
     * @param writeIdsOut where not null, filled with word i's block's write id at i (where its key is not null).
     */
    public void keysOf(final int node, final long[] words, final int count, final byte[][] keysOut,
        final long[] expireAtOut, final long[] writeIdsOut)
    {
        final MemoryNodeView view = links.view(links.use(node));
        roundNode[0] = node;
        if (keyBlocks == null)
        {
            keyBlocks = links.raas().allocateBuffer(KEY_BATCH * KEY_PREFIX);
        }
        for (int from = 0; from < count; from += KEY_BATCH)
        {
            final int to = Math.min(count, from + KEY_BATCH);
            final long token = links.startRequests();
            int posted = 0;
            try
            {
                final Connection connection = links.connection(node);
                for (int i = from; i < to; i++)
                {
                    final int hint = SlotWord.lengthHint(words[i]);
                    if (hint != 0)
                    {
                        connection.readAsync(view.heap, SlotWord.blockOffset(words[i]), keyBlocks,
                            (long)(i - from) * KEY_PREFIX, Math.min(hint, KEY_PREFIX), token);
                        posted++;
                    }
                }
                connection.flush();
            }
            catch (final RaasException ex)
            {
                throw links.unreachable(node, ex);
            }
            if (posted != 0)
            {
                links.awaitRound(roundNode, 1, posted);
            }
            for (int i = from; i < to; i++)
            {
                keysOut[i] = keyRead(node, words[i], (long)(i - from) * KEY_PREFIX);
                if (expireAtOut != null)
                {
                    expireAtOut[i] = lastExpireAt;
                }
                if (writeIdsOut != null)
                {
                    writeIdsOut[i] = lastWriteId;
                }
            }
        }
    }

    /** @return the key of the block whose first bytes {@link #keysOf} read at {@code at}, or null (see there). */
    private byte[] keyRead(final int node, final long word, final long at)
    {
        final int hint = SlotWord.lengthHint(word);
        if (hint == 0)
        {
            // a block too long for its word to say its length is read on its own, its header first
            return keyOf(node, word);
        }
        if (!KvBlockLayout.headerFits(keyBlocks, at, hint))
        {
            return null;
        }
        final int keyLength = KvBlockLayout.keyLength(keyBlocks, at);
        lastExpireAt = KvBlockLayout.expireAt(keyBlocks, at);
        lastWriteId = KvBlockLayout.writeId(keyBlocks, at);
        final byte[] key = KvBlockLayout.HEADER_LENGTH + keyLength <= Math.min(hint, KEY_PREFIX) ?
            keyBlocks.asSlice(at + KvBlockLayout.HEADER_LENGTH, keyLength).toArray(ValueLayout.JAVA_BYTE) :
            keyOf(node, word);
        return key != null && KeyHash.fingerprint(KeyHash.hash(key)) == SlotWord.fingerprint(word) ? key : null;
    }

    /**
     * @return the key of the block a committed slot word names at a node, or null when the block is not whole (its
     * slot was replaced and the block reclaimed since the word was read).
     */
    byte[] keyOf(final int node, final long word)
    {
        final MemoryNodeView view = links.view(links.use(node));
        final long offset = SlotWord.blockOffset(word);
        try
        {
            final Connection connection = links.connection(node);
            if (block == null)
            {
                block = links.raas().allocateBuffer(4096);
            }
            connection.read(view.heap, offset, block, 0, SlotWord.UNIT);
            final int keyLength = KvBlockLayout.keyLength(block, 0);
            final int valueLength = KvBlockLayout.valueLength(block, 0);
            if (keyLength <= 0 || keyLength > KvBlockLayout.MAX_KEY_LENGTH || valueLength < 0 ||
                valueLength > KvBlockLayout.MAX_VALUE_LENGTH)
            {
                return null;
            }
            final int length = KvBlockLayout.blockLength(keyLength, valueLength);
            if (block.byteSize() < length)
            {
                block = links.raas().allocateBuffer(
                    Math.min(KvSession.MAX_BLOCK, Math.max(length, (int)block.byteSize() * 2)));
            }
            connection.read(view.heap, offset, block, 0, length);
            if (!KvBlockLayout.isWhole(block, 0, length))
            {
                return null;
            }
            lastExpireAt = KvBlockLayout.expireAt(block, 0);
            lastWriteId = KvBlockLayout.writeId(block, 0);
            return block.asSlice(KvBlockLayout.HEADER_LENGTH, keyLength).toArray(ValueLayout.JAVA_BYTE);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
    }
}
