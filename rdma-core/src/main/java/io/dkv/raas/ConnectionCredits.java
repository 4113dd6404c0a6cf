package io.dkv.raas;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The credits of one logical connection: how many of its requests may be outstanding at once, so
 * that no connection overflows the queues it shares with others. A request takes a credit before
 * it is submitted and gives it back when it completes. Thread-safe.
 */
public final class ConnectionCredits
{
    private final AtomicInteger outstanding = new AtomicInteger();

    /**
     * @param limit the credits of a connection.
     * @return true when a credit was taken; false while {@code limit} requests hold one.
     */
    public boolean tryAcquire(final int limit)
    {
        while (true)
        {
            final int current = outstanding.get();
            if (current >= limit)
            {
                return false;
            }
            if (outstanding.compareAndSet(current, current + 1))
            {
                return true;
            }
        }
    }

    /** A request that held a credit completed. */
    public void release()
    {
        outstanding.decrementAndGet();
    }

    /** @return the requests holding a credit. */
    public int outstanding()
    {
        return outstanding.get();
    }
}
