package io.dkv.raas;

import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two applications attached to one standalone driver, one served as bulk and one as latency: the bulk
 * application's requests, queued and taken a few per duty cycle, still all complete, in order, and the latency
 * application's requests are served meanwhile.
 */
class IsolatedClientsTest
{
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(120)
    void aBulkApplicationsQueuedRequestsAllCompleteInOrderBesideALatencyOnesRequests(final String provider)
        throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = "isolation-" + UUID.randomUUID().toString().substring(0, 8);
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        // requests stay on the DC initiator they start on: a promotion to RC midway could reorder WRITEs in flight
        try (StandaloneDriver driver = StandaloneDriver.launch(RaasPair.context(provider, 1).driverName(name)
                .defaultWeight(2).rcPromoteRequests(Integer.MAX_VALUE), directory);
            Raas target = RaasDriver.start(RaasPair.context(provider, 2), directory);
            Raas bulk = AttachedRaas.attach(client(name).clientClass(ServiceClass.BULK));
            Raas latency = AttachedRaas.attach(client(name)))
        {
            final RemoteRegion owned = target.malloc(2, 1 << 20, "isolated");
            final AtomicLong completed = new AtomicLong();
            final AtomicLong failed = new AtomicLong();
            final Connection bulkConnection = bulk.open(2, (token, status, value) ->
            {
                if (status == RaasStatus.SUCCESS)
                {
                    completed.incrementAndGet();
                }
                else
                {
                    failed.incrementAndGet();
                }
            });
            final RemoteRegion forBulk = bulk.lookup("isolated");
            final RemoteRegion forLatency = latency.lookup("isolated");
            final Connection latencyConnection = latency.open(2, null);
            final MemorySegment words = bulk.allocateBuffer(8 * 64);
            final int writes = 2000;

            final CompletableFuture<Void> bulkRun = CompletableFuture.runAsync(() ->
            {
                // every WRITE of round r puts r into the same word: the last one read back says the order held
                for (int r = 1; r <= writes; r++)
                {
                    final int slot = r % 64;
                    words.set(WORD, slot * 8L, r);
                    bulkConnection.writeAsync(forBulk, 0, words, slot * 8L, 8, r);
                    bulkConnection.flush();
                    while (r - completed.get() - failed.get() >= 48)
                    {
                        bulk.poll();
                    }
                }
                while (completed.get() + failed.get() < writes)
                {
                    bulk.poll();
                }
            }, threads);
            final MemorySegment into = MemorySegment.ofArray(new byte[8]);
            int reads = 0;
            do
            {
                latencyConnection.read(forLatency, 4096, into, 0, 8);
                reads++;
            }
            while (!bulkRun.isDone());
            bulkRun.get();
            assertEquals(0, failed.get());
            assertEquals(writes, completed.get());
            assertEquals(writes, target.localMemory(owned).get(WORD, 0), "the bulk WRITEs were taken in order");
            assertTrue(reads > 0, "the latency application was served");
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    private static RaasContext client(final String name)
    {
        return new RaasContext().driverName(name).requestSlots(1024).clientDataBytes(1 << 20).timeoutMs(10_000);
    }
}
