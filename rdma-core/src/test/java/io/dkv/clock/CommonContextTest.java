package io.dkv.clock;

import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * What every Context holds alike: clocks that are unset until concluded, then the process's ({@link Clocks}) unless
 * one was set, which is kept; setters that return the Context itself, so that a chain goes on with its own setters.
 */
class CommonContextTest
{
    /** The smallest Context: one setting of its own, to chain after the clocks. */
    private static final class SomeContext extends CommonContext<SomeContext>
    {
        private int size;

        SomeContext size(final int size)
        {
            this.size = size;
            return this;
        }
    }

    @Test
    void aContextHasNoClocksUntilItIsConcluded()
    {
        final SomeContext context = new SomeContext();
        assertNull(context.epochClock(), "left to conclude(): a Context built from a parent's can still take its");
        assertNull(context.nanoClock());
    }

    @Test
    void concludingTakesTheProcesssClocksForThoseLeftUnset()
    {
        final SomeContext context = new SomeContext().conclude();
        assertSame(Clocks.epochClock(), context.epochClock());
        assertSame(Clocks.nanoClock(), context.nanoClock());
    }

    @Test
    void concludingKeepsTheClocksThatWereSet()
    {
        final CachedEpochClock epochClock = new CachedEpochClock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        final SomeContext context = new SomeContext().epochClock(epochClock).nanoClock(nanoClock).conclude();
        assertSame(epochClock, context.epochClock());
        assertSame(nanoClock, context.nanoClock());
    }

    @Test
    void concludingKeepsOneClockThatWasSetAndFillsTheOther()
    {
        final CachedNanoClock nanoClock = new CachedNanoClock();
        final SomeContext context = new SomeContext().nanoClock(nanoClock).conclude();
        assertSame(nanoClock, context.nanoClock());
        assertSame(Clocks.epochClock(), context.epochClock());
    }

    @Test
    void theClockSettersReturnTheContextItself()
    {
        final SomeContext context = new SomeContext();
        final SomeContext chained = context.epochClock(new CachedEpochClock()).nanoClock(new CachedNanoClock()).size(3);
        assertSame(context, chained);
    }
}
