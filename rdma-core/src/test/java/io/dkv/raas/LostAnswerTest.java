package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link cut between a requester and a responder that has executed its requests: the answers are lost, the shared
 * queue pair stalls and is recycled. The request it stalled on fails UNREACHABLE; a compare-and-swap flushed behind it
 * was executed too, and sent again it would fail on its own word (its caller would take its write for a lost race),
 * so it fails OUTCOME_UNKNOWN and is done once; a READ behind it goes again and brings the word.
 */
class LostAnswerTest
{
    private static final int STALL_MS = 200;
    private static final long FIRST = 0;
    private static final long SECOND = 8;
    /** Atomics keep their words big-endian, as on the wire. */
    private static final ValueLayout.OfLong BIG_ENDIAN =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    /** A volatile read: the word is written by the NIC engine's thread. */
    private static long word(final MemorySegment words, final long offset)
    {
        return (long)WORD.getVolatile(words, offset);
    }

    @Test
    @Timeout(60)
    void aCompareAndSwapFlushedBehindALostAnswerIsNotDoneTwice() throws Exception
    {
        final AtomicBoolean answersLost = new AtomicBoolean(true);
        final StaticDirectory directory = new StaticDirectory();
        // one DC initiator, never promoted to RC: both requests travel on it, in order
        final RaasContext requester = RaasPair.context("tcp", 1).dciCount(1).rcPromoteRequests(0).qpStallMs(STALL_MS);
        final RaasContext responder = RaasPair.context("tcp", 2)
            .verbs(new VerbsContext().provider("tcp").tcpAddress("127.0.0.1:0")
                .tcpAnswerLoss((requesterQpn, psn) -> answersLost.get()));
        try (Raas a = RaasDriver.start(requester, directory);
            Raas b = RaasDriver.start(responder, directory))
        {
            final RemoteRegion owned = b.malloc(2, 4096, "words");
            final MemorySegment words = b.localMemory(owned);
            final RemoteRegion region = a.lookup("words");
            final ConcurrentHashMap<Long, long[]> completed = new ConcurrentHashMap<>();
            final Connection connection = a.open(2, (token, status, value) -> completed.put(token, new long[]{status,
                value}));

            connection.casAsync(region, FIRST, 0, 1, 1);
            connection.casAsync(region, SECOND, 0, 1, 2);
            // both executed: their answers are what is lost
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (word(words, FIRST) != 1 || word(words, SECOND) != 1)
            {
                assertTrue(System.nanoTime() < deadline, () -> "not executed: " + word(words, FIRST) + " " +
                    word(words, SECOND) + " completed " + completed.keySet() + "\n" + ((RaasDriver)a).describeState());
                Thread.sleep(1);
            }
            answersLost.set(false);
            while (completed.size() < 2)
            {
                a.poll();
                Thread.sleep(1);
            }

            assertEquals(RaasStatus.UNREACHABLE, (int)completed.get(1L)[0], "the request the queue pair stalled on");
            assertEquals(RaasStatus.OUTCOME_UNKNOWN, (int)completed.get(2L)[0],
                () -> "the CAS flushed behind it: " + RaasStatus.describe((int)completed.get(2L)[0]) + ", value " +
                    completed.get(2L)[1]);
            assertEquals(1, word(words, SECOND), "done once");

            final MemorySegment buffer = MemorySegment.ofArray(new byte[8]);
            final Connection again = a.open(2, null);
            again.read(region, SECOND, buffer, 0, 8);
            assertEquals(1, buffer.get(BIG_ENDIAN, 0), "a READ after the recycle");
        }
    }

    /**
     * A synchronous request whose answer is lost waits out the driver's timeout on the context's clock: an hour on
     * the wall clock, no time at all once the clock is moved past it.
     */
    @Test
    @Timeout(60)
    void aSynchronousRequestTimesOutOnTheContextsClock() throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        // far from the system's nanoTime, so that a deadline taken on one and checked on the other shows
        final AtomicLong jump = new AtomicLong(-1_000_000_000_000_000L);
        final NanoClock clock = () -> System.nanoTime() + jump.get();
        final int hourMs = 3_600_000;
        // neither a stall nor a promotion ends the request: only its timeout can
        final RaasContext requester = RaasPair.context("tcp", 1).dciCount(1).rcPromoteRequests(0)
            .qpStallMs(hourMs).timeoutMs(hourMs).nanoClock(clock);
        final RaasContext responder = RaasPair.context("tcp", 2)
            .verbs(new VerbsContext().provider("tcp").tcpAddress("127.0.0.1:0")
                .tcpAnswerLoss((requesterQpn, psn) -> true));
        try (Raas a = RaasDriver.start(requester, directory);
            Raas b = RaasDriver.start(responder, directory))
        {
            final MemorySegment words = b.localMemory(b.malloc(2, 4096, "words"));
            final RemoteRegion region = a.lookup("words");
            final Connection connection = a.open(2, null);
            final CompletableFuture<Long> cas =
                CompletableFuture.supplyAsync(() -> connection.cas(region, FIRST, 0, 1));
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (word(words, FIRST) != 1)
            {
                assertTrue(System.nanoTime() < deadline, "not executed");
                Thread.sleep(1);
            }
            Thread.sleep(200);
            assertFalse(cas.isDone(), "its answer is lost: the request waits");

            jump.addAndGet(2L * hourMs * 1_000_000L);
            final Throwable failed = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> cas.get(20, TimeUnit.SECONDS)).getCause();
            assertInstanceOf(RaasException.class, failed);
            assertTrue(failed.getMessage().contains("did not complete within " + hourMs + " ms"), failed.getMessage());
        }
    }
}
