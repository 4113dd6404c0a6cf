package io.dkv.load.bench.raas;

import io.dkv.raas.Connection;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * The server half of a message round trip: a thread that receives each message into a native
 * buffer and sends it back from there, the way it is told to. A message of no bytes stops it.
 * It waits in {@link Connection#recv}, that is in the driver's own wait.
 */
final class MessageEcho implements AutoCloseable
{
    static final Duration WAIT = Duration.ofSeconds(10);
    private static final long JOIN_TIMEOUT_MILLIS = WAIT.toMillis() + 1000;

    private final Connection connection;
    private final MemorySegment buffer;
    private final Thread thread;
    private volatile int flags;
    private volatile Throwable failure;

    /**
     * @param connection the server's end, accepted.
     * @param buffer     where messages land and are sent back from; as large as the largest message.
     */
    MessageEcho(final Connection connection, final MemorySegment buffer)
    {
        this.connection = connection;
        this.buffer = buffer;
        this.thread = new Thread(this::serve, "dkv-bench-message-echo");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * How to send the replies from now on. Read after each receive, so a change made while no
     * message is in flight applies to the next reply.
     */
    void flags(final int flags)
    {
        this.flags = flags;
    }

    /** @return why the echo stopped early, or null. */
    Throwable failure()
    {
        return failure;
    }

    private void serve()
    {
        try
        {
            final int capacity = (int)buffer.byteSize();
            int length;
            while ((length = connection.recv(buffer, 0, capacity, WAIT)) > 0)
            {
                connection.send(buffer, 0, length, flags);
            }
        }
        catch (final Throwable ex)
        {
            failure = ex;
        }
    }

    /**
     * Wait for the thread, which stops on the empty message the client sends last.
     */
    public void close()
    {
        try
        {
            thread.join(JOIN_TIMEOUT_MILLIS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive())
        {
            throw new IllegalStateException("message echo did not stop within " + JOIN_TIMEOUT_MILLIS + " ms");
        }
    }
}
