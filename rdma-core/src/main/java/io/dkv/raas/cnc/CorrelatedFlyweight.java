package io.dkv.raas.cnc;

import io.dkv.raas.RaasException;
import org.agrona.MutableDirectBuffer;

import java.nio.charset.StandardCharsets;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * How every command and response begins (see {@link CommandDescriptor}): the client it is from or
 * for, and the correlation id that the response echoes. It encodes and decodes ADD_CLIENT and
 * REMOVE_CLIENT, which carry nothing else; a flyweight for each other message extends it.
 *
 * <p>A flyweight wraps a ring buffer's memory at a message's offset and reads or writes its fields
 * in place: nothing is copied or allocated, and one flyweight serves message after message, on one
 * thread at a time.
 */
public class CorrelatedFlyweight
{
    MutableDirectBuffer buffer;
    int offset;

    public CorrelatedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return where the message begins in the buffer: its index in the ring. */
    public int offset()
    {
        return offset;
    }

    public long clientId()
    {
        return buffer.getLong(offset + CLIENT_ID_OFFSET);
    }

    public CorrelatedFlyweight clientId(final long clientId)
    {
        buffer.putLong(offset + CLIENT_ID_OFFSET, clientId);
        return this;
    }

    public long correlationId()
    {
        return buffer.getLong(offset + CORRELATION_OFFSET);
    }

    public CorrelatedFlyweight correlationId(final long correlationId)
    {
        buffer.putLong(offset + CORRELATION_OFFSET, correlationId);
        return this;
    }

    /** Write bytes after their length: a name, a message, an address. */
    final void putLengthPrefixed(final int lengthOffset, final int bytesOffset, final byte[] bytes)
    {
        buffer.putInt(offset + lengthOffset, bytes.length);
        buffer.putBytes(offset + bytesOffset, bytes);
    }

    /**
     * A region name a client sent, checked: names are bounded, and one must lie inside its message.
     *
     * @param messageLength of the message, as the ring buffer framed it.
     * @throws RaasException when the name's length is out of bounds.
     */
    final String name(final int lengthOffset, final int bytesOffset, final int messageLength)
    {
        final int length = buffer.getInt(offset + lengthOffset);
        if (length < 0 || length > MAX_NAME_LENGTH || bytesOffset + length > messageLength)
        {
            throw new RaasException("name of " + length + " bytes (at most " + MAX_NAME_LENGTH + ")");
        }
        return string(bytesOffset, length);
    }

    final String string(final int bytesOffset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset + bytesOffset, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
