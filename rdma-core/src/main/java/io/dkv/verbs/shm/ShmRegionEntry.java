package io.dkv.verbs.shm;

import org.agrona.concurrent.UnsafeBuffer;

import static io.dkv.verbs.shm.ShmControlDescriptor.*;

/**
 * A consistent copy of one MR table entry, filled by {@link ShmControlFile#readRegion}.
 */
final class ShmRegionEntry implements ShmTableEntry
{
    int key;
    int pdId;
    long base;
    long length;
    int access;
    long fileSeq;

    public void copyFrom(final UnsafeBuffer buffer, final int offset)
    {
        key = buffer.getInt(offset + MR_KEY_OFFSET);
        pdId = buffer.getInt(offset + MR_PD_OFFSET);
        base = buffer.getLong(offset + MR_BASE_OFFSET);
        length = buffer.getLong(offset + MR_LENGTH_OFFSET);
        access = buffer.getInt(offset + MR_ACCESS_OFFSET);
        fileSeq = buffer.getLong(offset + MR_FILE_SEQ_OFFSET);
    }
}
