package io.dkv.load.bench.verbs;

import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.Locale;

/**
 * What the benchmark thread does when a poll of the CQ found nothing. Spinning answers fastest
 * when a core is free for it; on a machine with fewer cores than busy threads (the tcp provider
 * adds a NIC engine thread per device) yielding lets the engines run.
 */
public enum PollIdle
{
    SPIN("Thread.onSpinWait"),
    YIELD("Thread.yield");

    private final String call;

    PollIdle(final String call)
    {
        this.call = call;
    }

    /** @return a new idle strategy of this kind. */
    IdleStrategy newStrategy()
    {
        return switch (this)
        {
            case SPIN -> new BusySpinIdleStrategy();
            case YIELD -> new YieldingIdleStrategy();
        };
    }

    /** @return the call made on an empty poll, for the report. */
    String call()
    {
        return call;
    }

    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
