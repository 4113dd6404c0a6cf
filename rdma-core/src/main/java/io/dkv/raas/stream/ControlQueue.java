package io.dkv.raas.stream;

import io.dkv.raas.Connection;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The control messages (HELLO, ADVERT, ACK, FIN) an end has decided to send and not yet sent, in order:
 * each goes when the peer has granted a message credit, so that no thread ever waits inside a send.
 * Preallocated; used under the stream's state lock.
 */
final class ControlQueue
{
    private final MemorySegment slots;
    private final int capacity;
    private int head;
    private int count;
    private MemorySegment last;

    ControlQueue(final Arena arena, final int capacity)
    {
        this.capacity = capacity;
        this.slots = arena.allocate((long)capacity * StreamMessages.HEADER_LENGTH, 8);
    }

    boolean isEmpty()
    {
        return count == 0;
    }

    boolean hasRoom()
    {
        return count < capacity;
    }

    /** Queue a message; {@link #region} may then add a region to it. */
    ControlQueue add(
        final byte type, final byte kind, final int phase, final long sequence, final int length, final int id,
        final long offset)
    {
        if (count == capacity)
        {
            throw new IllegalStateException(capacity + " control messages wait for credits already");
        }
        last = slot((head + count) % capacity);
        count++;
        StreamMessages.header(last, type, kind, phase, sequence, length, id, offset);
        return this;
    }

    void region(final long address, final long length, final long epoch, final int rkey)
    {
        StreamMessages.region(last, address, length, epoch, rkey);
    }

    /** @return messages sent, in order, until the peer's credits ran out or none was left. */
    int flush(final Connection connection)
    {
        int sent = 0;
        while (count > 0 && connection.trySend(slots, (long)head * StreamMessages.HEADER_LENGTH,
            StreamMessages.HEADER_LENGTH))
        {
            head = (head + 1) % capacity;
            count--;
            sent++;
        }
        return sent;
    }

    private MemorySegment slot(final int index)
    {
        return slots.asSlice((long)index * StreamMessages.HEADER_LENGTH, StreamMessages.HEADER_LENGTH);
    }
}
