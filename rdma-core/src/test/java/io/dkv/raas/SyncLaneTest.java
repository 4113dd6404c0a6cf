package io.dkv.raas;

import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Synchronous one-sided requests on a thread's own lane: each platform thread posts to and polls a
 * queue pair of its own, up to a bound; past it, on virtual threads and behind asynchronous requests
 * still in flight, requests share the pipeline, and every way gives the same results.
 */
class SyncLaneTest
{
    private static final ValueLayout.OfLong BE_LONG = OneSidedTest.BE_LONG;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void eachThreadCarriesItsSynchronousRequestsOnALaneOfItsOwn(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RaasDriver driver = (RaasDriver)pair.a;
            final RemoteRegion region = pair.publishedByB("lanes", 4096);
            final Connection connection = pair.a.open(pair.b.self().id(), null);
            assertEquals(0, driver.syncLanes(), "no lane before a request");

            everyKindOfRequest(connection, region, 0);
            assertEquals(1, driver.syncLanes(), "the caller's lane");

            runOnPlatformThread(() -> everyKindOfRequest(connection, region, 512));
            runOnPlatformThread(() -> everyKindOfRequest(connection, region, 1024));
            assertEquals(1, driver.syncLanes(), "held by a live thread: the caller's");
            assertTrue(driver.describeState().contains("sync lanes 2 of "),
                "a thread's lane went to the next once it ended: " + driver.describeState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void threadsPastTheBoundAndVirtualThreadsShareThePipeline(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.syncLanes(1)))
        {
            final RaasDriver driver = (RaasDriver)pair.a;
            final RemoteRegion region = pair.publishedByB("bounded", 4096);
            final Connection connection = pair.a.open(pair.b.self().id(), null);
            everyKindOfRequest(connection, region, 0);

            final Thread virtual = Thread.ofVirtual().start(() -> everyKindOfRequest(connection, region, 512));
            virtual.join();
            runOnPlatformThread(() -> everyKindOfRequest(connection, region, 1024));
            assertEquals(1, driver.syncLanes(), "the bound holds while its one lane's thread lives");
            assertTrue(driver.describeState().contains("sync lanes 1 of 1"), driver.describeState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void noLanesAtAllIsTheSharedPipelineAlone(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.syncLanes(0)))
        {
            final RemoteRegion region = pair.publishedByB("none", 4096);
            final Connection connection = pair.a.open(pair.b.self().id(), null);
            everyKindOfRequest(connection, region, 0);
            assertEquals(0, ((RaasDriver)pair.a).syncLanes());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aRequestThatFailsAtThePeerLeavesTheLaneFitForTheNext(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final long target = pair.b.self().id();
            final RemoteRegion region = pair.publishedByB("kept", 4096);
            final RemoteRegion doomedOwned = pair.b.malloc(target, 4096, "gone");
            final RemoteRegion doomed = pair.a.lookup("gone");
            pair.b.free(doomedOwned);
            final Connection connection = pair.a.open(target, null);
            final MemorySegment into = MemorySegment.ofArray(new byte[8]);

            for (int i = 0; i < 3; i++)
            {
                final RaasException failed =
                    assertThrows(RaasException.class, () -> connection.read(doomed, 0, into, 0, 8));
                assertTrue(failed.getMessage().contains("region 'gone'"), failed.getMessage());
                everyKindOfRequest(connection, region, 8 * i);
            }
            assertEquals(1, ((RaasDriver)pair.a).syncLanes(), "the same lane, brought back after each failure");
            assertEquals(3, ((RaasDriver)pair.a).recycledQueuePairs(), "the lane's queue pair, once per failure");
            assertEquals(3, ((RaasDriver)pair.a).counters().value(DriverCounter.QP_RECYCLES), "each one counted");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aSynchronousRequestBehindAsynchronousOnesInFlightKeepsItsOrder(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RemoteRegion region = pair.publishedByB("ordered", 4096);
            final Connection connection = pair.a.open(pair.b.self().id(), (token, status, value) ->
            {
            });
            for (int round = 1; round <= 200; round++)
            {
                connection.faaAsync(region, 0, 1, round);
                connection.faaAsync(region, 0, 1, round);
                connection.flush();
                assertEquals(2L * round, connection.faa(region, 0, 0),
                    "both increments of round " + round + " are seen by the READ behind them");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aPairOfReadsGoesInOneBatchOnTheLaneOrIsLeftToTheCaller(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RemoteRegion region = pair.publishedByB("pairs", 4096);
            final Connection connection = pair.a.open(pair.b.self().id(), (token, status, value) ->
            {
            });
            final MemorySegment words = MemorySegment.ofArray(new byte[64]);
            for (int i = 0; i < 8; i++)
            {
                words.set(BE_LONG, 8L * i, 100 + i);
            }
            connection.write(region, 1024, words, 0, 64);

            final MemorySegment into = MemorySegment.ofArray(new byte[40]);
            assertTrue(connection.tryReadPair(region, 1024 + 32, 1024, into, 8, 16), "on the caller's lane");
            assertEquals(List.of(104L, 105L, 100L, 101L),
                List.of(into.get(BE_LONG, 8), into.get(BE_LONG, 16), into.get(BE_LONG, 24), into.get(BE_LONG, 32)),
                "the first range, then the second, from the offset asked");

            final Thread virtual = Thread.ofVirtual().start(() ->
                assertTrue(!connection.tryReadPair(region, 0, 64, MemorySegment.ofArray(new byte[32]), 0, 16)));
            virtual.join();
            connection.faaAsync(region, 2048, 1, 1);
            final boolean behindAsynchronous =
                connection.tryReadPair(region, 0, 64, MemorySegment.ofArray(new byte[32]), 0, 16);
            assertTrue(!behindAsynchronous || connection.outstanding() == 0,
                "left to the caller while a request of the connection is in flight");
            while (connection.outstanding() > 0)
            {
                pair.a.poll();
            }

            final RemoteRegion doomedOwned = pair.b.malloc(pair.b.self().id(), 4096, "pair-gone");
            final RemoteRegion doomed = pair.a.lookup("pair-gone");
            pair.b.free(doomedOwned);
            final int recycled = ((RaasDriver)pair.a).recycledQueuePairs();
            assertThrows(RaasException.class, () -> connection.tryReadPair(doomed, 0, 64, into, 0, 16));
            assertEquals(recycled + 1, ((RaasDriver)pair.a).recycledQueuePairs(), "the lane's queue pair, once");
            assertTrue(connection.tryReadPair(region, 1024, 1024 + 16, into, 0, 16), "the lane fit for the next");
            assertEquals(100L, into.get(BE_LONG, 0));
        }
    }

    /** A WRITE, READ, FAA and CAS at {@code offset}, each result checked. */
    private static void everyKindOfRequest(final Connection connection, final RemoteRegion region, final long offset)
    {
        final MemorySegment out = MemorySegment.ofArray(new byte[64]);
        final MemorySegment in = MemorySegment.ofArray(new byte[64]);
        for (int i = 0; i < 64; i++)
        {
            out.set(ValueLayout.JAVA_BYTE, i, (byte)(offset + i));
        }
        connection.write(region, offset, out, 0, 64);
        connection.read(region, offset, in, 0, 64);
        assertEquals(-1, out.mismatch(in), "READ of what was written at " + offset);
        connection.write(region, offset + 64, MemorySegment.ofArray(new byte[8]), 0, 8);
        assertEquals(0, connection.faa(region, offset + 64, 5));
        assertEquals(5, connection.cas(region, offset + 64, 5, 9));
        assertEquals(9, connection.cas(region, offset + 64, 5, 11), "a failed compare returns the current word");
        final MemorySegment word = MemorySegment.ofArray(new byte[8]);
        connection.read(region, offset + 64, word, 0, 8);
        assertEquals(9, word.get(BE_LONG, 0));
    }

    private static void runOnPlatformThread(final Runnable work) throws InterruptedException
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread = Thread.ofPlatform().start(() ->
        {
            try
            {
                work.run();
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        });
        thread.join();
        if (failure.get() != null)
        {
            throw new AssertionError("the other thread's requests failed", failure.get());
        }
    }
}
