package io.dkv.raas;

import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer whose driver takes no messages (its process runs no agents, is stopped, or is stuck)
 * never acknowledges one sent to it over shm, where delivery is the receiver's work: the message
 * stays outstanding on the shared DC initiator and, queue pairs completing in order, every request
 * behind it waits. The driver recycles a queue pair that made no progress for
 * {@code qpStallMs}: the message fails, the others go again; and a peer that did not answer a
 * promotion is not asked again at once.
 */
class StalledPeerTest
{
    private static final int STALL_MS = 200;

    private static RaasContext context(final long nodeId, final boolean agents)
    {
        // one DC initiator: every peer's requests share it, as many peers share each one in a large cluster; no
        // thread has a lane of its own, whose synchronous requests would pass by the shared initiator
        return RaasPair.context("shm", nodeId).dciCount(1).syncLanes(0).qpStallMs(STALL_MS).startAgents(agents)
            .timeoutMs(5_000);
    }

    private static void await(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("waited 30 s for " + what);
            }
            Thread.yield();
        }
    }

    @Test
    @Timeout(60)
    void aPeerThatTakesNoMessagesDoesNotHoldBackRequestsToOthers() throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        try (Raas client = RaasDriver.start(context(1, true), directory);
            Raas silent = RaasDriver.start(context(2, false), directory);
            Raas healthy = RaasDriver.start(context(3, true), directory))
        {
            final RemoteRegion owned = healthy.malloc(3, 4096, "healthy");
            healthy.localMemory(owned).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x5eed);
            final RemoteRegion region = client.lookup("healthy");
            final Connection toHealthy = client.open(3, null);
            final MemorySegment buffer = MemorySegment.ofArray(new byte[8]);
            toHealthy.read(region, 0, buffer, 0, 8);

            // a CONNECT to the silent peer is a message it never takes
            final CompletableFuture<Connection> connecting =
                CompletableFuture.supplyAsync(() -> client.connect(2, 7, Flags.ADAPTIVE, null));
            Thread.sleep(50);

            final long start = System.nanoTime();
            for (int i = 0; i < 100; i++)
            {
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0);
                toHealthy.read(region, 0, buffer, 0, 8);
                assertEquals(0x5eed, buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 0),
                    "READ " + i + " brought the healthy peer's word");
            }
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 20L * STALL_MS, "READs behind the stalled message completed after " + millis + " ms");
            final RaasDriver driver = (RaasDriver)client;
            // the driver's agents count on threads of their own: the figures settle soon after the READs are done
            await(() -> driver.recycledQueuePairs() >= 1, "the stalled initiator recycled");
            await(() -> driver.counters().value(DriverCounter.QP_STALLS) >= 1, "the stall counted");
            await(() -> driver.recycledQueuePairs() == driver.counters().value(DriverCounter.QP_RECYCLES),
                "each recycle counted: " + driver.recycledQueuePairs() + " recycled");

            final Exception failed = assertThrows(Exception.class, () -> connecting.get(20, TimeUnit.SECONDS));
            assertTrue(String.valueOf(failed.getMessage()).length() > 0, "the connect failed with a reason");
        }
    }

    @Test
    @Timeout(60)
    void aHotPeerThatDoesNotAnswerAPromotionStaysOnDcAndCostsOneStall()
    {
        final StaticDirectory directory = new StaticDirectory();
        try (Raas client =
                RaasDriver.start(context(1, true).rcPromoteRequests(100).rcPromoteWindowMs(10_000), directory);
            Raas silent = RaasDriver.start(context(2, false), directory))
        {
            silent.malloc(2, 4096, "silent");
            final RemoteRegion region = client.lookup("silent");
            final Connection connection = client.open(2, null);
            final RaasDriver driver = (RaasDriver)client;
            long sum = 0;
            for (int i = 0; i < 5_000; i++)
            {
                sum += connection.faa(region, 0, 1);
            }
            assertEquals(5_000L * 4_999 / 2, sum, "every increment counted once, in order");
            assertEquals(1, driver.recycledQueuePairs(), "one stall, then no promotion asked again");
            assertEquals(1, driver.counters().value(DriverCounter.QP_RECYCLES), "the dropped end, counted once");
            assertEquals(5_000, driver.counters().value(DriverCounter.REQUESTS_FAA), "each FAA counted once");
            assertEquals(0, driver.rcQueuePairs(), "the end made for the promotion was dropped");
            assertTrue(!driver.usesRc(2), "the peer stays on DC");
        }
    }
}
