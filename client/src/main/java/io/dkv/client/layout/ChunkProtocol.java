package io.dkv.client.layout;

/**
 * The one RPC a client makes to a memory node's CPU on the write path: a chunk of the heap of its
 * own, over a RaaS message connection to {@link #SERVICE}. Chunks are sized to demand: a client
 * asks for a small one first and for larger ones as it writes more, so that short-lived clients
 * (a command line's one put) do not each hold a large chunk.
 *
 * <pre>
 * request (16 bytes)
 *   0  type        int    ALLOCATE
 *   4  length      int    bytes wanted, a multiple of 64 (the node grants at most its largest chunk)
 *   8  correlation long
 *
 * reply (24 bytes)
 *   0  status      int    OK, FULL (no chunk left) or BAD_REQUEST
 *   4  chunkLength int    bytes granted: the length asked for or the node's largest chunk, the smaller
 *   8  correlation long
 *  16  offset      long   of the chunk in the heap region
 * </pre>
 */
public final class ChunkProtocol
{
    public static final int SERVICE = 0x4b56;

    public static final int ALLOCATE = 1;

    public static final int OK = 0;
    public static final int FULL = 1;
    public static final int BAD_REQUEST = 2;

    public static final int TYPE_OFFSET = 0;
    public static final int LENGTH_OFFSET = 4;
    public static final int CORRELATION_OFFSET = 8;
    public static final int REQUEST_LENGTH = 16;

    public static final int STATUS_OFFSET = 0;
    public static final int CHUNK_LENGTH_OFFSET = 4;
    public static final int REPLY_CORRELATION_OFFSET = 8;
    public static final int CHUNK_OFFSET_OFFSET = 16;
    public static final int REPLY_LENGTH = 24;

    private ChunkProtocol()
    {
    }
}
