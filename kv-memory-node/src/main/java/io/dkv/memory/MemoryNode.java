package io.dkv.memory;

import io.dkv.client.layout.ChunkProtocol;
import io.dkv.client.layout.HeapLayout;
import io.dkv.client.layout.IndexLayout;
import io.dkv.raas.Listener;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A memory node: allocates the hash index and the KV heap in its driver's registered memory,
 * publishes both as named regions ({@link HeapLayout#indexRegionName}, {@link HeapLayout#heapRegionName})
 * and hands out heap chunks. Clients do everything else with one-sided requests.
 */
public final class MemoryNode implements AutoCloseable
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Raas raas;
    private final RemoteRegion index;
    private final RemoteRegion heap;
    private final ChunkAllocator chunks;
    private final Listener listener;
    private final AgentRunner runner;

    private MemoryNode(final Raas raas, final MemoryNodeContext context)
    {
        this.raas = raas;
        final long nodeId = raas.self().id();
        final int groups = context.indexGroups();
        index = raas.malloc(nodeId, IndexLayout.regionLength(0, groups, 1), HeapLayout.indexRegionName(nodeId));
        heap = raas.malloc(nodeId, HeapLayout.regionLength(context.heapChunks(), context.chunkBytes()), HeapLayout.heapRegionName(nodeId));
        formatIndex(raas.localMemory(index), groups);
        formatHeap(raas.localMemory(heap), context.chunkBytes(), context.heapChunks());
        chunks = new ChunkAllocator(context.chunkBytes(), heap.length());
        listener = raas.listen(ChunkProtocol.SERVICE);
        final ChunkServer server = new ChunkServer(listener, chunks,
            raas.allocateBuffer(ChunkProtocol.REQUEST_LENGTH * 4), raas.allocateBuffer(ChunkProtocol.REPLY_LENGTH));
        runner = new AgentRunner(new BackoffIdleStrategy(100, 100, 1_000, 1_000_000), Throwable::printStackTrace, null, server);
    }

    /**
     * Allocate, format and publish the index and the heap on this driver's node, and start serving
     * chunk requests.
     */
    public static MemoryNode start(final Raas raas, final MemoryNodeContext context)
    {
        final MemoryNode node = new MemoryNode(raas, context.conclude());
        AgentRunner.startOnThread(node.runner);
        return node;
    }

    /** One subtable at global depth 0: every hash maps to it until subtables split. */
    private static void formatIndex(final MemorySegment memory, final int groups)
    {
        memory.set(INT, IndexLayout.LAYOUT_VERSION_OFFSET, IndexLayout.LAYOUT_VERSION);
        memory.set(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET, groups);
        memory.set(INT, IndexLayout.SUBTABLES_OFFSET, 1);
        memory.set(INT, IndexLayout.GLOBAL_DEPTH_OFFSET, 0);
        memory.set(INT, IndexLayout.MAX_GLOBAL_DEPTH_OFFSET, 0);
        memory.set(LONG, IndexLayout.DIRECTORY_OFFSET, IndexLayout.directoryEntry(0, IndexLayout.subtablesOffset(0)));
        // written last: a client that sees the magic sees a formatted index
        VarHandle.releaseFence();
        memory.set(LONG, IndexLayout.MAGIC_OFFSET, IndexLayout.MAGIC);
    }

    private static void formatHeap(final MemorySegment memory, final int chunkLength, final int chunks)
    {
        memory.set(INT, HeapLayout.MAX_CHUNK_LENGTH_OFFSET, chunkLength);
        memory.set(INT, HeapLayout.MAX_CHUNKS_OFFSET, chunks);
        VarHandle.releaseFence();
        memory.set(LONG, HeapLayout.MAGIC_OFFSET, HeapLayout.MAGIC);
    }

    public long nodeId()
    {
        return raas.self().id();
    }

    public RemoteRegion indexRegion()
    {
        return index;
    }

    public RemoteRegion heapRegion()
    {
        return heap;
    }

    /** @return heap chunks handed out to clients so far (of any size). */
    public int chunksAllocated()
    {
        return chunks.allocated();
    }

    public void close()
    {
        CloseHelper.quietCloseAll(runner, listener);
    }
}
