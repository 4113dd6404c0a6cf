package io.dkv.raas.lite;

import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasPair;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LITE's remote-memory calls between three embedded drivers: memset and memcpy on regions of other nodes (the
 * caller's bytes never pass through the regions' owners' CPUs), and RPC served by one poll thread.
 */
class LiteCallsTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int SERVICE = 31;

    private final List<AutoCloseable> open = new ArrayList<>();
    private Raas a;
    private Raas b;
    private Raas c;

    private void nodes(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        a = add(RaasDriver.start(RaasPair.context(provider, 1), directory));
        b = add(RaasDriver.start(RaasPair.context(provider, 2), directory));
        c = add(RaasDriver.start(RaasPair.context(provider, 3), directory));
    }

    private <T extends AutoCloseable> T add(final T closeable)
    {
        open.add(closeable);
        return closeable;
    }

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void memsetAndMemcpyWorkOnRegionsOfOtherNodes(final String provider)
    {
        nodes(provider);
        final int length = 700_000;
        final RemoteRegion onB = b.malloc(b.self().id(), length, "source");
        final RemoteRegion onC = c.malloc(c.self().id(), length, "target");
        final byte[] data = new byte[length];
        new Random(5).nextBytes(data);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, b.localMemory(onB), 0, length);

        final RemoteMemory memory = new RemoteMemory(a);
        final RemoteRegion source = a.lookup("source");
        final RemoteRegion target = a.lookup("target");
        memory.memset(target, 0, length, (byte)0x5a);
        final MemorySegment onCMemory = c.localMemory(onC);
        for (int i = 0; i < length; i += 4099)
        {
            assertEquals(0x5a, onCMemory.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }

        // more than one staging chunk, at offsets that are not chunk-aligned
        memory.memcpy(target, 3, source, 11, length - 20);
        final byte[] copied = onCMemory.asSlice(3, length - 20).toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 11, length - 9), copied);
        assertEquals(0x5a, onCMemory.get(ValueLayout.JAVA_BYTE, 0), "bytes before the copy are untouched");

        // within one region, overlapping forward: as memmove
        memory.memcpy(source, 1000, source, 0, 400_000);
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 0, 400_000),
            b.localMemory(onB).asSlice(1000, 400_000).toArray(ValueLayout.JAVA_BYTE));

        final RaasException outside = assertThrows(RaasException.class,
            () -> memory.memset(target, length - 10, 11, (byte)1));
        assertTrue(outside.getMessage().contains("11 bytes at offset " + (length - 10)), outside.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void rpcCallsFromManyNodesAreServedByOnePollThread(final String provider) throws Exception
    {
        nodes(provider);
        final Set<String> servingThreads = ConcurrentHashMap.newKeySet();
        final RpcServer server = add(RpcServer.start(c, SERVICE, (caller, request, length, reply) ->
        {
            servingThreads.add(Thread.currentThread().getName());
            final String text = new String(request.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
            if (text.equals("fail"))
            {
                throw new IllegalArgumentException("asked to fail by node " + caller);
            }
            final byte[] answer = ("node " + caller + " said " + text.length() + " chars").getBytes();
            MemorySegment.copy(MemorySegment.ofArray(answer), 0, reply, 0, answer.length);
            return answer.length;
        }, 256 * 1024));

        final ExecutorService threads = Executors.newFixedThreadPool(4);
        try
        {
            final List<Future<?>> callers = new ArrayList<>();
            for (final Raas node : new Raas[] {a, b})
            {
                for (int t = 0; t < 2; t++)
                {
                    callers.add(threads.submit(() ->
                    {
                        try (RpcClient client = RpcClient.connect(node, c.self().id(), SERVICE, 256 * 1024))
                        {
                            final MemorySegment reply = MemorySegment.ofArray(new byte[100]);
                            for (int i = 1; i <= 50; i++)
                            {
                                final byte[] request = "x".repeat(i * 97).getBytes();
                                final int n = client.call(MemorySegment.ofArray(request), 0, request.length, reply,
                                    0, 100, WAIT);
                                assertEquals("node " + node.self().id() + " said " + (i * 97) + " chars",
                                    new String(reply.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)));
                            }
                        }
                        return null;
                    }));
                }
            }
            for (final Future<?> caller : callers)
            {
                caller.get();
            }
        }
        finally
        {
            threads.shutdownNow();
        }
        assertEquals(200, server.calls());
        assertEquals(Set.of("dkv-rpc-" + SERVICE), servingThreads);

        try (RpcClient client = RpcClient.connect(a, c.self().id(), SERVICE, 256 * 1024))
        {
            final MemorySegment reply = MemorySegment.ofArray(new byte[100]);
            final RaasException failed = assertThrows(RaasException.class,
                () -> client.call(MemorySegment.ofArray("fail".getBytes()), 0, 4, reply, 0, 100, WAIT));
            assertTrue(failed.getMessage().contains("asked to fail by node 1"), failed.getMessage());
            // the failure was that call's alone
            final byte[] big = new byte[200_000];
            final int n = client.call(MemorySegment.ofArray(big), 0, big.length, reply, 0, 100, WAIT);
            assertEquals("node 1 said 200000 chars", new String(reply.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)));
            final RaasException tooBig = assertThrows(RaasException.class,
                () -> client.call(MemorySegment.ofArray(new byte[300_000]), 0, 300_000, reply, 0, 100, WAIT));
            assertTrue(tooBig.getMessage().contains("at most 262144"), tooBig.getMessage());
        }
        assertEquals(1, server.failures());
    }
}
