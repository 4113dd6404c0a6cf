package io.dkv.raas;

import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A completion handler runs on the thread that holds the polling role, so only that thread can deliver the
 * completions that free what the handler's own requests wait for: a request slot, a connection credit, the outcome of
 * a synchronous request. Such a wait polls on instead of hanging the driver (every thread waiting for a slot, the
 * Poller agent with them). An application attached to the host's standalone driver delivers its completions on the
 * thread that polls the attachment, and the same holds there.
 */
class HandlerRequestsTest
{
    private static final int SLOTS = 16;
    private static final long FOLLOW_UP = 1_000;
    private static final long WAIT_SECONDS = 60;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aHandlerPostsTwoRequestsWhileEverySlotIsTaken(final String provider) throws InterruptedException
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.requestSlots(SLOTS));
            Arena arena = Arena.ofShared())
        {
            final RemoteRegion region = pair.publishedByB("handler-slots", 4096);
            final MemorySegment local = arena.allocate(64L * (SLOTS + 2));
            final CountDownLatch everySlotTaken = new CountDownLatch(1);
            final AtomicBoolean first = new AtomicBoolean();
            final AtomicInteger completed = new AtomicInteger();
            final AtomicInteger failed = new AtomicInteger();
            final AtomicReference<Connection> self = new AtomicReference<>();
            final Connection connection = pair.a.open(2, (token, status, value) ->
            {
                if (status != RaasStatus.SUCCESS)
                {
                    failed.incrementAndGet();
                }
                if (token < FOLLOW_UP && first.compareAndSet(false, true))
                {
                    // the first handler to run waits until its slot and every other one is taken, then posts two
                    // requests: the first takes its completion's slot, the second has none until one completes
                    awaitQuietly(everySlotTaken);
                    self.get().readAsync(region, 0, local, 64L * SLOTS, 64, FOLLOW_UP);
                    self.get().readAsync(region, 64, local, 64L * (SLOTS + 1), 64, FOLLOW_UP + 1);
                }
                completed.incrementAndGet();
            });
            self.set(connection);
            for (int i = 0; i < SLOTS; i++)
            {
                connection.readAsync(region, 0, local, 64L * i, 64, i);
            }
            everySlotTaken.countDown();
            connection.flush();

            assertTrue(awaitCount(completed, SLOTS + 2), "completions: " + completed.get() + " of " + (SLOTS + 2));
            assertEquals(0, failed.get());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aHandlerPostsTwoRequestsOnAConnectionOfOneCredit(final String provider) throws InterruptedException
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.connectionCredits(1));
            Arena arena = Arena.ofShared())
        {
            final RemoteRegion region = pair.publishedByB("handler-credits", 4096);
            final MemorySegment local = arena.allocate(64 * 3);
            final AtomicInteger completed = new AtomicInteger();
            final AtomicReference<Connection> self = new AtomicReference<>();
            final Connection connection = pair.a.open(2, (token, status, value) ->
            {
                if (token == 0)
                {
                    // the completion gave its credit back, the first request takes it, the second waits for it
                    self.get().readAsync(region, 0, local, 64, 64, FOLLOW_UP);
                    self.get().readAsync(region, 0, local, 128, 64, FOLLOW_UP + 1);
                }
                completed.incrementAndGet();
            });
            self.set(connection);
            connection.readAsync(region, 0, local, 0, 64, 0);
            connection.flush();

            assertTrue(awaitCount(completed, 3), "completions: " + completed.get() + " of 3");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aHandlerWaitsForASynchronousRequestBehindAsynchronousOnes(final String provider) throws InterruptedException
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.connectionCredits(4));
            Arena arena = Arena.ofShared())
        {
            final RemoteRegion region = pair.publishedByB("handler-sync", 4096);
            final MemorySegment local = arena.allocate(64 * 4);
            final AtomicLongHolder casResult = new AtomicLongHolder();
            final AtomicInteger completed = new AtomicInteger();
            final AtomicReference<Connection> self = new AtomicReference<>();
            final Connection connection = pair.a.open(2, (token, status, value) ->
            {
                if (token == 0)
                {
                    // with a request of the connection still out, the synchronous one goes through the pipeline, and
                    // its completion is delivered by the thread that waits for it: this one
                    self.get().readAsync(region, 0, local, 64, 64, FOLLOW_UP);
                    casResult.value = self.get().cas(region, 256, 0, 7);
                }
                completed.incrementAndGet();
            });
            self.set(connection);
            connection.readAsync(region, 0, local, 0, 64, 0);
            connection.flush();

            assertTrue(awaitCount(completed, 2), "completions: " + completed.get() + " of 2");
            assertEquals(0, casResult.value, "the CAS found the word it expected");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anAttachedHandlerPostsTwoRequestsWhileEverySlotIsTaken(final String provider) throws InterruptedException
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
        try (StandaloneDriver driver = StandaloneDriver.launch(
                RaasPair.context(provider, 1).driverName(name).clientTimeoutMs(1000), directory);
            Raas target = RaasDriver.start(RaasPair.context(provider, 2), directory);
            Raas attached = AttachedRaas.attach(new RaasContext().driverName(name).requestSlots(SLOTS)
                .connectionCredits(4 * SLOTS).clientDataBytes(1 << 20).timeoutMs(10_000));
            Arena arena = Arena.ofShared())
        {
            final RemoteRegion region = RaasPair.published(target, attached, "attached-slots", 4096);
            final MemorySegment local = arena.allocate(64L * (SLOTS + 2));
            final AtomicBoolean first = new AtomicBoolean();
            final AtomicInteger completed = new AtomicInteger();
            final AtomicReference<Connection> self = new AtomicReference<>();
            final Connection connection = attached.open(2, (token, status, value) ->
            {
                if (token < FOLLOW_UP && first.compareAndSet(false, true))
                {
                    // nothing polled while the requests went out, so every slot is taken but the one this completion
                    // gave back: the second request has none until the thread running this handler reads on
                    self.get().readAsync(region, 0, local, 64L * SLOTS, 64, FOLLOW_UP);
                    self.get().readAsync(region, 64, local, 64L * (SLOTS + 1), 64, FOLLOW_UP + 1);
                }
                completed.incrementAndGet();
            });
            self.set(connection);
            for (int i = 0; i < SLOTS; i++)
            {
                connection.readAsync(region, 0, local, 64L * i, 64, i);
            }

            assertTrue(pollUntil(attached, completed, SLOTS + 2), "completions: " + completed.get() + " of " +
                (SLOTS + 2));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anAttachedHandlerWaitsForACreditAndForASynchronousRequest(final String provider) throws InterruptedException
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
        try (StandaloneDriver driver = StandaloneDriver.launch(
                RaasPair.context(provider, 1).driverName(name).clientTimeoutMs(1000), directory);
            Raas target = RaasDriver.start(RaasPair.context(provider, 2), directory);
            Raas attached = AttachedRaas.attach(new RaasContext().driverName(name).requestSlots(SLOTS)
                .connectionCredits(1).clientDataBytes(1 << 20).timeoutMs(10_000));
            Arena arena = Arena.ofShared())
        {
            final RemoteRegion region = RaasPair.published(target, attached, "attached-credits", 4096);
            final MemorySegment local = arena.allocate(64 * 3);
            final AtomicLongHolder casResult = new AtomicLongHolder();
            final AtomicInteger completed = new AtomicInteger();
            final AtomicReference<Connection> self = new AtomicReference<>();
            final Connection connection = attached.open(2, (token, status, value) ->
            {
                if (token == 0)
                {
                    // the completion gave its credit back, the first request takes it, the second waits for it, and
                    // the synchronous one waits for its answer: each read by this thread alone
                    self.get().readAsync(region, 0, local, 64, 64, FOLLOW_UP);
                    self.get().readAsync(region, 0, local, 128, 64, FOLLOW_UP + 1);
                    casResult.value = self.get().cas(region, 256, 0, 7);
                }
                completed.incrementAndGet();
            });
            self.set(connection);
            connection.readAsync(region, 0, local, 0, 64, 0);

            assertTrue(pollUntil(attached, completed, 3), "completions: " + completed.get() + " of 3");
            assertEquals(0, casResult.value, "the CAS found the word it expected");
        }
    }

    /** Poll the attachment on a thread of its own, which a broken variant leaves hanging, until the count is met. */
    private static boolean pollUntil(final Raas attached, final AtomicInteger count, final int expected)
        throws InterruptedException
    {
        final Thread poller = Thread.ofPlatform().daemon().name("test-poller").start(() ->
        {
            int turns = 0;
            while (count.get() < expected && !Thread.currentThread().isInterrupted())
            {
                turns = attached.poll() == 0 ? turns + 1 : 0;
                attached.idle(turns);
            }
        });
        final boolean met = awaitCount(count, expected);
        poller.interrupt();
        poller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        return met;
    }

    private static final class AtomicLongHolder
    {
        volatile long value = -1;
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean awaitCount(final AtomicInteger count, final int expected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (count.get() < expected && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        return count.get() >= expected;
    }
}
