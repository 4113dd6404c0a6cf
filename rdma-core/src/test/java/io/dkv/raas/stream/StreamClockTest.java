package io.dkv.raas.stream;

import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasPair;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stream reads the time only from its context's clock: its HELLO's deadline and the silence after which it probes
 * its peer pass when that clock says so, an hour of them in no time at all, and never on the system's alone. A
 * context given no clock takes its driver's.
 */
class StreamClockTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int SERVICE = 78;
    private static final long HOUR_NANOS = 3_600_000_000_000L;
    private static final int HOUR_MS = 3_600_000;

    private final List<AutoCloseable> open = new ArrayList<>();
    /** Threads of the test's own: the common pool has one thread on two cores, and ends here wait on each other. */
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Raas a;
    private Raas b;

    private void nodes(final NanoClock driverClock)
    {
        final StaticDirectory directory = new StaticDirectory();
        a = RaasDriver.start(RaasPair.context("shm", 1).nanoClock(driverClock), directory);
        open.add(a);
        b = RaasDriver.start(RaasPair.context("shm", 2), directory);
        open.add(b);
    }

    @AfterEach
    void closeAll()
    {
        threads.shutdownNow();
        for (int i = open.size() - 1; i >= 0; i--)
        {
            try
            {
                open.get(i).close();
            }
            catch (final Exception ignored)
            {
                // the test that failed says why; a close that fails after it says nothing more
            }
        }
    }

    /**
     * A clock the test moves: still until {@code step} is set, then that much further at every reading. Far from the
     * system's nanoTime, so that a deadline taken on one and checked on the other would show.
     */
    private static NanoClock handMoved(final AtomicLong step)
    {
        final AtomicLong now = new AtomicLong(-1_000_000_000_000_000L);
        return () -> now.addAndGet(step.get());
    }

    /** @return the next stream a peer opens to B's service, accepted on a thread of the test's. */
    private CompletableFuture<RaasStream> acceptOne()
    {
        final StreamListener listener = StreamListener.listen(b, SERVICE);
        open.add(listener);
        return CompletableFuture.supplyAsync(() -> listener.accept(WAIT), threads);
    }

    // on the system's clock this waits for hours in a loop no interrupt ends: fail on a thread of its own instead
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anUnansweredHelloTimesOutOnTheContextsClock()
    {
        nodes(System::nanoTime);
        // the listener takes the connection, but nobody accepts the stream: no HELLO comes back
        open.add(StreamListener.listen(b, SERVICE));
        final AtomicLong step = new AtomicLong(HOUR_NANOS);
        // five hours to describe its stream buffer on the system's clock; an hour goes by at every reading of this one
        final StreamContext context = new StreamContext().probeMs(HOUR_MS).nanoClock(handMoved(step));

        final RaasException late =
            assertThrows(RaasException.class, () -> RaasStream.connect(a, b.self().id(), SERVICE, context));
        assertTrue(late.getMessage().contains("described no stream buffer in time"), late.getMessage());
    }

    // on the system's clock this waits for hours in a loop no interrupt ends: fail on a thread of its own instead
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aSilentPeerIsProbedWhenTheContextsClockSaysSoAndFoundGone()
    {
        nodes(System::nanoTime);
        // still while the ends meet, so that the HELLO's deadline does not pass first
        final AtomicLong step = new AtomicLong();
        final StreamContext readerContext = new StreamContext().probeMs(HOUR_MS).nanoClock(handMoved(step));
        final CompletableFuture<RaasStream> accepted = acceptOne();
        final RaasStream reader = RaasStream.connect(a, b.self().id(), SERVICE, readerContext);
        open.add(reader);
        open.add(accepted.join());

        // the peer's driver goes away without a word from its stream: only a probe finds out, after an hour of silence
        b.close();
        step.set(HOUR_NANOS);
        final MemorySegment into = MemorySegment.ofArray(new byte[16]);
        final RaasException broke = assertThrows(RaasException.class, () -> reader.read(into, 0, 16));
        assertTrue(broke.getMessage().contains("stopped answering"), broke.getMessage());
    }

    @Test
    @Timeout(60)
    void aContextGivenNoClockRunsItsStreamsOnTheirDriversClock()
    {
        final NanoClock driverClock = () -> System.nanoTime() - HOUR_NANOS;
        nodes(driverClock);
        assertSame(driverClock, a.nanoClock(), "a handle's clock is its context's");
        final CompletableFuture<RaasStream> accepted = acceptOne();
        final StreamContext context = new StreamContext();
        open.add(RaasStream.connect(a, b.self().id(), SERVICE, context));
        open.add(accepted.join());

        assertSame(driverClock, context.nanoClock());
    }
}
