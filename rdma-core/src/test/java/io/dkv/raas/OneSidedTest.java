package io.dkv.raas;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-sided requests through RaaS logical connections: a named region on one node, read, written
 * and updated atomically from another with nothing but a lookup; requests that would break a
 * shared queue pair are refused before they reach it.
 */
class OneSidedTest
{
    static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aNamedRegionIsReadWrittenAndUpdatedFromAnotherNode(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RemoteRegion owned = pair.b.malloc(pair.b.self().id(), 1 << 20, "table");
            final RemoteRegion region = pair.a.lookup("table");
            assertEquals(owned, region);
            final Connection connection = pair.a.open(pair.b.self().id(), null);

            final byte[] data = new byte[3000];
            ThreadLocalRandom.current().nextBytes(data);
            connection.write(region, 4096, MemorySegment.ofArray(data), 0, data.length);
            assertArrayEquals(data,
                pair.b.localMemory(owned).asSlice(4096, data.length).toArray(ValueLayout.JAVA_BYTE));

            final byte[] back = new byte[3000];
            connection.read(region, 4096, MemorySegment.ofArray(back), 0, back.length);
            assertArrayEquals(data, back);

            assertEquals(0, connection.faa(region, 64, 5));
            assertEquals(5, connection.cas(region, 64, 5, 9));
            assertEquals(9, connection.cas(region, 64, 5, 11), "a failed compare returns the current word");
            assertEquals(9, pair.b.localMemory(owned).get(BE_LONG, 64));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void largeTransfersUseTheCallersRegisteredMemory(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider); Arena arena = Arena.ofShared())
        {
            final RemoteRegion owned = pair.b.malloc(pair.b.self().id(), 1 << 20, "big");
            final RemoteRegion region = pair.a.lookup("big");
            final Connection connection = pair.a.open(pair.b.self().id(), null);
            final MemorySegment buffer = arena.allocate(200_000);
            for (int i = 0; i < 200_000; i += 8)
            {
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 31L);
            }
            connection.write(region, 0, buffer, 0, 200_000);
            final MemorySegment back = arena.allocate(200_000);
            connection.read(region, 0, back, 0, 200_000);
            assertEquals(-1, buffer.mismatch(back));
            assertEquals(-1, buffer.mismatch(pair.b.localMemory(owned).asSlice(0, 200_000)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void asynchronousRequestsCompleteThroughTheHandlerWithTheirTokens(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RemoteRegion region = pair.publishedByB("counters", 1 << 16);
            final ConcurrentHashMap<Long, Long> values = new ConcurrentHashMap<>();
            final AtomicInteger failures = new AtomicInteger();
            final Connection connection = pair.a.open(pair.b.self().id(), (token, status, value) ->
            {
                if (status != RaasStatus.SUCCESS)
                {
                    failures.incrementAndGet();
                }
                values.put(token, value);
            });
            for (int i = 0; i < 1000; i++)
            {
                connection.faaAsync(region, (i % 16) * 8L, 1, i);
            }
            connection.flush();
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (values.size() < 1000 && System.nanoTime() < deadline)
            {
                pair.a.poll();
            }
            assertEquals(1000, values.size());
            assertEquals(0, failures.get());
            for (int slot = 0; slot < 16; slot++)
            {
                assertEquals(1000 / 16 + (slot < 1000 % 16 ? 1 : 0), connection.faa(region, slot * 8L, 0));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void requestsThatWouldBreakASharedQueuePairAreRefusedBeforePosting(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RemoteRegion region = pair.publishedByB("small", 4096);
            final Connection connection = pair.a.open(pair.b.self().id(), null);
            final MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
            assertTrue(assertThrows(RaasException.class, () -> connection.read(region, 4090, buffer, 0, 8))
                .getMessage().contains("OUT_OF_BOUNDS"));
            assertTrue(assertThrows(RaasException.class, () -> connection.faa(region, 4, 1))
                .getMessage().contains("MISALIGNED"));
            final RemoteRegion forged = new RemoteRegion("small", region.nodeId(), region.nodeEpoch(), region.address(),
                region.rkey() + 256, region.length(), region.access(), 1);
            assertTrue(assertThrows(RaasException.class, () -> connection.read(forged, 0, buffer, 0, 8))
                .getMessage().contains("NOT_OWNED"));
            assertEquals(0, connection.faa(region, 8, 1), "the connection still works");
            assertEquals(0, ((io.dkv.raas.driver.RaasDriver)pair.a).recycledQueuePairs(),
                "nothing reached a shared queue pair");
        }
    }
}
