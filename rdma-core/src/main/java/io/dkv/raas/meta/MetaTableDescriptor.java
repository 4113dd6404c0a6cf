package io.dkv.raas.meta;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of the MetaServer's tables: one region of registered memory that clients read with
 * one-sided READs and only the MetaServer writes. All numbers are little-endian.
 *
 * <pre>
 * region:  +--------+-------------------+---------------------+-----------------------------+
 *          | header | node slots        | region slots        | members block               |
 *          | 64 B   | nodeSlots x 128 B | regionSlots x 256 B | 40 B + memberSlots x 24 B   |
 *          +--------+-------------------+---------------------+-----------------------------+
 *
 * header:
 *    0  magic              long   {@link #MAGIC}
 *    8  layoutVersion      int    {@link #LAYOUT_VERSION}
 *   12  nodeSlots          int    power of two
 *   16  regionSlots        int    power of two
 *   20  memberSlots        int    capacity of the members block, at most {@link #MAX_MEMBER_SLOTS}
 *   24  serverNodeId       long
 *   32  epoch              long   bumped on every node, member or region change
 *   40  nodeProbeLimit     int    no live node sits further than this from its home slot
 *   44  regionProbeLimit   int    the same for regions
 *   48  reserved           16 bytes
 *
 * node slot (home slot: mix(nodeId) mod nodeSlots, then linear probing):
 *    0  version            long   seqlock: odd while being written, 0 when never written
 *    8  state              int    EMPTY, LIVE or REMOVED (a tombstone probing walks past)
 *   12  role               int
 *   16  nodeId             long
 *   24  dcKey              long
 *   32  epoch              long   incarnation of the node
 *   40  leaseExpiry        long   wall-clock millis
 *   48  dctNumber          int
 *   52  addressLength      int
 *   56  provider           8 bytes, ASCII, zero padded
 *   64  address            32 bytes
 *   96  checksum           long   of the version it was sealed with and bytes 8..96
 *  104  unused, to 128
 *
 * region slot (home slot: hash(UTF-8 name) mod regionSlots, then linear probing):
 *    0  version            long   seqlock
 *    8  state              int
 *   12  nameLength         int    UTF-8 bytes
 *   16  nodeId             long
 *   24  nodeEpoch          long
 *   32  address            long
 *   40  length             long
 *   48  rkey               int
 *   52  access             int
 *   56  layoutVersion      int
 *   60  nameHash           int
 *   64  name               128 bytes
 *  192  checksum           long   of the version it was sealed with and bytes 8..192
 *  200  unused, to 256
 *
 * members block (the memory tier's membership, one seqlock for the whole list):
 *    0  version            long   seqlock
 *    8  epoch              long   membership epoch: bumped by every member, replica count or phase change
 *   16  replicas           int    copies of each key
 *   20  count              int    members, at most memberSlots; the entries after them are zero
 *   24  phase              int    STEADY 0, FILL 1, SWITCH 2, HANDOVER 3, CLEANUP 4: the change in progress
 *   28  reserved           int
 *   32  members            memberSlots x 32 B, each:
 *                            0  nodeId       long
 *                            8  incarnation  long   the node epoch it registered with
 *                           16  state        int    LIVE 1, JOINING 2, DOWN 3, LEAVING 4
 *                           20  placement    int    PLACED_BEFORE 1, PLACED_AFTER 2, PLACED 3
 *                           24  leftLive     long   membership epoch it last stopped serving in, bit 63 set once it
 *                                                   came back as another incarnation; 0 while it serves
 *   32 + memberSlots x 32:
 *       checksum           long   of the version it was sealed with and bytes 8 to the checksum
 * </pre>
 *
 * <p>Why a checksum besides the seqlock version: a READ of a slot is one snapshot only if the
 * device copies the bytes in address order, which RDMA does not promise. The writer makes the
 * version odd, writes the fields, seals the checksum with the next even version, then publishes
 * that version; a reader accepts a slot only when its version is even and the checksum matches the
 * version and fields it read, so a copy that mixes two writes is caught whatever order the bytes
 * were copied in.
 *
 * <p>Why one block for the members rather than a slot each: placement hashes a key over the whole
 * list, so a reader needs one list of one epoch; slots sealed one by one would give each member whole
 * but could mix members of two epochs. The list is small ({@link #MAX_MEMBER_SLOTS} members fit the
 * {@link MetaTableReader}'s buffer in one READ) and read rarely, after a failed request and now and
 * then, so rewriting and reading it whole costs nothing that matters.
 *
 * <p>Why probe limits: removed records stay as tombstones (moving live records would let a
 * concurrent reader miss one), so an absent key is not always ended by an empty slot; the header
 * says how far any live record sits from its home slot.
 */
public final class MetaTableDescriptor
{
    public static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** "dkvmeta1" read as a little-endian long. */
    public static final long MAGIC = 0x316174656d766b64L;
    /**
     * 5: the phase HANDOVER (3) comes before CLEANUP (4, was 3) (4: each member carries when it last left live; 3: the
     * members block carries the change's phase and each member's placement; 2: the members block).
     */
    public static final int LAYOUT_VERSION = 5;

    public static final int MAGIC_OFFSET = 0;
    public static final int LAYOUT_VERSION_OFFSET = 8;
    public static final int NODE_SLOTS_OFFSET = 12;
    public static final int REGION_SLOTS_OFFSET = 16;
    public static final int MEMBER_SLOTS_OFFSET = 20;
    public static final int SERVER_NODE_ID_OFFSET = 24;
    public static final int EPOCH_OFFSET = 32;
    public static final int NODE_PROBE_LIMIT_OFFSET = 40;
    public static final int REGION_PROBE_LIMIT_OFFSET = 44;
    public static final int HEADER_LENGTH = 64;

    /** What a client reads to learn whether anything changed: epoch and both probe limits. */
    public static final int EPOCH_READ_LENGTH = 16;

    public static final int STATE_EMPTY = 0;
    public static final int STATE_LIVE = 1;
    public static final int STATE_REMOVED = 2;
    /** Not a state a slot holds: what {@link #readState} says of a copy that mixes two writes. */
    public static final int TORN = -1;

    public static final int VERSION_OFFSET = 0;
    public static final int STATE_OFFSET = 8;
    /** Fields covered by the checksum start here, in both kinds of slot. */
    public static final int FIELDS_OFFSET = 8;

    public static final int NODE_ROLE_OFFSET = 12;
    public static final int NODE_ID_OFFSET = 16;
    public static final int NODE_DC_KEY_OFFSET = 24;
    public static final int NODE_EPOCH_OFFSET = 32;
    public static final int NODE_LEASE_EXPIRY_OFFSET = 40;
    public static final int NODE_DCT_NUMBER_OFFSET = 48;
    public static final int NODE_ADDRESS_LENGTH_OFFSET = 52;
    public static final int NODE_PROVIDER_OFFSET = 56;
    public static final int NODE_PROVIDER_MAX = 8;
    public static final int NODE_ADDRESS_OFFSET = 64;
    public static final int NODE_ADDRESS_MAX = 32;
    public static final int NODE_CHECKSUM_OFFSET = 96;
    public static final int NODE_SLOT_LENGTH = 128;

    public static final int REGION_NAME_LENGTH_OFFSET = 12;
    public static final int REGION_NODE_ID_OFFSET = 16;
    public static final int REGION_NODE_EPOCH_OFFSET = 24;
    public static final int REGION_ADDRESS_OFFSET = 32;
    public static final int REGION_LENGTH_OFFSET = 40;
    public static final int REGION_RKEY_OFFSET = 48;
    public static final int REGION_ACCESS_OFFSET = 52;
    public static final int REGION_LAYOUT_VERSION_OFFSET = 56;
    public static final int REGION_NAME_HASH_OFFSET = 60;
    public static final int REGION_NAME_OFFSET = 64;
    public static final int REGION_NAME_MAX = 128;
    public static final int REGION_CHECKSUM_OFFSET = 192;
    public static final int REGION_SLOT_LENGTH = 256;

    public static final int MEMBERS_EPOCH_OFFSET = 8;
    public static final int MEMBERS_REPLICAS_OFFSET = 16;
    public static final int MEMBERS_COUNT_OFFSET = 20;
    public static final int MEMBERS_PHASE_OFFSET = 24;
    public static final int MEMBERS_OFFSET = 32;
    public static final int MEMBER_NODE_ID_OFFSET = 0;
    public static final int MEMBER_INCARNATION_OFFSET = 8;
    public static final int MEMBER_STATE_OFFSET = 16;
    public static final int MEMBER_PLACEMENT_OFFSET = 20;
    public static final int MEMBER_LEFT_LIVE_OFFSET = 24;
    public static final int MEMBER_LENGTH = 32;
    /** Bytes of the members block besides its entries: version, epoch, replicas, count, phase and checksum. */
    public static final int MEMBERS_FIXED_LENGTH = 40;
    /** Members a MetaServer's tables hold: the memory tier's largest size. */
    public static final int MEMBER_SLOTS = 64;
    /** Most members any tables may hold: a block of this many fits one READ into a reader's buffer. */
    public static final int MAX_MEMBER_SLOTS = 64;

    private MetaTableDescriptor()
    {
    }

    /** @return bytes of a table region with these slot counts and {@link #MEMBER_SLOTS} members. */
    public static long regionLength(final int nodeSlots, final int regionSlots)
    {
        return regionLength(nodeSlots, regionSlots, MEMBER_SLOTS);
    }

    /** @return bytes of a table region with these slot counts. */
    public static long regionLength(final int nodeSlots, final int regionSlots, final int memberSlots)
    {
        return membersOffset(nodeSlots, regionSlots) + membersLength(memberSlots);
    }

    /** @return where the members block starts. */
    public static long membersOffset(final int nodeSlots, final int regionSlots)
    {
        return HEADER_LENGTH + (long)nodeSlots * NODE_SLOT_LENGTH + (long)regionSlots * REGION_SLOT_LENGTH;
    }

    /** @return bytes of a members block of that capacity. */
    public static int membersLength(final int memberSlots)
    {
        return MEMBERS_FIXED_LENGTH + memberSlots * MEMBER_LENGTH;
    }

    /** @return where the checksum of a members block of that capacity is, from the block's start. */
    public static int membersChecksumOffset(final int memberSlots)
    {
        return MEMBERS_OFFSET + memberSlots * MEMBER_LENGTH;
    }

    public static long nodeSlotOffset(final int slot)
    {
        return HEADER_LENGTH + (long)slot * NODE_SLOT_LENGTH;
    }

    public static long regionSlotOffset(final int nodeSlots, final int slot)
    {
        return HEADER_LENGTH + (long)nodeSlots * NODE_SLOT_LENGTH + (long)slot * REGION_SLOT_LENGTH;
    }

    /** @return the home slot of a node id (slots is a power of two). */
    public static int nodeHome(final long nodeId, final int slots)
    {
        return (int)(mix(nodeId) & (slots - 1));
    }

    /** @return the home slot of a region name whose {@link #nameHash} is given. */
    public static int regionHome(final int nameHash, final int slots)
    {
        return (int)(mix(nameHash & 0xffff_ffffL) & (slots - 1));
    }

    /** @return FNV-1a over the UTF-8 bytes of a name. */
    public static int nameHash(final byte[] utf8)
    {
        int hash = 0x811c9dc5;
        for (final byte b : utf8)
        {
            hash ^= b & 0xff;
            hash *= 0x01000193;
        }
        return hash;
    }

    /** A 64-bit finaliser (SplitMix64's) spreading ids and hashes over the slots. */
    public static long mix(final long value)
    {
        long z = value + 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * @param memory   where the slot is.
     * @param slotBase offset of the slot.
     * @param version  the even version the slot is (to be) published with.
     * @param end      end of the fields: {@link #NODE_CHECKSUM_OFFSET} or {@link #REGION_CHECKSUM_OFFSET}.
     * @return the checksum of the version and the fields [8, end) of the slot.
     */
    public static long checksum(final MemorySegment memory, final long slotBase, final long version, final int end)
    {
        long hash = mix(version);
        for (int offset = FIELDS_OFFSET; offset < end; offset += 8)
        {
            hash = Long.rotateLeft(hash ^ memory.get(LONG, slotBase + offset) * 0xc2b2ae3d27d4eb4fL, 31) *
                0x9e3779b97f4a7c15L;
        }
        return mix(hash);
    }

    /**
     * Judge a members block a READ copied.
     *
     * @return true when the copy is of one published write: its version is even and not 0 (never
     * written), and the checksum matches the version and fields.
     */
    public static boolean isSealed(final MemorySegment memory, final long base, final int checksumOffset)
    {
        final long version = memory.get(LONG, base + VERSION_OFFSET);
        return version != 0 && (version & 1) == 0 &&
            memory.get(LONG, base + checksumOffset) == checksum(memory, base, version, checksumOffset);
    }

    /**
     * Judge a slot a READ copied.
     *
     * @return the slot's state ({@link #STATE_EMPTY} for a slot never written, version 0), or
     * {@link #TORN} when the copy is not of one published write: the version is odd, or the
     * checksum does not match the version and fields.
     */
    public static int readState(final MemorySegment memory, final long slotBase, final int checksumOffset)
    {
        final long version = memory.get(LONG, slotBase + VERSION_OFFSET);
        if (version == 0)
        {
            return STATE_EMPTY;
        }
        if ((version & 1) != 0 ||
            memory.get(LONG, slotBase + checksumOffset) != checksum(memory, slotBase, version, checksumOffset))
        {
            return TORN;
        }
        return memory.get(INT, slotBase + STATE_OFFSET);
    }
}
