package io.dkv.client;

import io.dkv.client.layout.HeapLayout;
import io.dkv.client.layout.IndexLayout;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A memory node as a client sees it: its index and heap regions and the index's geometry, read
 * once when the client starts. Shared by the client's threads; never changed.
 */
final class MemoryNodeView
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final long nodeId;
    final RemoteRegion index;
    final RemoteRegion heap;
    final int groups;
    final int globalDepth;
    final long subtableOffset;
    /** The node writes keys to disk when asked. */
    final boolean persistent;
    /** The node reuses a block's memory no sooner than this after it was replaced. */
    final int graceMs;

    private MemoryNodeView(
        final long nodeId,
        final RemoteRegion index,
        final RemoteRegion heap,
        final int groups,
        final int globalDepth,
        final long subtableOffset,
        final boolean persistent,
        final int graceMs)
    {
        this.persistent = persistent;
        this.graceMs = graceMs;
        this.nodeId = nodeId;
        this.index = index;
        this.heap = heap;
        this.groups = groups;
        this.globalDepth = globalDepth;
        this.subtableOffset = subtableOffset;
    }

    /**
     * @throws KvException when the node publishes no index, or one of another layout.
     */
    static MemoryNodeView read(final Raas raas, final long nodeId)
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
            throw new KvException("memory node " + nodeId + " publishes no index and heap (is it a memory node, and running?): " +
                ex.getMessage(), ex);
        }
        final MemorySegment header = raas.allocateBuffer(IndexLayout.HEADER_LENGTH + IndexLayout.DIRECTORY_ENTRY_LENGTH);
        try (Connection connection = raas.open(nodeId, null))
        {
            connection.read(index, 0, header, 0, (int)header.byteSize());
        }
        catch (final RaasException ex)
        {
            throw new KvException("cannot read the index header of memory node " + nodeId + ": " + ex.getMessage(), ex);
        }
        final long magic = header.get(LONG, IndexLayout.MAGIC_OFFSET);
        final int version = header.get(INT, IndexLayout.LAYOUT_VERSION_OFFSET);
        if (magic != IndexLayout.MAGIC || version != IndexLayout.LAYOUT_VERSION)
        {
            throw new KvException(String.format("memory node %d's index has magic 0x%x, layout version %d; this client reads " +
                "layout version %d", nodeId, magic, version, IndexLayout.LAYOUT_VERSION));
        }
        final int globalDepth = header.get(INT, IndexLayout.GLOBAL_DEPTH_OFFSET);
        if (globalDepth != 0)
        {
            throw new KvException("memory node " + nodeId + "'s index has split (global depth " + globalDepth +
                "); this client reads unsplit indexes only");
        }
        final long entry = header.get(LONG, IndexLayout.DIRECTORY_OFFSET);
        return new MemoryNodeView(nodeId, index, heap, header.get(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET), globalDepth,
            IndexLayout.subtableOffset(entry), (header.get(INT, IndexLayout.FLAGS_OFFSET) & IndexLayout.FLAG_PERSISTENT) != 0,
            header.get(INT, IndexLayout.GRACE_MS_OFFSET));
    }
}
