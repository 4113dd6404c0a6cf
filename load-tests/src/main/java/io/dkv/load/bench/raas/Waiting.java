package io.dkv.load.bench.raas;

import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.WorkCompletion;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * How every measured loop waits, RaaS and raw alike, so that neither side is favoured by waiting
 * differently: a few spins, then {@link Thread#yield}, as the driver's own waits do. On two cores a
 * waiter that only spins would keep the thread it waits for (a NIC engine, an echo) off the CPU.
 */
final class Waiting
{
    /** A request or message that has not completed by then will not: the provider is broken or the peer gone. */
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final int SPINS = 64;
    /** Empty waits between two looks at the clock. */
    static final int WAITS_PER_CLOCK_CHECK = 1 << 10;

    private Waiting()
    {
    }

    /**
     * @return a new idle strategy that spins {@link #SPINS} times, then yields on every call until reset.
     */
    static IdleStrategy newIdleStrategy()
    {
        return new BackoffIdleStrategy(SPINS, Long.MAX_VALUE, 1, 1);
    }

    /**
     * Poll until the one request in flight completes, waiting as every measured loop does.
     *
     * @param what names the request, for the error when it does not complete.
     * @throws IllegalStateException when nothing completes within {@link #TIMEOUT_NANOS}.
     */
    static void awaitOne(
        final CompletionQueue cq, final WorkCompletion[] completion, final IdleStrategy idleStrategy,
        final long startNanos,
        final String what)
    {
        idleStrategy.reset();
        int emptyWaits = 0;
        while (cq.poll(completion, 1) == 0)
        {
            if (++emptyWaits == WAITS_PER_CLOCK_CHECK)
            {
                emptyWaits = 0;
                final long waited = System.nanoTime() - startNanos;
                if (waited > TIMEOUT_NANOS)
                {
                    throw new IllegalStateException(what + " did not complete within " +
                        TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
                }
            }
            idleStrategy.idle();
        }
    }

    static String describe()
    {
        return SPINS + " spins (Thread.onSpinWait), then Thread.yield";
    }
}
