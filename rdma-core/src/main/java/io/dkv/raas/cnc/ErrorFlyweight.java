package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * ERROR: a command failed, and why (see {@link CommandDescriptor}).
 */
public final class ErrorFlyweight extends CorrelatedFlyweight
{
    /** @return bytes of an ERROR carrying a message of {@code messageBytes} bytes. */
    public static int length(final int messageBytes)
    {
        return ERROR_MESSAGE_OFFSET + messageBytes;
    }

    public ErrorFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @param messageLength of the response, as the ring buffer framed it: the text never reads past it.
     * @return the driver's message.
     */
    public String message(final int messageLength)
    {
        final int length =
            Math.min(buffer.getInt(offset + ERROR_MESSAGE_LENGTH_OFFSET), messageLength - ERROR_MESSAGE_OFFSET);
        return string(ERROR_MESSAGE_OFFSET, Math.max(0, length));
    }

    /**
     * @param message UTF-8.
     * @param length  bytes of it to write: what the response was claimed for.
     */
    public ErrorFlyweight message(final byte[] message, final int length)
    {
        buffer.putInt(offset + ERROR_MESSAGE_LENGTH_OFFSET, length);
        buffer.putBytes(offset + ERROR_MESSAGE_OFFSET, message, 0, length);
        return this;
    }
}
