package io.dkv.raas.driver;

import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasPair;
import io.dkv.raas.StaticDirectory;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's own timers measure spans on the monotonic clock: a step of the wall clock (NTP, a VM resumed, a clock
 * fault) neither fires them early nor holds them back. Shown on the stall recycling of a shared DC initiator, whose
 * oldest request is a CONNECT to a peer that takes no messages; housekeeping is turned by the test, so the checks
 * are counted, not timed. Connect admission and RC promotion read the same clock ({@link DriverMillis}).
 */
class DriverTimersClockTest
{
    private static final long WALL_CLOCK_START = 1_800_000_000_000L;
    private static final long ONE_HOUR_MS = TimeUnit.HOURS.toMillis(1);

    private static RaasContext context(final long nodeId, final int stallMs, final CachedEpochClock epochClock)
    {
        // one DC initiator and no lanes: the CONNECT and its watch are on the queue pair the test looks at; no agents,
        // so housekeeping runs only when the test turns it
        return RaasPair.context("shm", nodeId).dciCount(1).syncLanes(0).qpStallMs(stallMs).startAgents(false)
            .epochClock(epochClock).timeoutMs(120_000);
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("waited 30 s for " + what);
            }
            Thread.sleep(1);
        }
    }

    private static int outstanding(final RaasDriver driver)
    {
        int outstanding = 0;
        for (int i = 0; i < driver.qpPool().size(); i++)
        {
            outstanding += driver.qpPool().get(i).outstanding();
        }
        return outstanding;
    }

    /** A CONNECT to the silent peer, outstanding on the client's one initiator, with housekeeping watching it. */
    private static CompletableFuture<?> stalledConnect(final RaasDriver client) throws InterruptedException
    {
        final CompletableFuture<?> connecting =
            CompletableFuture.runAsync(() -> client.connect(2, 7, Flags.ADAPTIVE, null).close());
        await(() -> outstanding(client) > 0, "the CONNECT posted");
        for (int i = 0; i < 3; i++)
        {
            client.housekeeping();
        }
        return connecting;
    }

    @Test
    @Timeout(90)
    void aWallClockStepForwardDoesNotRecycleAnInitiatorEarly() throws Exception
    {
        final CachedEpochClock wallClock = new CachedEpochClock();
        wallClock.update(WALL_CLOCK_START);
        final StaticDirectory directory = new StaticDirectory();
        // a stall time no turn of this test comes near, on a machine however loaded
        try (RaasDriver client = RaasDriver.start(context(1, 60_000, wallClock), directory);
            Raas silent = RaasDriver.start(context(2, 60_000, wallClock), directory))
        {
            stalledConnect(client);
            wallClock.advance(ONE_HOUR_MS);
            for (int i = 0; i < 4 * StallDetector.MIN_QUIET_CHECKS; i++)
            {
                client.housekeeping();
            }
            assertEquals(0, client.counters().value(DriverCounter.QP_STALLS),
                "a stall counted after a wall clock step of " + ONE_HOUR_MS + " ms and " +
                4 * StallDetector.MIN_QUIET_CHECKS + " checks, far within the 60 s stall time");
            assertEquals(0, client.recycledQueuePairs(), "no initiator recycled");
            assertTrue(outstanding(client) > 0, "the CONNECT still outstanding, not failed");
        }
    }

    @Test
    @Timeout(90)
    void aWallClockStepBackDoesNotHoldBackTheRecycling() throws Exception
    {
        final CachedEpochClock wallClock = new CachedEpochClock();
        wallClock.update(WALL_CLOCK_START);
        final StaticDirectory directory = new StaticDirectory();
        try (RaasDriver client = RaasDriver.start(context(1, 100, wallClock), directory);
            Raas silent = RaasDriver.start(context(2, 100, wallClock), directory))
        {
            final CompletableFuture<?> connecting = stalledConnect(client);
            wallClock.advance(-ONE_HOUR_MS);
            // on the wall clock the watch would last an hour more: the test's own bound is 30 s
            await(() ->
            {
                client.housekeeping();
                return client.counters().value(DriverCounter.QP_STALLS) >= 1;
            }, "the stalled initiator recycled after its 100 ms stall time, the wall clock stepped back an hour");
            await(connecting::isDone, "the stalled CONNECT failed");
            assertTrue(connecting.isCompletedExceptionally(), "the CONNECT to a peer that takes no messages failed");
        }
    }
}
