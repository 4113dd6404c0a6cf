package io.dkv.raas;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The RaaS one-sided path allocates nothing in steady state: synchronous READ, WRITE, CAS and FAA
 * and asynchronous requests with their completions, on the calling thread.
 */
class RaasZeroAllocationTest
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void oneSidedRequestsAllocateNothingAfterWarmUp(final String provider)
    {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        try (RaasPair pair = new RaasPair(provider, context -> context.rcPromoteRequests(0).startAgents(false)))
        {
            final RemoteRegion region = pair.publishedByB("alloc", 1 << 16);
            final long[] completed = new long[1];
            final Connection connection = pair.a.open(pair.b.self().id(), (token, status, value) -> completed[0]++);
            final MemorySegment buffer = pair.a.allocateBuffer(4096);
            final MemorySegment heap = MemorySegment.ofArray(new byte[64]);

            final Runnable workload = () ->
            {
                connection.read(region, 0, buffer, 0, 8);
                connection.write(region, 64, heap, 0, 64);
                connection.read(region, 64, heap, 0, 64);
                connection.cas(region, 128, 0, 0);
                connection.faa(region, 136, 1);
                final long before = completed[0];
                connection.readAsync(region, 256, buffer, 256, 256, 1);
                connection.faaAsync(region, 144, 1, 2);
                connection.flush();
                while (completed[0] < before + 2)
                {
                    pair.a.poll();
                    pair.b.poll();
                }
            };
            for (int i = 0; i < 20_000; i++)
            {
                workload.run();
            }
            final long id = Thread.currentThread().threadId();
            final long measurement = THREADS.getThreadAllocatedBytes(id) - THREADS.getThreadAllocatedBytes(id);
            final long before = THREADS.getThreadAllocatedBytes(id);
            for (int i = 0; i < 5_000; i++)
            {
                workload.run();
            }
            final long after = THREADS.getThreadAllocatedBytes(id);
            assertEquals(0, after - before + measurement, "bytes allocated over 5,000 iterations of the RaaS workload");
        }
    }
}
