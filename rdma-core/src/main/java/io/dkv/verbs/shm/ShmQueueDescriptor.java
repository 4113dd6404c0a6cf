package io.dkv.verbs.shm;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Layout of a queue file, one per shm queue pair or DC target: the acknowledgement slots a
 * sender's requests are completed through, and the receive ring senders write messages into.
 *
 * <pre>
 *   0  magic       long
 *   8  kind        int    ShmControlDescriptor.KIND_*
 *  12  number      int    QP or DCT number
 *  16  closed      int    1 once the owner destroyed it or went to ERROR
 *  20  ackSlots    int    power of two, 0 for receive-only queues
 *  24  ringLength  int    ring capacity (power of two), 0 for send-only queues
 *  64  ack slots   ackSlots * 8 bytes: (psn &lt;&lt; 32 | status), -1 when empty; slot = psn &amp; (ackSlots - 1)
 *  ..  ring        Agrona many-to-one ring buffer (ringLength + trailer), 64-byte aligned
 * </pre>
 *
 * The receiver acknowledges a consumed message by writing its psn and status into the sender's
 * slot; the sender completes the request when it sees its own psn there.
 */
public final class ShmQueueDescriptor
{
    public static final long MAGIC = 0x31305545555156L;

    public static final int MAGIC_OFFSET = 0;
    public static final int KIND_OFFSET = 8;
    public static final int NUMBER_OFFSET = 12;
    public static final int CLOSED_OFFSET = 16;
    public static final int ACK_SLOTS_OFFSET = 20;
    public static final int RING_LENGTH_OFFSET = 24;
    public static final int HEADER_LENGTH = 64;
    public static final int ACK_SLOT_LENGTH = 8;
    public static final long EMPTY_ACK = -1L;

    private ShmQueueDescriptor()
    {
    }

    public static long ackOffset()
    {
        return HEADER_LENGTH;
    }

    public static long ringOffset(final int ackSlots)
    {
        final long end = HEADER_LENGTH + (long)ackSlots * ACK_SLOT_LENGTH;
        return (end + 63) & ~63L;
    }

    public static long fileLength(final int ackSlots, final int ringLength)
    {
        return ringOffset(ackSlots) + (ringLength == 0 ? 0 : ringLength + RingBufferDescriptor.TRAILER_LENGTH);
    }

    public static long ackWord(final int psn, final int status)
    {
        return ((long)psn << 32) | (status & 0xFFFF_FFFFL);
    }
}
