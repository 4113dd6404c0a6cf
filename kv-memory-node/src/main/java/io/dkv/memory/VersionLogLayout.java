package io.dkv.memory;

/**
 * The version log's files (kv-memory-node/README.md, "Next, as they will be built"): a memory node's versions appended
 * in the order it takes its writers' notices, in segment files beside its key store, read back whole only by a
 * rollback to the pool's cut.
 *
 * <pre>
 * segment file  versions/segment-SSSSSSSSSSSSSSSS.log, S its sequence in hex (16 digits), counted from 1
 *   0  magic        int    {@link #MAGIC} ("DKVL")
 *   4  format       int    {@link #FORMAT}
 *   8  sequence     long   the segment's sequence, as its name says
 *  16  records, one after another, to the end of what was written
 *
 * record (big-endian)
 *   0  length       int    bytes of the whole record, this word included: at least {@link #RECORD_HEADER_LENGTH}
 *   4  checksum     int    CRC32C of bytes 8 to length
 *   8  epoch        long   the write's epoch (its block's)
 *  16  writeId      long   the write's id
 *  24  previous     long   the low 48 bits of the write id of the version it replaced, 0: none; bit 62 as the key
 *                          store's ({@code KeyStore.SYNC_VERSION})
 *  32  expireAt     long   as the block's: a tombstone's says so, with no value
 *  40  keyLength    int    {@link #CUT_KEY_LENGTH} for a cut record (below)
 *  44  key, then the value (length - 44 - keyLength bytes)
 *
 * cut record: keyLength {@link #CUT_KEY_LENGTH}, no key and no value, epoch the cut C: the node was rolled back to
 *   C, so every version before this record whose epoch is above C is void (never a key's version again)
 * </pre>
 *
 * A record cut short by a crash (its length past the file's end, or its checksum wrong) can only be the last one of
 * the last segment, whose writes had not all reached the disk: the log ends before it. Anywhere else it is damage.
 */
final class VersionLogLayout
{
    static final int MAGIC = 0x444b_564c;
    static final int FORMAT = 1;
    static final int FILE_HEADER_LENGTH = 16;
    static final int MAGIC_OFFSET = 0;
    static final int FORMAT_OFFSET = 4;
    static final int SEQUENCE_OFFSET = 8;

    static final int LENGTH_OFFSET = 0;
    static final int CHECKSUM_OFFSET = 4;
    static final int EPOCH_OFFSET = 8;
    static final int WRITE_ID_OFFSET = 16;
    static final int PREVIOUS_OFFSET = 24;
    static final int EXPIRE_AT_OFFSET = 32;
    static final int KEY_LENGTH_OFFSET = 40;
    static final int RECORD_HEADER_LENGTH = 44;
    /** What a cut record's key length says: no key of a version is shorter than 0 bytes. */
    static final int CUT_KEY_LENGTH = -1;
    /** The bytes the checksum covers start here: everything after the length and the checksum. */
    static final int CHECKED_OFFSET = EPOCH_OFFSET;

    static final String DIRECTORY = "versions";
    private static final String PREFIX = "segment-";
    private static final String SUFFIX = ".log";

    private VersionLogLayout()
    {
    }

    static String fileName(final long sequence)
    {
        return PREFIX + String.format("%016x", sequence) + SUFFIX;
    }

    /** @return the sequence a segment file's name says, or -1 when the name is no segment's. */
    static long sequenceOf(final String fileName)
    {
        if (!fileName.startsWith(PREFIX) || !fileName.endsWith(SUFFIX) ||
            fileName.length() != PREFIX.length() + 16 + SUFFIX.length())
        {
            return -1;
        }
        try
        {
            return Long.parseUnsignedLong(fileName.substring(PREFIX.length(), PREFIX.length() + 16), 16);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    static int recordLength(final int keyLength, final int valueLength)
    {
        return RECORD_HEADER_LENGTH + keyLength + valueLength;
    }
}
