package io.dkv.raas;

import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * One setting of the clocks governs a driver and its device: those of the RaaS context, or those set on its verbs
 * context alone, else the system's.
 */
class RaasContextClocksTest
{
    @Test
    void theSystemsClocksByDefault()
    {
        final RaasContext context = new RaasContext().conclude();
        assertSame(SystemEpochClock.INSTANCE, context.epochClock());
        assertSame(SystemNanoClock.INSTANCE, context.nanoClock());
        assertSame(SystemEpochClock.INSTANCE, context.verbs().epochClock());
        assertSame(SystemNanoClock.INSTANCE, context.verbs().nanoClock());
    }

    @Test
    void theDriversClocksAreItsDevices()
    {
        final CachedEpochClock epochClock = new CachedEpochClock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        final RaasContext context = new RaasContext()
            .verbs(new VerbsContext().nanoClock(new CachedNanoClock()))
            .epochClock(epochClock)
            .nanoClock(nanoClock)
            .conclude();
        assertSame(epochClock, context.verbs().epochClock());
        assertSame(nanoClock, context.verbs().nanoClock(), "the driver's clock, not one set on the device alone");
    }

    @Test
    void clocksSetOnTheVerbsContextAloneAreTheDriversToo()
    {
        final CachedEpochClock epochClock = new CachedEpochClock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        final RaasContext context =
            new RaasContext().verbs(new VerbsContext().epochClock(epochClock).nanoClock(nanoClock)).conclude();
        assertSame(epochClock, context.epochClock());
        assertSame(nanoClock, context.nanoClock());
    }
}
