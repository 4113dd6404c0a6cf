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
 *  24  capacity       long   bytes chunks are cut from (the region less this header)
 *  32  handedOut      long   bytes of chunks handed out and not free again (being written, retired, in their grace)
 *  40  live           long   bytes of the blocks the index named at the node's last walk of it
 *  48  reserve        long   bytes kept for writes that free memory (deletes' tombstones, their intents)
 *  56  pinned         int    retired chunks a live block still held at that walk
 *  60  walkedAt       int    when that walk ended, epoch seconds (unsigned), 0 before the first walk
 *  64  limit          long   bytes of chunks the node hands out at most to writes other than frees, its share of the
 *                            pool's maxmemory ({@link MemoryNodeProtocol}'s LIMIT): {@link #LIMIT_NEVER_SET}, no
 *                            limit and none ever asked (a node started or restarted since); {@link #LIMIT_NONE},
 *                            none, as asked
 *  72  (unused)       56 bytes, zero
 * 128  chunks         in the order they were handed out, each 64-byte aligned
 * </pre>
 * Bytes 16..127 are written by the node's CPU alone, each word whole; a reader takes each as of some moment, not all
 * of one moment. A node of an older build leaves 24..63 zero: its capacity reads 0, as "not told".
 */
public final class HeapLayout
{
    public static final long MAGIC = 0x3250414548564b44L;
    public static final int MAGIC_OFFSET = 0;
    public static final int MAX_CHUNK_LENGTH_OFFSET = 8;
    public static final int MAX_CHUNKS_OFFSET = 12;
    public static final int ROOM_OFFSET = 16;
    public static final int CAPACITY_OFFSET = 24;
    public static final int HANDED_OUT_OFFSET = 32;
    public static final int LIVE_OFFSET = 40;
    public static final int RESERVE_OFFSET = 48;
    public static final int PINNED_OFFSET = 56;
    public static final int WALKED_AT_OFFSET = 60;
    public static final int LIMIT_OFFSET = 64;
    public static final int HEADER_LENGTH = 128;
    /** The limit word of a node no one asked for a limit since it started: a compute node gives it its share. */
    public static final long LIMIT_NEVER_SET = 0;
    /** The limit word of a node asked to have none (maxmemory 0). */
    public static final long LIMIT_NONE = -1;

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
