package io.dkv.clock;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

/**
 * What every Context of dkv holds alike: the clocks that what it starts reads the time from, so that a test can drive
 * time and a harness can skew it. Each is null until set, and {@link #conclude()} takes the process's
 * ({@link Clocks}) for one left unset; a Context that has a better default (its device's, the host's) sets it before
 * it calls {@code super.conclude()}. Every setter is fluent and returns the Context itself.
 *
 * @param <T> the Context itself.
 */
public abstract class CommonContext<T extends CommonContext<T>>
{
    private EpochClock epochClock;
    private NanoClock nanoClock;

    protected CommonContext()
    {
    }

    @SuppressWarnings("unchecked")
    protected final T self()
    {
        return (T)this;
    }

    /**
     * Fill in the clocks left unset with the process's: for the Context's own {@code conclude()}, which calls it
     * before it reads them or hands them on. Protected, so that a Context whose checks need more than itself (a
     * stream's, the size of the messages it rides on) offers only its own.
     *
     * @return this.
     */
    protected T conclude()
    {
        if (epochClock == null)
        {
            epochClock = Clocks.epochClock();
        }
        if (nanoClock == null)
        {
            nanoClock = Clocks.nanoClock();
        }
        return self();
    }

    /** @return the wall clock, in epoch milliseconds; before {@code conclude()}, null when left to the default. */
    public EpochClock epochClock()
    {
        return epochClock;
    }

    /**
     * Read wall-clock time from this clock: null (the default) leaves it to {@code conclude()}, which takes the
     * process's ({@link Clocks#epochClock()}). The Context's class says what it times.
     */
    public T epochClock(final EpochClock epochClock)
    {
        this.epochClock = epochClock;
        return self();
    }

    /** @return the monotonic clock; before {@code conclude()}, null when left to the default. */
    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    /**
     * Read monotonic time from this clock: null (the default) leaves it to {@code conclude()}, which takes the
     * process's ({@link Clocks#nanoClock()}). The Context's class says which intervals, deadlines and due times run
     * on it.
     */
    public T nanoClock(final NanoClock nanoClock)
    {
        this.nanoClock = nanoClock;
        return self();
    }
}
