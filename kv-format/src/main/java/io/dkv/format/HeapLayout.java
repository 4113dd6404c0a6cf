package io.dkv.format;

/**
 * The KV heap a memory node keeps in one registered region. Its CPU hands out chunks (by RPC, see
 * {@link MemoryNodeProtocol}) one after the other; each client writes blocks into its own chunks only,
 * so no two writers share a chunk.
 *
 * <pre>
 * region
 *   0  magic          long   "DKVHEAP2" (blocks of {@link KvBlockLayout} with an expiry; "DKVHEAP1" before)
 *   8  maxChunkLength int    bytes of the largest chunk it hands out
 *  12  maxChunks      int    the heap's size in largest chunks
 *  16  room           long   bytes the node may still hand out to writes other than frees (outside its reserve),
 *                            written by its CPU as chunks go and come back: what a client reads to know, before it
 *                            queues a write (MULTI, a script), whether the write would find room
 *  64  chunks         in the order they were handed out, each 64-byte aligned
 * </pre>
 */
public final class HeapLayout
{
    public static final long MAGIC = 0x3250414548564b44L;
    public static final int MAGIC_OFFSET = 0;
    public static final int MAX_CHUNK_LENGTH_OFFSET = 8;
    public static final int MAX_CHUNKS_OFFSET = 12;
    public static final int ROOM_OFFSET = 16;
    public static final int HEADER_LENGTH = 64;

    private HeapLayout()
    {
    }

    public static long regionLength(final int chunks, final int chunkLength)
    {
        return HEADER_LENGTH + (long)chunks * chunkLength;
    }

    /** @return the index region's name on a memory node. */
    public static String indexRegionName(final long nodeId)
    {
        return "dkv-index-" + nodeId;
    }

    /** @return the heap region's name on a memory node. */
    public static String heapRegionName(final long nodeId)
    {
        return "dkv-heap-" + nodeId;
    }
}
