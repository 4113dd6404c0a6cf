package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.raas.Raas;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's other forms: keys spread over several memory nodes, multiGet, the asynchronous
 * operations and the MemorySegment variants, all agreeing with the synchronous byte[] ones.
 */
class ClientApiTest
{
    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void keysSpreadOverMemoryNodesAndMultiGetAnswersInOrder()
    {
        try (KvCluster cluster = new KvCluster("shm", 3, context -> context))
        {
            for (int i = 0; i < 300; i += 2)
            {
                cluster.client.put(bytes("k" + i), bytes("v" + i));
            }
            for (final MemoryNode node : cluster.memoryNodes)
            {
                assertTrue(node.chunksAllocated() > 0, "memory node " + node.nodeId() + " got keys");
            }
            final List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 300; i++)
            {
                keys.add(bytes("k" + i));
            }
            final List<byte[]> values = cluster.client.multiGet(keys);
            assertEquals(300, values.size());
            for (int i = 0; i < 300; i++)
            {
                if (i % 2 == 0)
                {
                    assertArrayEquals(bytes("v" + i), values.get(i), "k" + i);
                }
                else
                {
                    assertNull(values.get(i), "k" + i);
                }
            }
        }
    }

    @Test
    void aClientSpreadOverLanesKeepsOneStoreWhateverLaneAThreadIsOn() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm", 2, context -> context);
            Raas secondLane =
                RaasDriver.start(KvCluster.context("shm", KvCluster.CLIENT_NODE_ID + 1), cluster.directory);
            KvClient client = KvClient.connect(List.of(cluster.clientRaas, secondLane),
                new KvClientContext().memoryNodes(cluster.memoryNodes.stream().mapToLong(MemoryNode::nodeId).toArray())
                .timeoutMs(2_000)))
        {
            final byte[] counter = bytes("lanes-counter");
            final int threads = 4;
            final int perThread = 200;
            Race.run(threads, thread ->
            {
                client.put(bytes("lane-key-" + thread), bytes("from thread " + thread));
                for (int i = 0; i < perThread; i++)
                {
                    Counters.increment(client, counter);
                }
            });
            // four threads on two lanes: increments from both lanes meet on one counter, none lost
            assertEquals(Long.toString(threads * perThread), new String(client.get(counter), StandardCharsets.UTF_8));
            for (int t = 0; t < threads; t++)
            {
                assertArrayEquals(bytes("from thread " + t), cluster.client.get(bytes("lane-key-" + t)),
                    "written on a lane, read by another client");
            }
        }
    }

    @Test
    void aClientGivenNoNodesSpreadsKeysOverTheMembersTheDirectoryLists()
    {
        try (KvCluster cluster = new KvCluster("shm", 3, context -> context);
            KvClient client = KvClient.connect(cluster.clientRaas, new KvClientContext().timeoutMs(2_000)))
        {
            for (int i = 0; i < 100; i++)
            {
                client.put(bytes("m" + i), bytes("v" + i));
            }
            for (final MemoryNode node : cluster.memoryNodes)
            {
                assertTrue(node.chunksAllocated() > 0, "memory node " + node.nodeId() + " got keys");
            }
            for (int i = 0; i < 100; i++)
            {
                assertArrayEquals(bytes("v" + i), cluster.client.get(bytes("m" + i)),
                    "the client given the ids finds them too");
            }
        }
    }

    @Test
    void asynchronousOperationsCompleteWithWhatTheSynchronousOnesReturn() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < 50; i++)
            {
                puts.add(cluster.client.putAsync(bytes("a" + i), bytes("x" + i)));
            }
            CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 50; i++)
            {
                assertArrayEquals(bytes("x" + i), cluster.client.getAsync(bytes("a" + i)).get(10, TimeUnit.SECONDS));
            }
            assertTrue(cluster.client.compareAndSetAsync(bytes("a1"), bytes("x1"), bytes("y1"))
                .get(10, TimeUnit.SECONDS));
            assertFalse(cluster.client.compareAndSetAsync(bytes("a1"), bytes("x1"), bytes("z1"))
                .get(10, TimeUnit.SECONDS));
            assertTrue(cluster.client.deleteAsync(bytes("a2")).get(10, TimeUnit.SECONDS));
            assertNull(cluster.client.multiGetAsync(List.of(bytes("a2"))).get(10, TimeUnit.SECONDS).get(0));

            final CompletableFuture<Void> refused = cluster.client.putAsync(new byte[70_000], bytes("v"));
            final CompletionException failure = assertThrows(CompletionException.class, refused::join);
            assertInstanceOf(IllegalArgumentException.class, failure.getCause());
        }
    }

    @Test
    void memorySegmentsGoInAndComeOutWithoutByteArrays()
    {
        try (KvCluster cluster = new KvCluster("shm"); Arena arena = Arena.ofConfined())
        {
            final MemorySegment key = arena.allocateFrom("segment-key").reinterpret("segment-key".length());
            final MemorySegment value = arena.allocate(1000);
            for (int i = 0; i < 1000; i++)
            {
                value.set(ValueLayout.JAVA_BYTE, i, (byte)i);
            }
            cluster.client.put(key, value);
            assertArrayEquals(value.toArray(ValueLayout.JAVA_BYTE), cluster.client.get(bytes("segment-key")),
                "the same key as bytes");

            final MemorySegment whole = arena.allocate(1000);
            assertEquals(1000, cluster.client.get(key, whole));
            assertEquals(-1, whole.mismatch(value));
            final MemorySegment part = arena.allocate(100);
            assertEquals(1000, cluster.client.get(key, part), "the whole length, though 100 bytes were copied");
            assertEquals(-1, part.mismatch(value.asSlice(0, 100)));

            final MemorySegment other = arena.allocate(10);
            assertFalse(cluster.client.compareAndSet(key, other, other), "it holds the 1,000 bytes, not these 10");
            assertTrue(cluster.client.compareAndSet(key, value, other));
            assertEquals(10, cluster.client.get(key, whole));

            assertTrue(cluster.client.delete(key));
            assertEquals(-1, cluster.client.get(key, whole));
            assertTrue(cluster.client.compareAndSet(key, null, value), "absent, as expected");
        }
    }
}
