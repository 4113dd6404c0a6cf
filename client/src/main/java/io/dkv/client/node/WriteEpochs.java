package io.dkv.client.node;

import org.agrona.concurrent.EpochClock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The durable epoch a client writes its blocks at (kv-memory-node/README.md, "Async across nodes"): its clock counted
 * in epochs of {@code dkv.client.epoch.ms}, never going back, and raised to the epoch of every block the client reads,
 * so that a write is never of an epoch before a write it could have seen. One a client, shared by its threads: the
 * reads that raise it run on completion threads too. Raising costs a CAS only when the epoch moves; reading it, a
 * volatile read and the clock.
 *
 * <p>Why no epoch word a node keeps: the rules hold for any epochs that only go up per client, so clocks need not
 * agree; a client whose clock is behind only holds the store's durable epoch back, which the nodes measure and show.
 */
public final class WriteEpochs
{
    private final EpochClock clock;
    private final long epochMs;
    private final AtomicLong epoch = new AtomicLong();

    /**
     * @param clock   epoch milliseconds.
     * @param epochMs the length of an epoch, positive.
     */
    public WriteEpochs(final EpochClock clock, final long epochMs)
    {
        if (epochMs <= 0)
        {
            throw new IllegalArgumentException("an epoch must last at least 1 ms: " + epochMs);
        }
        this.clock = clock;
        this.epochMs = epochMs;
    }

    /** @return the epoch to write a block at now: at least every epoch returned or observed before. */
    public long current()
    {
        final long byClock = clock.time() / epochMs;
        final long known = epoch.get();
        return byClock > known ? raise(byClock) : known;
    }

    /** A block of {@code blockEpoch} was read: later writes are of that epoch at least. */
    public void observe(final long blockEpoch)
    {
        if (blockEpoch > epoch.get())
        {
            raise(blockEpoch);
        }
    }

    private long raise(final long to)
    {
        return epoch.accumulateAndGet(to, Math::max);
    }
}
