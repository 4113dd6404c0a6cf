package io.dkv.verbs.shm;

import org.agrona.concurrent.UnsafeBuffer;

import static io.dkv.verbs.shm.ShmControlDescriptor.*;

/**
 * A consistent copy of one endpoint table entry, filled by {@link ShmControlFile#readEndpoint}.
 */
final class ShmEndpointEntry implements ShmTableEntry
{
    int number;
    int kind;
    int state;
    int pdId;
    int access;
    int qkey;
    long dcKey;
    long fileSeq;

    public void copyFrom(final UnsafeBuffer buffer, final int offset)
    {
        number = buffer.getInt(offset + EP_NUMBER_OFFSET);
        kind = buffer.getInt(offset + EP_KIND_OFFSET);
        state = buffer.getInt(offset + EP_STATE_OFFSET);
        pdId = buffer.getInt(offset + EP_PD_OFFSET);
        access = buffer.getInt(offset + EP_ACCESS_OFFSET);
        qkey = buffer.getInt(offset + EP_QKEY_OFFSET);
        dcKey = buffer.getLong(offset + EP_DC_KEY_OFFSET);
        fileSeq = buffer.getLong(offset + EP_FILE_SEQ_OFFSET);
    }
}
