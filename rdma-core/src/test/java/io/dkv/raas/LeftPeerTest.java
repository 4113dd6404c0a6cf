package io.dkv.raas;

import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A peer that leaves (its driver closes) while a shared DC initiator of another driver holds a message to it that it
 * never took: requests to every other peer behind it complete without waiting for the stall detector. The providers
 * see to it: over shm the sender's device finds the peer's device closed or its process dead (a flag the posting and
 * acknowledging paths read, set by {@code ShmPeerWatchdog} every 20 ms) and fails the message RETRY_EXC_ERR, the
 * initiator is recycled as broken, not as stalled; over tcp the peer's NIC engine took the message (an RNIC's
 * acknowledgement needs no application), so nothing waits on the initiator, and a link that closes fails what
 * depended on it. The CONNECT itself fails by its own deadline.
 */
class LeftPeerTest
{
    /** Far beyond the test's own waits: a request that waits for the stall detector fails the test. */
    private static final int STALL_MS = 120_000;

    private static RaasContext context(final String provider, final long nodeId, final boolean agents)
    {
        // one DC initiator and no lanes: every request to either peer shares it, as in a large cluster
        return RaasPair.context(provider, nodeId).dciCount(1).syncLanes(0).qpStallMs(STALL_MS).startAgents(agents)
            .timeoutMs(10_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void requestsToAPeerThatLeftFailAndThoseToOthersCompleteWithoutAStall(final String provider) throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        // threads of the test's own: the common pool may have one thread on a small machine, held by the CONNECT
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try (Raas client = RaasDriver.start(context(provider, 1, true), directory);
            Raas healthy = RaasDriver.start(context(provider, 3, true), directory))
        {
            final RemoteRegion owned = healthy.malloc(3, 4096, "healthy");
            healthy.localMemory(owned).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x5eed);
            final RemoteRegion region = client.lookup("healthy");
            final Connection toHealthy = client.open(3, null);
            final MemorySegment buffer = MemorySegment.ofArray(new byte[8]);
            toHealthy.read(region, 0, buffer, 0, 8);

            final Raas leaving = RaasDriver.start(context(provider, 2, false), directory);
            // a CONNECT to a peer whose driver runs no agents: a message it never takes, on the shared initiator
            final CompletableFuture<Connection> connecting =
                CompletableFuture.supplyAsync(() -> client.connect(2, 7, Flags.ADAPTIVE, null), threads);
            Thread.sleep(100);
            leaving.close();

            for (int i = 0; i < 100; i++)
            {
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0);
                final int read = i;
                final CompletableFuture<Void> done = CompletableFuture.runAsync(
                    () -> toHealthy.read(region, 0, buffer, 0, 8), threads);
                try
                {
                    done.get(30, TimeUnit.SECONDS);
                }
                catch (final TimeoutException ex)
                {
                    fail("READ " + read + " of the healthy peer waited 30 s behind the message to the peer that left");
                }
                assertEquals(0x5eed, buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "READ " + i);
            }
            final ExecutionException failed =
                assertThrows(ExecutionException.class, () -> connecting.get(30, TimeUnit.SECONDS));
            assertEquals(RaasException.class, failed.getCause().getClass(), "the CONNECT to the peer that left");
            assertEquals(0, ((RaasDriver)client).counters().value(DriverCounter.QP_STALLS),
                "no stall waited out: the initiator moved on when the peer left");
        }
        finally
        {
            threads.shutdownNow();
        }
    }
}
