package io.dkv.raas.driver;

import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

import java.lang.foreign.MemorySegment;

/**
 * Registered buffers that bytes are copied into before they are sent: messages too large for a
 * slot's staging memory, and one-sided transfers between the staging size and the copy threshold.
 * A request borrows one and its completion gives it back.
 */
final class SendBuffers
{
    private static final int COUNT = 64;

    /** A registered buffer of the pool: its index, and where it starts in the pool's region. */
    record SendBuffer(int index, long offset)
    {
    }

    private final MemoryRegion pool;
    private final int bufferBytes;
    private final SendBuffer[] buffers = new SendBuffer[COUNT];
    private final ManyToManyConcurrentArrayQueue<SendBuffer> free = new ManyToManyConcurrentArrayQueue<>(COUNT);

    SendBuffers(final ProtectionDomain pd, final int bufferBytes)
    {
        this.bufferBytes = bufferBytes;
        this.pool = pd.allocate((long)COUNT * bufferBytes, Access.LOCAL_WRITE);
        for (int i = 0; i < COUNT; i++)
        {
            buffers[i] = new SendBuffer(i, (long)i * bufferBytes);
            free.offer(buffers[i]);
        }
    }

    /** @return bytes of each buffer. */
    int bufferBytes()
    {
        return bufferBytes;
    }

    /** @return the region all buffers are part of, for a work request's local memory. */
    MemoryRegion region()
    {
        return pool;
    }

    /** @return the memory of {@code length} bytes of a buffer, from its start. */
    MemorySegment memory(final SendBuffer buffer, final int length)
    {
        return pool.segment().asSlice(buffer.offset(), length);
    }

    /** @return the whole pool's memory, to copy into a buffer at its offset. */
    MemorySegment segment()
    {
        return pool.segment();
    }

    /**
     * A free buffer, waiting for one while requests complete.
     *
     * @param pipeline polled while every buffer is lent.
     */
    SendBuffer acquire(final RequestPipeline pipeline)
    {
        SendBuffer buffer;
        int spins = 0;
        while ((buffer = free.poll()) == null)
        {
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
            }
        }
        return buffer;
    }

    void release(final int index)
    {
        free.offer(buffers[index]);
    }
}
