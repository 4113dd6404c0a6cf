package io.dkv.raas;

import java.lang.foreign.MemorySegment;

/**
 * A message handed over without a copy ({@link Connection#recvZeroCopy}): a view of the driver's
 * registered memory, valid until {@link #release()} gives the buffer back for the next message.
 */
public interface ReceivedMessage extends AutoCloseable
{
    /** @return the message bytes. */
    MemorySegment payload();

    /** Give the buffer back; the payload must not be used afterwards. */
    void release();

    default void close()
    {
        release();
    }
}
