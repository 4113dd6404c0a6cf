package io.dkv.raas.stream;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The messages the two ends of a stream exchange, each one RaaS message of a fixed header and, for
 * an inline transfer, its bytes.
 *
 * <pre>
 *   0        1        2                 4                                 8
 *   +--------+--------+-----------------+---------------------------------+
 *   | type   | kind   |    reserved     |             phase               |
 *   +--------+--------+-----------------+---------------------------------+
 *   |                     sequence (long)                                 |  8
 *   +-----------------------------------+---------------------------------+
 *   |            length                 |             id                  | 16
 *   +-----------------------------------+---------------------------------+
 *   |                     region address (long)                           | 24
 *   |                     region length (long)                            | 32
 *   |                     offset (long)                                   | 40
 *   |                     region epoch (long)                             | 48
 *   +-----------------------------------+---------------------------------+
 *   |            rkey                   |             reserved            | 56
 *   +-----------------------------------+---------------------------------+
 *   |                     inline bytes (DATA of kind INLINE) ...          | 64
 * </pre>
 *
 * <ul>
 *     <li>HELLO: the sender's stream buffer (region address, length, epoch, rkey).</li>
 *     <li>DATA: {@code length} bytes of the stream from byte {@code sequence}, sent in {@code phase}; DIRECT into
 *     the advertised buffer {@code id}, INDIRECT into the stream buffer at {@code offset}, or INLINE (bytes
 *     follow, for the receiver to place in its stream buffer at {@code offset}).</li>
 *     <li>ADVERT: buffer {@code id} of {@code length} bytes at {@code offset} of a region, for the bytes from
 *     (the receiver's estimate of) {@code sequence} on, in {@code phase}.</li>
 *     <li>ACK: the receiver copied {@code sequence} bytes out of its stream buffer in all.</li>
 *     <li>FIN: the sender wrote {@code sequence} bytes in all and will write no more.</li>
 * </ul>
 * Numbers are big-endian.
 */
final class StreamMessages
{
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    static final byte HELLO = 1;
    static final byte DATA = 2;
    static final byte ADVERT = 3;
    static final byte ACK = 4;
    static final byte FIN = 5;

    static final byte DIRECT = 1;
    static final byte INDIRECT = 2;
    static final byte INLINE = 3;

    static final int TYPE_OFFSET = 0;
    static final int KIND_OFFSET = 1;
    static final int PHASE_OFFSET = 4;
    static final int SEQUENCE_OFFSET = 8;
    static final int LENGTH_OFFSET = 16;
    static final int ID_OFFSET = 20;
    static final int REGION_ADDRESS_OFFSET = 24;
    static final int REGION_LENGTH_OFFSET = 32;
    static final int OFFSET_OFFSET = 40;
    static final int EPOCH_OFFSET = 48;
    static final int RKEY_OFFSET = 56;
    static final int HEADER_LENGTH = 64;

    private StreamMessages()
    {
    }

    static void header(
        final MemorySegment message, final byte type, final byte kind, final int phase, final long sequence,
        final int length, final int id, final long offset)
    {
        message.fill((byte)0);
        message.set(ValueLayout.JAVA_BYTE, TYPE_OFFSET, type);
        message.set(ValueLayout.JAVA_BYTE, KIND_OFFSET, kind);
        message.set(INT, PHASE_OFFSET, phase);
        message.set(LONG, SEQUENCE_OFFSET, sequence);
        message.set(INT, LENGTH_OFFSET, length);
        message.set(INT, ID_OFFSET, id);
        message.set(LONG, OFFSET_OFFSET, offset);
    }

    static void region(
        final MemorySegment message, final long address, final long length, final long epoch, final int rkey)
    {
        message.set(LONG, REGION_ADDRESS_OFFSET, address);
        message.set(LONG, REGION_LENGTH_OFFSET, length);
        message.set(LONG, EPOCH_OFFSET, epoch);
        message.set(INT, RKEY_OFFSET, rkey);
    }

    static byte type(final MemorySegment message)
    {
        return message.get(ValueLayout.JAVA_BYTE, TYPE_OFFSET);
    }

    static byte kind(final MemorySegment message)
    {
        return message.get(ValueLayout.JAVA_BYTE, KIND_OFFSET);
    }

    static int phase(final MemorySegment message)
    {
        return message.get(INT, PHASE_OFFSET);
    }

    static long sequence(final MemorySegment message)
    {
        return message.get(LONG, SEQUENCE_OFFSET);
    }

    static int length(final MemorySegment message)
    {
        return message.get(INT, LENGTH_OFFSET);
    }

    static int id(final MemorySegment message)
    {
        return message.get(INT, ID_OFFSET);
    }

    static long offset(final MemorySegment message)
    {
        return message.get(LONG, OFFSET_OFFSET);
    }

    static long regionAddress(final MemorySegment message)
    {
        return message.get(LONG, REGION_ADDRESS_OFFSET);
    }

    static long regionLength(final MemorySegment message)
    {
        return message.get(LONG, REGION_LENGTH_OFFSET);
    }

    static long epoch(final MemorySegment message)
    {
        return message.get(LONG, EPOCH_OFFSET);
    }

    static int rkey(final MemorySegment message)
    {
        return message.get(INT, RKEY_OFFSET);
    }
}
