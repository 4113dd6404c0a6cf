package io.dkv.verbs.shm;

import io.dkv.verbs.VerbsException;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.shm.ShmQueueDescriptor.*;

/**
 * Flyweight over a mapped queue file (see {@link ShmQueueDescriptor}).
 */
final class ShmQueueFile
{
    /** Held so that an automatically managed mapping stays mapped while the buffers below use its address. */
    private final MemorySegment segment;
    private final UnsafeBuffer header;
    private final int ackMask;
    private final long ringOffset;
    private final ManyToOneRingBuffer ring;

    private ShmQueueFile(final MemorySegment segment)
    {
        this.segment = segment;
        this.header = new UnsafeBuffer(segment.address(), (int)segment.byteSize());
        final int ackSlots = header.getInt(ACK_SLOTS_OFFSET);
        final int ringLength = header.getInt(RING_LENGTH_OFFSET);
        this.ackMask = ackSlots - 1;
        this.ringOffset = ShmQueueDescriptor.ringOffset(ackSlots);
        this.ring = ringLength == 0 ? null : new ManyToOneRingBuffer(
            new UnsafeBuffer(segment.address() + ringOffset, ringLength + RingBufferDescriptor.TRAILER_LENGTH));
    }

    static ShmQueueFile create(
        final MemorySegment segment, final int kind, final int number, final int ackSlots, final int ringLength)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(segment.address(), (int)segment.byteSize());
        buffer.putInt(KIND_OFFSET, kind);
        buffer.putInt(NUMBER_OFFSET, number);
        buffer.putInt(ACK_SLOTS_OFFSET, ackSlots);
        buffer.putInt(RING_LENGTH_OFFSET, ringLength);
        for (int i = 0; i < ackSlots; i++)
        {
            buffer.putLong((int)ackOffset() + i * ACK_SLOT_LENGTH, EMPTY_ACK);
        }
        buffer.putLongOrdered(MAGIC_OFFSET, MAGIC);
        return new ShmQueueFile(segment);
    }

    static ShmQueueFile attach(final MemorySegment segment, final String name)
    {
        if (segment.byteSize() < HEADER_LENGTH)
        {
            throw new VerbsException("shm queue file " + name + " is truncated");
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(segment.address(), HEADER_LENGTH);
        if (buffer.getLongVolatile(MAGIC_OFFSET) != MAGIC)
        {
            throw new VerbsException("shm queue file " + name + " has an unknown layout");
        }
        final long expected = fileLength(buffer.getInt(ACK_SLOTS_OFFSET), buffer.getInt(RING_LENGTH_OFFSET));
        if (segment.byteSize() < expected)
        {
            throw new VerbsException("shm queue file " + name + " is " + segment.byteSize() + " bytes; it needs " +
                expected);
        }
        return new ShmQueueFile(segment);
    }

    MemorySegment segment()
    {
        return segment;
    }

    /** @return the receive ring, or null for a send-only queue. */
    ManyToOneRingBuffer ring()
    {
        return ring;
    }

    /** @return offset of the ring's first byte in {@link #segment()}. */
    long ringOffset()
    {
        return ringOffset;
    }

    int kind()
    {
        return header.getInt(KIND_OFFSET);
    }

    boolean isClosed()
    {
        return header.getIntVolatile(CLOSED_OFFSET) != 0;
    }

    void markClosed()
    {
        header.putIntVolatile(CLOSED_OFFSET, 1);
    }

    void markOpen()
    {
        header.putIntVolatile(CLOSED_OFFSET, 0);
    }

    /** Acknowledge the sender's request {@code psn} with a status code. */
    void ack(final int psn, final int status)
    {
        header.putLongVolatile((int)ackOffset() + (psn & ackMask) * ACK_SLOT_LENGTH, ackWord(psn, status));
    }

    long ackWordAt(final int psn)
    {
        return header.getLongVolatile((int)ackOffset() + (psn & ackMask) * ACK_SLOT_LENGTH);
    }
}
