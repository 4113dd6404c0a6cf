package io.dkv.client.node;

import org.agrona.concurrent.EpochClock;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The durable epoch a client writes its blocks at (kv-memory-node/README.md, "Async across nodes"): its clock counted
 * in epochs of {@code dkv.client.epoch.ms}, never going back, and raised to the epoch of every block the client reads,
 * so that a write is never of an epoch before a write it could have seen. One a client, shared by its threads: the
 * reads that raise it run on completion threads too. Raising costs a CAS only when the epoch moves; reading it, a
 * volatile read and the clock.
 *
 * <p>Why no epoch word a node keeps: the rules hold for any epochs that only go up per client, so clocks need not
 * agree; a client whose clock is behind only holds the store's durable epoch back, which the nodes measure and show.
 *
 * <p>Beside the epoch, the writes in flight: a write whose nodes are still to be told of it holds a slot, entered
 * before it takes its epoch and left once every notice of it is in a ring or answered. {@link #mark()} reads the
 * epoch first and the slots second, so a write it does not see in a slot takes an epoch of at least the one it read:
 * the mark, the least of both less one, is an epoch every write of which its nodes were told.
 */
public final class WriteEpochs
{
    private final EpochClock clock;
    private final long epochMs;
    private final AtomicLong epoch = new AtomicLong();
    /** Per slot, the epoch a write in flight began at, or {@link #FREE}. */
    private final AtomicLongArray flights = new AtomicLongArray(SLOTS);
    /** One past the highest slot ever entered: what {@link #mark()} reads. */
    private final AtomicInteger slotsUsed = new AtomicInteger();
    private final AtomicInteger nextSlot = new AtomicInteger();

    /** Writes in flight at once, client-wide: one a thread that holds notices, one a write carried by completions. */
    public static final int SLOTS = 4096;
    /** A slot no write holds. */
    public static final long FREE = Long.MAX_VALUE;

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
        for (int slot = 0; slot < SLOTS; slot++)
        {
            flights.set(slot, FREE);
        }
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

    /**
     * A write is about to take its epoch and will tell its nodes of it: it holds a slot until {@link #leave}. Waits,
     * spinning, while every slot is held (each is left within an operation's time).
     *
     * @return the slot.
     */
    public int enter()
    {
        final long began = current();
        while (true)
        {
            for (int tries = 0; tries < SLOTS; tries++)
            {
                final int slot = nextSlot.getAndIncrement() & (SLOTS - 1);
                if (flights.get(slot) == FREE && flights.compareAndSet(slot, FREE, began))
                {
                    slotsUsed.accumulateAndGet(slot + 1, Math::max);
                    return slot;
                }
            }
            Thread.onSpinWait();
        }
    }

    /** The write of {@code slot} told every node of it (or gave up telling them): it no longer holds marks back. */
    public void leave(final int slot)
    {
        flights.set(slot, FREE);
    }

    /** @return the slots held now: writes whose nodes are still to be told of them. */
    public int inFlight()
    {
        int held = 0;
        final int used = slotsUsed.get();
        for (int slot = 0; slot < used; slot++)
        {
            if (flights.get(slot) != FREE)
            {
                held++;
            }
        }
        return held;
    }

    /**
     * The epoch through which this client has told its nodes of everything it wrote, as far as the rings' positions
     * read after this returns: the epoch now and the least a write in flight began at, less one. Read in that order:
     * a write entered after the slots were read takes an epoch of at least the one read first.
     *
     * @return the mark, below every epoch of a write whose nodes may not have been told of it.
     */
    public long mark()
    {
        long least = current();
        final int used = slotsUsed.get();
        for (int slot = 0; slot < used; slot++)
        {
            least = Math.min(least, flights.get(slot));
        }
        return least - 1;
    }

    private long raise(final long to)
    {
        return epoch.accumulateAndGet(to, Math::max);
    }
}
