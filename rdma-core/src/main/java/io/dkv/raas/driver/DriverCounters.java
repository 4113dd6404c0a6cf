package io.dkv.raas.driver;

import io.dkv.agent.SystemCounters;
import io.dkv.verbs.Opcode;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * A driver's {@link DriverCounter}s, allocated when it starts. A counter that one thread writes (the housekeeping's
 * stalls) is incremented with {@code incrementRelease}; one that any caller's thread may write (requests, credit
 * waits) with the atomic {@code increment}: an embedded driver's callers post their own requests.
 */
public final class DriverCounters
{
    private final SystemCounters<DriverCounter> counters;
    /** By {@link Opcode#code()}: on every request's path, one array load. */
    private final AtomicCounter[] requests = new AtomicCounter[Opcode.values().length];

    /** @param manager where the counters are allocated (a counters file, or memory). */
    public DriverCounters(final CountersManager manager)
    {
        counters = new SystemCounters<>(manager, DriverCounter.TYPE_ID, DriverCounter.values());
        for (final Opcode opcode : Opcode.values())
        {
            requests[opcode.code()] = counters.get(DriverCounter.forOpcode(opcode));
        }
    }

    public AtomicCounter get(final DriverCounter counter)
    {
        return counters.get(counter);
    }

    /** @return the counter's value now. */
    public long value(final DriverCounter counter)
    {
        return counters.get(counter).get();
    }

    /** A request of that opcode was made. */
    void onRequest(final Opcode opcode)
    {
        requests[opcode.code()].increment();
    }
}
