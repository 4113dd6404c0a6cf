package io.dkv.memory;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A memory node's idle strategy that a test can hold: between two turns of its request server, so that the node's CPU
 * work stops (PERSISTs unread, nothing written to disk) while clients' one-sided requests go on, as in a node that is
 * about to crash. Released by {@link #release} or by the interrupt a closing agent runner sends.
 */
final class HeldIdle implements IdleStrategy
{
    private final IdleStrategy idle = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
    private volatile boolean hold;
    private volatile boolean held;

    public void idle(final int workCount)
    {
        if (!hold)
        {
            idle.idle(workCount);
            return;
        }
        held = true;
        while (hold && !Thread.currentThread().isInterrupted())
        {
            LockSupport.parkNanos(1_000_000L);
        }
        hold = false;
        held = false;
    }

    public void idle()
    {
        idle(0);
    }

    public void reset()
    {
        idle.reset();
    }

    /** Hold the server at its next idle; @return once it is held. */
    void holdAndAwait() throws InterruptedException
    {
        hold = true;
        KvCluster.awaitTrue(() -> held);
    }

    void release()
    {
        hold = false;
    }
}
