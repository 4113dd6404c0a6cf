package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection whose requests fail at the responder breaks the shared queue pair they travel on;
 * the driver recycles it and replays what the others had in flight. Ten well-behaved connections
 * beside it see no error and every increment they made is counted exactly once.
 */
class IsolationTest
{
    private static final int GOOD = 10;
    private static final int INCREMENTS = 2000;
    private static final int WINDOW = 8;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void tenWellBehavedConnectionsSeeNoErrorBesideAMisbehavingOne(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.dciCount(1).rcPromoteRequests(0)))
        {
            final long target = pair.b.self().id();
            final RemoteRegion counters = pair.publishedByB("counters", 4096);
            final RemoteRegion doomedOwned = pair.b.malloc(target, 4096, "doomed");
            final RemoteRegion doomed = pair.a.lookup("doomed");
            pair.b.free(doomedOwned);

            final AtomicInteger goodErrors = new AtomicInteger();
            final AtomicLong goodCompletions = new AtomicLong();
            final List<Connection> good = new ArrayList<>();
            final AtomicInteger[] inFlight = new AtomicInteger[GOOD];
            for (int i = 0; i < GOOD; i++)
            {
                final int index = i;
                inFlight[i] = new AtomicInteger();
                good.add(pair.a.open(target, (token, status, value) ->
                {
                    if (status != RaasStatus.SUCCESS)
                    {
                        goodErrors.incrementAndGet();
                    }
                    goodCompletions.incrementAndGet();
                    inFlight[index].decrementAndGet();
                }));
            }

            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicInteger badErrors = new AtomicInteger();
            final Thread misbehaving = new Thread(() ->
            {
                final Connection bad = pair.a.open(target, null);
                final MemorySegment into = MemorySegment.ofArray(new byte[8]);
                while (!stop.get())
                {
                    try
                    {
                        bad.read(doomed, 0, into, 0, 8);
                    }
                    catch (final RaasException expected)
                    {
                        badErrors.incrementAndGet();
                    }
                }
            });
            misbehaving.start();

            final int[] issued = new int[GOOD];
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (goodCompletions.get() < (long)GOOD * INCREMENTS && System.nanoTime() < deadline)
            {
                for (int i = 0; i < GOOD; i++)
                {
                    while (issued[i] < INCREMENTS && inFlight[i].get() < WINDOW)
                    {
                        inFlight[i].incrementAndGet();
                        good.get(i).faaAsync(counters, i * 8L, 1, issued[i]++);
                    }
                    good.get(i).flush();
                }
                pair.a.poll();
            }
            stop.set(true);
            misbehaving.join(10_000);

            assertEquals(0, goodErrors.get(), "errors seen by the well-behaved connections");
            assertEquals((long)GOOD * INCREMENTS, goodCompletions.get());
            for (int i = 0; i < GOOD; i++)
            {
                assertEquals(INCREMENTS, good.get(i).faa(counters, i * 8L, 0),
                    "increments counted for connection " + i);
            }
            assertTrue(badErrors.get() > 0, "the misbehaving connection saw its errors");
            assertTrue(((RaasDriver)pair.a).recycledQueuePairs() > 0, "the shared queue pair broke and was recycled");
            System.out.println(provider + ": misbehaving errors " + badErrors.get() + ", recycles " +
                ((RaasDriver)pair.a).recycledQueuePairs());
        }
    }
}
