package io.dkv.client.node;

import io.dkv.client.KvException;
import io.dkv.format.HeapLayout;
import io.dkv.format.IndexLayout;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A memory node as a client sees it: its index and heap regions and the index's geometry, read
 * when the client starts, and again by a thread after the node split a subtable, failed a request
 * or could not be read. Never changed: a new reading is a new view.
 */
public final class MemoryNodeView
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int DIRECTORY_READ_ATTEMPTS = 10_000;

    public final long nodeId;
    public final RemoteRegion index;
    public final RemoteRegion heap;
    public final int groups;
    final int globalDepth;
    /** The directory: per value of a hash's low globalDepth bits, its subtable's offset (and local depth). */
    private final long[] directory;
    /** The node writes keys to disk when asked. */
    public final boolean persistent;
    /** The node reuses a block's memory no sooner than this after it was replaced. */
    public final int graceMs;
    /** The node keeps key versions by epoch: a delete under durability async publishes a tombstone there. */
    public final boolean keepsVersions;

    private MemoryNodeView(
        final long nodeId,
        final RemoteRegion index,
        final RemoteRegion heap,
        final int groups,
        final int globalDepth,
        final long[] directory,
        final boolean persistent,
        final int graceMs,
        final boolean keepsVersions)
    {
        this.persistent = persistent;
        this.keepsVersions = keepsVersions;
        this.graceMs = graceMs;
        this.nodeId = nodeId;
        this.index = index;
        this.heap = heap;
        this.groups = groups;
        this.globalDepth = globalDepth;
        this.directory = directory;
    }

    /**
     * @throws KvException when the node publishes no index, or one of another layout.
     */
    public static MemoryNodeView read(final Raas raas, final long nodeId)
    {
        final RemoteRegion index;
        final RemoteRegion heap;
        try
        {
            index = raas.lookup(HeapLayout.indexRegionName(nodeId));
            heap = raas.lookup(HeapLayout.heapRegionName(nodeId));
        }
        catch (final RaasException ex)
        {
            throw new KvException("memory node " + nodeId +
                " publishes no index and heap (is it a memory node, and running?): " +
                ex.getMessage(), ex);
        }
        try (Connection connection = raas.open(nodeId, null))
        {
            // heap memory, copied by the driver: a view is read rarely, and registered buffers stay registered
            final MemorySegment header = MemorySegment.ofArray(new byte[IndexLayout.HEADER_LENGTH]);
            for (int attempt = 0; attempt < DIRECTORY_READ_ATTEMPTS; attempt++)
            {
                connection.read(index, 0, header, 0, IndexLayout.HEADER_LENGTH);
                final long magic = header.get(LONG, IndexLayout.MAGIC_OFFSET);
                final int version = header.get(INT, IndexLayout.LAYOUT_VERSION_OFFSET);
                if (magic != IndexLayout.MAGIC || version != IndexLayout.LAYOUT_VERSION)
                {
                    throw new KvException(String.format("memory node %d's index has magic 0x%x, layout version %d; " +
                        "this client reads layout version %d", nodeId, magic, version, IndexLayout.LAYOUT_VERSION));
                }
                final long directoryVersion = header.get(LONG, IndexLayout.DIRECTORY_VERSION_OFFSET);
                final int globalDepth = header.get(INT, IndexLayout.GLOBAL_DEPTH_OFFSET);
                if ((directoryVersion & 1) != 0 || globalDepth < 0 || globalDepth > IndexLayout.MAX_GLOBAL_DEPTH)
                {
                    Thread.onSpinWait();
                    continue;
                }
                final int entries = 1 << globalDepth;
                final MemorySegment entryBuffer =
                    MemorySegment.ofArray(new byte[entries * IndexLayout.DIRECTORY_ENTRY_LENGTH]);
                connection.read(index, IndexLayout.DIRECTORY_OFFSET, entryBuffer, 0, (int)entryBuffer.byteSize());
                final MemorySegment versionAfter = MemorySegment.ofArray(new byte[Long.BYTES]);
                connection.read(index, IndexLayout.DIRECTORY_VERSION_OFFSET, versionAfter, 0, Long.BYTES);
                if (versionAfter.get(LONG, 0) != directoryVersion)
                {
                    // the node changed the directory meanwhile
                    continue;
                }
                final long[] directory = new long[entries];
                for (int i = 0; i < entries; i++)
                {
                    directory[i] = entryBuffer.get(LONG, (long)i * IndexLayout.DIRECTORY_ENTRY_LENGTH);
                }
                return new MemoryNodeView(nodeId, index, heap, header.get(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET),
                    globalDepth,
                    directory, (header.get(INT, IndexLayout.FLAGS_OFFSET) & IndexLayout.FLAG_PERSISTENT) != 0,
                    header.get(INT, IndexLayout.GRACE_MS_OFFSET),
                    (header.get(INT, IndexLayout.FLAGS_OFFSET) & IndexLayout.FLAG_KEEPS_VERSIONS) != 0);
            }
        }
        catch (final RaasException ex)
        {
            throw new KvException("cannot read the index header of memory node " + nodeId + ": " + ex.getMessage(), ex);
        }
        throw new KvException("memory node " + nodeId + "'s directory kept changing while it was read " +
            DIRECTORY_READ_ATTEMPTS +
            " times");
    }

    /** @return the offset in the index region of the subtable that holds keys of this hash. */
    public long subtableFor(final long hash)
    {
        return IndexLayout.subtableOffset(directory[(int)(hash & ((1L << globalDepth) - 1))]);
    }

    /** @return the local depth of that subtable, as this view saw it. */
    public int localDepthFor(final long hash)
    {
        return IndexLayout.localDepth(directory[(int)(hash & ((1L << globalDepth) - 1))]);
    }
}
