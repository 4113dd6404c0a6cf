package io.dkv.verbs.shm;

import io.dkv.verbs.VerbsException;
import io.dkv.verbs.soft.ProcessLiveness;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static io.dkv.verbs.shm.ShmControlDescriptor.*;

/**
 * Flyweight over a mapped control file (see {@link ShmControlDescriptor}): the owner writes its
 * tables, peers read them with seqlock-consistent copies.
 */
final class ShmControlFile
{
    /** Spins over an entry being written before its owner's process is looked at: a write takes nanoseconds. */
    static final int SPINS_BEFORE_LIVENESS_CHECK = 1 << 12;

    /**
     * Held so that an automatically managed mapping stays mapped as long as this flyweight is used:
     * the buffer below knows only the address.
     */
    private final MemorySegment segment;
    private final UnsafeBuffer buffer;
    private final int mrCapacity;
    private final int endpointCapacity;
    private final long mrOffset;
    private final long endpointOffset;

    private ShmControlFile(final MemorySegment segment)
    {
        this.segment = segment;
        this.buffer = new UnsafeBuffer(segment.address(), (int)segment.byteSize());
        this.mrCapacity = buffer.getInt(MR_CAPACITY_OFFSET);
        this.endpointCapacity = buffer.getInt(ENDPOINT_CAPACITY_OFFSET);
        this.mrOffset = buffer.getLong(MR_TABLE_OFFSET_OFFSET);
        this.endpointOffset = buffer.getLong(ENDPOINT_TABLE_OFFSET_OFFSET);
    }

    static ShmControlFile create(
        final MemorySegment segment, final long deviceId, final long pid, final int mrCapacity,
        final int endpointCapacity)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(segment.address(), (int)segment.byteSize());
        buffer.putLong(DEVICE_ID_OFFSET, deviceId);
        buffer.putLong(PID_OFFSET, pid);
        buffer.putInt(MR_CAPACITY_OFFSET, mrCapacity);
        buffer.putInt(ENDPOINT_CAPACITY_OFFSET, endpointCapacity);
        buffer.putLong(MR_TABLE_OFFSET_OFFSET, mrTableOffset());
        buffer.putLong(ENDPOINT_TABLE_OFFSET_OFFSET, endpointTableOffset(mrCapacity));
        buffer.putInt(VERSION_OFFSET, LAYOUT_VERSION);
        buffer.putLongOrdered(MAGIC_OFFSET, MAGIC);
        return new ShmControlFile(segment);
    }

    static ShmControlFile attach(final MemorySegment segment, final String name)
    {
        if (segment.byteSize() < HEADER_LENGTH)
        {
            throw new VerbsException("shm control file " + name + " is truncated: " + segment.byteSize() + " bytes");
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(segment.address(), HEADER_LENGTH);
        if (buffer.getLongVolatile(MAGIC_OFFSET) != MAGIC || buffer.getInt(VERSION_OFFSET) != LAYOUT_VERSION)
        {
            throw new VerbsException("shm control file " + name + " has an unknown layout (magic 0x" +
                Long.toHexString(buffer.getLong(MAGIC_OFFSET)) + ", version " + buffer.getInt(VERSION_OFFSET) + ")");
        }
        final long expected = fileLength(buffer.getInt(MR_CAPACITY_OFFSET), buffer.getInt(ENDPOINT_CAPACITY_OFFSET));
        if (segment.byteSize() < expected)
        {
            throw new VerbsException("shm control file " + name + " is " + segment.byteSize() +
                " bytes; its tables need " + expected);
        }
        return new ShmControlFile(segment);
    }

    int mrCapacity()
    {
        return mrCapacity;
    }

    int endpointCapacity()
    {
        return endpointCapacity;
    }

    long pid()
    {
        return buffer.getLong(PID_OFFSET);
    }

    long deviceId()
    {
        return buffer.getLong(DEVICE_ID_OFFSET);
    }

    boolean isClosed()
    {
        return buffer.getIntVolatile(CLOSED_OFFSET) != 0;
    }

    void markClosed()
    {
        buffer.putIntVolatile(CLOSED_OFFSET, 1);
    }

    void putRegion(
        final int index, final int key, final int pdId, final long base, final long length, final int access,
        final long fileSeq)
    {
        final int offset = regionEntryOffset(index);
        beginWrite(offset);
        buffer.putInt(offset + MR_KEY_OFFSET, key);
        buffer.putInt(offset + MR_PD_OFFSET, pdId);
        buffer.putLong(offset + MR_BASE_OFFSET, base);
        buffer.putLong(offset + MR_LENGTH_OFFSET, length);
        buffer.putInt(offset + MR_ACCESS_OFFSET, access);
        buffer.putLong(offset + MR_FILE_SEQ_OFFSET, fileSeq);
        endWrite(offset);
    }

    void clearRegion(final int index)
    {
        final int offset = regionEntryOffset(index);
        beginWrite(offset);
        buffer.putInt(offset + MR_KEY_OFFSET, 0);
        buffer.putInt(offset + MR_ACCESS_OFFSET, 0);
        buffer.putLong(offset + MR_FILE_SEQ_OFFSET, 0);
        endWrite(offset);
    }

    /**
     * @return false when index is outside the table (the entry is then untouched), or its owner died writing it.
     */
    boolean readRegion(final int index, final ShmRegionEntry entry)
    {
        if (index < 0 || index >= mrCapacity)
        {
            return false;
        }
        return readConsistent(regionEntryOffset(index), entry);
    }

    void putEndpoint(
        final int index,
        final int number,
        final int kind,
        final int state,
        final int pdId,
        final int access,
        final int qkey,
        final long dcKey,
        final long fileSeq)
    {
        final int offset = endpointEntryOffset(index);
        beginWrite(offset);
        buffer.putInt(offset + EP_NUMBER_OFFSET, number);
        buffer.putInt(offset + EP_KIND_OFFSET, kind);
        buffer.putInt(offset + EP_STATE_OFFSET, state);
        buffer.putInt(offset + EP_PD_OFFSET, pdId);
        buffer.putInt(offset + EP_ACCESS_OFFSET, access);
        buffer.putInt(offset + EP_QKEY_OFFSET, qkey);
        buffer.putLong(offset + EP_DC_KEY_OFFSET, dcKey);
        buffer.putLong(offset + EP_FILE_SEQ_OFFSET, fileSeq);
        endWrite(offset);
    }

    void putEndpointState(final int index, final int state, final int access, final int qkey)
    {
        final int offset = endpointEntryOffset(index);
        beginWrite(offset);
        buffer.putInt(offset + EP_STATE_OFFSET, state);
        buffer.putInt(offset + EP_ACCESS_OFFSET, access);
        buffer.putInt(offset + EP_QKEY_OFFSET, qkey);
        endWrite(offset);
    }

    void clearEndpoint(final int index)
    {
        final int offset = endpointEntryOffset(index);
        beginWrite(offset);
        buffer.putInt(offset + EP_NUMBER_OFFSET, 0);
        buffer.putInt(offset + EP_KIND_OFFSET, 0);
        buffer.putLong(offset + EP_FILE_SEQ_OFFSET, 0);
        endWrite(offset);
    }

    /**
     * @param number QP or DCT number.
     * @return false when no live endpoint has that number.
     */
    boolean readEndpoint(final int number, final ShmEndpointEntry entry)
    {
        return readConsistent(endpointEntryOffset(number & (endpointCapacity - 1)), entry) &&
            entry.number == number && number != 0;
    }

    /**
     * Copy the entry at {@code offset} as it was between two writes, however often a write overlaps the copy.
     *
     * @return false when the owner died in the middle of writing it: the entry stays half-written for ever, and its
     * device, gone, serves nothing (a reader that waited on it would hang the thread, a driver's poller say).
     */
    private boolean readConsistent(final int offset, final ShmTableEntry entry)
    {
        for (int spins = 1; ; spins++)
        {
            final long before = buffer.getLongVolatile(offset + ENTRY_VERSION_OFFSET);
            if ((before & 1) == 0)
            {
                entry.copyFrom(buffer, offset);
                VarHandle.loadLoadFence();
                if (buffer.getLongVolatile(offset + ENTRY_VERSION_OFFSET) == before)
                {
                    return true;
                }
            }
            if ((spins & (SPINS_BEFORE_LIVENESS_CHECK - 1)) == 0)
            {
                if (!ProcessLiveness.isAlive(pid()))
                {
                    return false;
                }
                // a writer paused midway (SIGSTOP, descheduled): wait without holding the core it needs
                Thread.yield();
            }
            Thread.onSpinWait();
        }
    }

    private int regionEntryOffset(final int index)
    {
        return (int)(mrOffset + (long)index * ENTRY_LENGTH);
    }

    private int endpointEntryOffset(final int index)
    {
        return (int)(endpointOffset + (long)index * ENTRY_LENGTH);
    }

    private void beginWrite(final int offset)
    {
        final long version = buffer.getLong(offset + ENTRY_VERSION_OFFSET);
        buffer.putLongVolatile(offset + ENTRY_VERSION_OFFSET, version + 1);
        VarHandle.storeStoreFence();
    }

    private void endWrite(final int offset)
    {
        final long version = buffer.getLong(offset + ENTRY_VERSION_OFFSET);
        buffer.putLongOrdered(offset + ENTRY_VERSION_OFFSET, version + 1);
    }
}
