package io.dkv.raas;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Many threads submitting at once, synchronous and asynchronous, over logical connections that
 * share the driver's queue pairs: whoever posts and polls, every request completes exactly once
 * and its effect is counted once.
 */
class ConcurrencyTest
{
    private static final int THREADS = 6;
    private static final int CONNECTIONS_PER_THREAD = 20;
    private static final int OPERATIONS = 3000;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void threadsSharingTheDriverLoseAndDuplicateNothing(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.connectionCredits(8).qpDepth(32)))
        {
            final long target = pair.b.self().id();
            final RemoteRegion region = pair.publishedByB("shared", 1 << 16);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final AtomicLong asyncCompleted = new AtomicLong();
            final AtomicInteger asyncFailed = new AtomicInteger();
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++)
            {
                final int thread = t;
                threads.add(new Thread(() ->
                {
                    try
                    {
                        final List<Connection> connections = new ArrayList<>();
                        for (int c = 0; c < CONNECTIONS_PER_THREAD; c++)
                        {
                            connections.add(pair.a.open(target, (token, status, value) ->
                            {
                                if (status != RaasStatus.SUCCESS)
                                {
                                    asyncFailed.incrementAndGet();
                                }
                                asyncCompleted.incrementAndGet();
                            }));
                        }
                        final MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
                        for (int i = 0; i < OPERATIONS; i++)
                        {
                            final Connection connection = connections.get(i % CONNECTIONS_PER_THREAD);
                            switch (i % 4)
                            {
                                case 0 -> connection.faa(region, 0, 1);
                                case 1 -> connection.faaAsync(region, 8, 1, i);
                                case 2 ->
                                {
                                    buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, thread * 1_000_000L + i);
                                    connection.write(region, 1024 + thread * 64L, buffer, 0, 8);
                                    connection.read(region, 1024 + thread * 64L, buffer, 8, 8);
                                    assertEquals(thread * 1_000_000L + i,
                                        buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
                                }
                                default -> connection.flush();
                            }
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failure.compareAndSet(null, ex);
                    }
                }, "submitter-" + t));
            }
            threads.forEach(Thread::start);
            for (final Thread thread : threads)
            {
                thread.join(60_000);
            }
            assertNull(failure.get());
            final long expectedAsync = (long)THREADS * (OPERATIONS / 4);
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (asyncCompleted.get() < expectedAsync && System.nanoTime() < deadline)
            {
                pair.a.poll();
            }
            assertEquals(expectedAsync, asyncCompleted.get());
            assertEquals(0, asyncFailed.get());
            final Connection check = pair.a.open(target, null);
            assertEquals((long)THREADS * (OPERATIONS / 4), check.faa(region, 0, 0), "synchronous increments");
            assertEquals(expectedAsync, check.faa(region, 8, 0), "asynchronous increments");
        }
    }
}
