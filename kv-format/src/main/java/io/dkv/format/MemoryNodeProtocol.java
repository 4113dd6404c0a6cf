package io.dkv.format;

/**
 * What a client asks of a memory node's CPU, over a RaaS message connection to {@link #SERVICE}:
 * a chunk of the heap of its own (ALLOCATE), and that a key's state be written to disk (PERSIST).
 * Chunks are sized to demand: a client asks for a small one first and for larger ones as it writes
 * more, so that short-lived clients (a command line's one put) do not each hold a large chunk.
 * PERSIST names a block of the key (the one just published, or the one just deleted); the node
 * looks the key up in its own index and writes what it holds now, so notifications may arrive in
 * any order and the disk still ends with the latest value. A reader that met a pending block
 * ({@link KvBlockLayout}) sends a PERSIST naming it and its write id, and answers its value once
 * the node says the key is on disk; the node then marks the key's block settled.
 *
 * <pre>
 * request (32 bytes)
 *   0  type        int    ALLOCATE, PERSIST, RETIRE, SPLIT, SYNC, PERSIST_BLOCKS, PERSIST_RING, RESTART or LIMIT
 *   4  argument    int    ALLOCATE, PERSIST_RING: bytes wanted, a multiple of 64 (the node grants at most its
 *                         largest chunk), ALLOCATE: with FREEING (the write frees memory: it may take the
 *                         node's reserve); PERSIST: ANSWER_WHEN_DURABLE, ANSWER_WHEN_TAKEN or 0 (no answer),
 *                         and NAMES_PREVIOUS; PERSIST_BLOCKS: how many blocks (answered once taken when the
 *                         correlation is not 0)
 *   8  correlation long
 *  16  block       long   PERSIST: offset in the heap region of a block of the key; RETIRE: the chunk's offset;
 *                         ALLOCATE: the fewest bytes the client can use, a multiple of 64 (0: all it wants);
 *                         SPLIT: the subtable's offset in the index region; RESTART: the incarnation asked to
 *                         restart; LIMIT: the bytes of chunks to hand out at most to writes other than frees,
 *                         a multiple of 64, or {@link HeapLayout#LIMIT_NONE}
 *  24  writeId     long   PERSIST: the write the block must hold (a reader settling it), else 0: any; with
 *                         NAMES_PREVIOUS, the write id of the version the writer's write replaced (0: none);
 *                         RESTART: the id of the memory node that asks
 *
 * reply (32 bytes)
 *   0  status      int    OK, FULL (no room for the chunk; the subtable cannot split), BAD_REQUEST,
 *                         NOT_PERSISTENT, GONE (PERSIST: the block there holds another write) or DISK_FAILED
 *                         (PERSIST, SYNC: the disk refused the write)
 *   4  chunkLength int    ALLOCATE, PERSIST_RING: bytes granted: the length asked for or the largest chunk,
 *                         the smaller; ALLOCATE: less where the node has no free piece that long (never
 *                         less than the fewest asked)
 *   8  correlation long
 *  16  offset      long   ALLOCATE, PERSIST_RING: of the chunk in the heap region; FULL: bytes the node may still
 *                         hand out, its reserve included
 *  24  generation  int    ALLOCATE: how many times the chunk was handed out before (modulo 256), for the slot
 *                         words naming its blocks ({@link SlotWord})
 *  28  reserved    int
 *  24  epoch       long   PERSIST_RING, in place of the two above: the node's durable epoch, which the ring's
 *                         mark starts at; the client writes only later epochs from then on
 *  24  reserve     long   FULL, in place of the generation and reserved: the bytes of its reserve (FREEING)
 * </pre>
 */
public final class MemoryNodeProtocol
{
    public static final int SERVICE = 0x4b56;

    public static final int ALLOCATE = 1;
    /**
     * ALLOCATE's argument: the chunk is for writes that free memory (deletes' tombstones and their intents), which a
     * node grants from the reserve it keeps for them where it refuses other writes.
     */
    public static final int FREEING = 1;
    public static final int PERSIST = 2;
    public static final int RETIRE = 3;
    /**
     * The subtable at {@code block} (an offset in the index region) has a key with no free candidate slot: split it.
     */
    public static final int SPLIT = 4;
    /**
     * Answer once every key this node wrote to disk before the request is fsynced (NOT_PERSISTENT: it keeps nothing
     * on disk): a refill's copies, sent under durability async, are on the joiner's disk before it is read.
     */
    public static final int SYNC = 5;
    /**
     * PERSIST of many keys (durability async): the argument says how many blocks, each two longs from
     * {@link #BLOCK_OFFSET} on, the block and the write id of the version its write replaced (as PERSIST's with
     * {@link #NAMES_PREVIOUS}), at most {@link #MAX_BLOCKS}. One message for what a client's writes changed on the
     * node since its last, rather than one each. Answered OK once taken when its correlation is not 0 (a client whose
     * ring had no room, so that the answer comes before its next mark), else not at all.
     */
    public static final int PERSIST_BLOCKS = 6;
    /**
     * A persist ring ({@link PersistRingLayout}): answered as ALLOCATE (the argument the bytes wanted), with a chunk
     * the node zeroes, keeps for the client until it goes away, and reads each turn for the blocks the client writes
     * into it; what it finds there it writes to disk as PERSIST_BLOCKS' blocks. A client gone has its ring read to the
     * end first.
     */
    public static final int PERSIST_RING = 7;
    /**
     * Restart from your disk (kv-memory-node/README.md, "Every copy of some keys lost while a member serves"): a
     * memory node that came back to find every copy of some keys lost asks each member to start again from its disk,
     * so that the pool comes back at one cut. Answered OK when the node will (then it stops serving: a new
     * incarnation), GONE when it is another incarnation than the one named, NOT_PERSISTENT when it keeps nothing on
     * disk, BAD_REQUEST when it cannot restart itself (a node embedded in another process).
     */
    public static final int RESTART = 8;
    /**
     * Hand out at most this many bytes of chunks to writes other than frees (the node's share of the pool's
     * maxmemory); what it handed out before stays. Answered OK, or BAD_REQUEST for a length that is not a multiple
     * of 64 nor {@link HeapLayout#LIMIT_NONE}; the heap header's limit word says it from then on.
     */
    public static final int LIMIT = 9;
    /** A PERSIST_BLOCKS of this many is 2,064 bytes, as one of 256 was with a word a block: half a receive buffer. */
    public static final int MAX_BLOCKS = 128;
    /** What a PERSIST_BLOCKS says of each block: its offset, then the previous version's write id. */
    public static final int NOTICE_LENGTH = 2 * Long.BYTES;
    /** The longest request: a PERSIST_BLOCKS of {@link #MAX_BLOCKS}. */
    public static final int MAX_REQUEST_LENGTH = MemoryNodeProtocol.BLOCK_OFFSET + MAX_BLOCKS * NOTICE_LENGTH;
    /** PERSIST's argument: answer once the key's state is on disk (durability sync). */
    public static final int ANSWER_WHEN_DURABLE = 1;
    /**
     * PERSIST's argument: answer once the node has taken the block into the batch it writes next (durability async,
     * told where the client has no ring): an answer that comes before any mark the client writes after it.
     */
    public static final int ANSWER_WHEN_TAKEN = 2;
    /**
     * PERSIST's argument, beside an answer's: the write id field names the version the writer's write replaced, the
     * notice of a write (kv-memory-node/README.md, "Async across nodes"), not a write a reader settles.
     */
    public static final int NAMES_PREVIOUS = 4;

    public static final int OK = 0;
    public static final int FULL = 1;
    public static final int BAD_REQUEST = 2;
    public static final int NOT_PERSISTENT = 3;
    /** PERSIST with a write id: the node's block at that offset is not of that write (the node restarted since). */
    public static final int GONE = 4;
    /**
     * PERSIST or SYNC: the node's disk refused the write (full or failing; its log names the file). The key is in its
     * memory, and written once the disk takes writes again, tried every fsync interval.
     */
    public static final int DISK_FAILED = 5;

    public static final int TYPE_OFFSET = 0;
    public static final int ARGUMENT_OFFSET = 4;
    public static final int CORRELATION_OFFSET = 8;
    public static final int BLOCK_OFFSET = 16;
    public static final int WRITE_ID_OFFSET = 24;
    public static final int REQUEST_LENGTH = 32;

    public static final int STATUS_OFFSET = 0;
    public static final int CHUNK_LENGTH_OFFSET = 4;
    public static final int REPLY_CORRELATION_OFFSET = 8;
    public static final int CHUNK_OFFSET_OFFSET = 16;
    public static final int CHUNK_GENERATION_OFFSET = 24;
    public static final int RING_EPOCH_OFFSET = 24;
    public static final int REPLY_LENGTH = 32;

    /** @return why a PERSIST or SYNC answered {@code status} got no key on disk, for an error's text. */
    public static String why(final int status)
    {
        return switch (status)
        {
            case NOT_PERSISTENT -> "it keeps nothing on disk";
            case DISK_FAILED -> "its disk refused the write (full or failing: its log names the file); the key is " +
                "in its memory and goes to disk once the disk takes writes again: free space in the node's " +
                "--data-dir, or move it to a larger disk";
            case GONE -> "the block holds another write (the node restarted since it was read)";
            case BAD_REQUEST -> "the node refused the request";
            default -> "status " + status;
        };
    }

    /** @return the length of a PERSIST_BLOCKS of {@code count} blocks: never under {@link #REQUEST_LENGTH}. */
    public static int persistBlocksLength(final int count)
    {
        return Math.max(REQUEST_LENGTH, BLOCK_OFFSET + count * NOTICE_LENGTH);
    }

    private MemoryNodeProtocol()
    {
    }
}
