package io.dkv.format;

/**
 * A persist ring: a chunk of a memory node's heap ({@link MemoryNodeProtocol#PERSIST_RING}) into which one client
 * thread writes, by one-sided WRITE, the offsets of the blocks its writes changed on the node under durability async
 * (appendfsync everysec), and which the node's request server reads each turn: the PERSIST_BLOCKS message without
 * the message, so that telling a node of a write costs the node no wake-up and no receive.
 *
 * <pre>
 * ring (a heap chunk, zeroed by the node when it hands it out)
 *   0  consumed      long   entries the node has taken, counted from the ring's start; written by the node only
 *   8  markPosition  long   the client's mark (below): the entries it covers, counted as consumed is
 *  16  markEpoch     long   the epoch through which the client has told the node of every write of its
 *  24  markCheck     long   markPosition ^ markEpoch ^ {@link #MARK_SALT}: a mark read while written fails it
 *  32  reserved      32 bytes
 *  64  entries   (chunk length - 64) / 16 of them; entry p of the client's count goes to slot p % entries
 *
 * entry (16 bytes, two aligned longs, big-endian as every heap field)
 *   byte 0      tag       0x80 | lap % 128, where lap = p / entries: never 0, so a zeroed slot is no entry
 *   bytes 1-6   block     the block's heap offset / 64 (blocks are 64-byte aligned), shifted left by one, and in the
 *                         low bit LAST: the entry ends its group
 *   byte 7      tag       the same tag again
 *   byte 8      tag       the same tag again
 *   bytes 9-14  previous  the low 48 bits of the write id of the version the block's write replaced on this node
 *                         (0: none, the key had no value there; a delete names the block it emptied and that
 *                         block's own write), so that the node can order a key's versions
 *   byte 15     tag       the same tag again
 * </pre>
 *
 * An entry is whole when all four of its tags are its lap's: a WRITE copies bytes in order, up or down, so a slot
 * read while it is written shows a prefix or a suffix of the new bytes, and its first or its last tag is still the
 * previous lap's (or 0); bytes placed in some other order leave one of the four old.
 * A group is what one flush of the client told the node (a loop turn's writes there, a transaction's among them):
 * the node takes a group only once every entry of it, up to the one marked LAST, is whole, and writes it to disk in
 * one batch, as it does a PERSIST_BLOCKS message's blocks, whatever order a NIC placed the WRITE's bytes in. A block
 * offset taken wrong would only make the node write some key's current state to disk again: it looks the key up and
 * writes what its index holds. The client never writes past what the node has taken ({@code consumed} read back
 * when the ring looks full) and says a full ring's blocks in a message instead.
 *
 * <p>The mark (kv-memory-node/README.md, "Async across nodes"): the client has told the node, in the entries before
 * {@code markPosition}, of every write of its of epoch {@code markEpoch} or before. The node counts a mark once it has
 * taken the ring to its position, and keeps the greatest: a mark true when written stays true (every later write of
 * the client is of a later epoch), so marks that land out of order, or written by another thread of the client for
 * an idle one, are harmless. A mark read while a WRITE changes it fails its check and waits a turn; one spliced from
 * two whole marks passes it only where the two agree on the words it takes from each.
 */
public final class PersistRingLayout
{
    public static final int CONSUMED_OFFSET = 0;
    public static final int MARK_POSITION_OFFSET = 8;
    public static final int MARK_EPOCH_OFFSET = 16;
    public static final int MARK_CHECK_OFFSET = 24;
    /** What a mark's check word mixes in, so that a zeroed header is no mark. */
    public static final long MARK_SALT = 0x444b_4d41_524b_0001L;
    public static final int HEADER_LENGTH = 64;
    public static final int ENTRY_LENGTH = 2 * Long.BYTES;
    /**
     * What a client asks for: 8,188 entries, far more than a loop turn's writes, as many as 64 KiB held of the
     * 8-byte entries before they named the version replaced (a pipelined loop's ring full is a loop waiting).
     */
    public static final int RING_LENGTH = 128 * 1024;

    private static final int TAG_SHIFT = 56;
    private static final int BLOCK_SHIFT = 8;
    private static final long BLOCK_MASK = (1L << 48) - 1;
    /** The bits of a write id a notice carries as the previous version's. */
    public static final long PREVIOUS_MASK = BLOCK_MASK;

    private static final int BLOCK_ALIGNMENT_SHIFT = 6;

    private PersistRingLayout()
    {
    }

    /** @return the check word of a mark covering {@code position} entries through {@code epoch}. */
    public static long markCheck(final long position, final long epoch)
    {
        return position ^ epoch ^ MARK_SALT;
    }

    /** @return the entries a ring of {@code chunkLength} bytes holds (0 when too short for any). */
    public static int entries(final int chunkLength)
    {
        return Math.max(0, (chunkLength - HEADER_LENGTH) / ENTRY_LENGTH);
    }

    /** @return where, from the ring's start, entry {@code position} goes. */
    public static long entryOffset(final long position, final int entries)
    {
        return HEADER_LENGTH + (position % entries) * ENTRY_LENGTH;
    }

    /** @return the tag of entry {@code position}: its lap's, never 0. */
    public static int tag(final long position, final int entries)
    {
        return 0x80 | (int)((position / entries) & 0x7f);
    }

    /**
     * @param last the entry ends its group.
     * @return entry {@code position} naming the block at {@code blockOffset} (64-byte aligned, under 2^53).
     */
    public static long entry(final long position, final int entries, final long blockOffset, final boolean last)
    {
        final long tag = tag(position, entries);
        final long field = (blockOffset >>> BLOCK_ALIGNMENT_SHIFT) << 1 | (last ? 1 : 0);
        return tag << TAG_SHIFT | (field & BLOCK_MASK) << BLOCK_SHIFT | tag;
    }

    /**
     * @return the second word of entry {@code position}: the low 48 bits of {@code previousWriteId}, the write id of
     * the version the block's write replaced ({@link KvBlockLayout#NO_WRITE}: none).
     */
    public static long previous(final long position, final int entries, final long previousWriteId)
    {
        final long tag = tag(position, entries);
        return tag << TAG_SHIFT | (previousWriteId & PREVIOUS_MASK) << BLOCK_SHIFT | tag;
    }

    /** @return the low 48 bits of the previous version's write id a whole entry's second word carries. */
    public static long previousWriteId(final long second)
    {
        return (second >>> BLOCK_SHIFT) & PREVIOUS_MASK;
    }

    /** @return true when a whole entry ends its group. */
    public static boolean isLast(final long entry)
    {
        return ((entry >>> BLOCK_SHIFT) & 1) != 0;
    }

    /**
     * @return true when the entry whose words are {@code first} and {@code second}, read at slot {@code position}, is
     * whole and of that position's lap.
     */
    public static boolean isEntry(final long first, final long second, final long position, final int entries)
    {
        final int tag = tag(position, entries);
        return (int)(first >>> TAG_SHIFT) == tag && (int)(first & 0xff) == tag &&
            (int)(second >>> TAG_SHIFT) == tag && (int)(second & 0xff) == tag;
    }

    /** @return the heap offset of the block a whole entry names. */
    public static long blockOffset(final long entry)
    {
        return ((entry >>> BLOCK_SHIFT) & BLOCK_MASK) >>> 1 << BLOCK_ALIGNMENT_SHIFT;
    }
}
