package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * get, put, delete and compare-and-set from a client node against a memory node whose CPU only
 * hands out heap chunks: what a user of the store sees, key by key.
 */
class KeyValueOperationsTest
{
    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aValueIsPutReadOverwrittenAndDeleted(final String provider)
    {
        try (KvCluster cluster = new KvCluster(provider))
        {
            assertNull(cluster.client.get(bytes("fruit")));
            cluster.client.put(bytes("fruit"), bytes("apple"));
            assertArrayEquals(bytes("apple"), cluster.client.get(bytes("fruit")));
            cluster.client.put(bytes("fruit"), bytes("pear"));
            assertArrayEquals(bytes("pear"), cluster.client.get(bytes("fruit")));
            assertTrue(cluster.client.delete(bytes("fruit")));
            assertNull(cluster.client.get(bytes("fruit")));
            assertFalse(cluster.client.delete(bytes("fruit")), "deleting what is gone says so");
            cluster.client.put(bytes("fruit"), bytes("fig"));
            assertArrayEquals(bytes("fig"), cluster.client.get(bytes("fruit")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void compareAndSetWritesOnlyOverTheExpectedValue(final String provider)
    {
        try (KvCluster cluster = new KvCluster(provider))
        {
            final byte[] key = bytes("lock");
            assertTrue(cluster.client.compareAndSet(key, null, bytes("a")), "absent, as expected");
            assertFalse(cluster.client.compareAndSet(key, null, bytes("b")), "no longer absent");
            assertFalse(cluster.client.compareAndSet(key, bytes("x"), bytes("b")), "holds a, not x");
            assertArrayEquals(bytes("a"), cluster.client.get(key));
            assertTrue(cluster.client.compareAndSet(key, bytes("a"), bytes("b")));
            assertArrayEquals(bytes("b"), cluster.client.get(key));
            assertFalse(cluster.client.compareAndSet(bytes("absent"), bytes("b"), bytes("c")),
                "an absent key holds no value");
            assertNull(cluster.client.get(bytes("absent")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aVersionedWriteSucceedsOnlyIfNobodyWroteTheKeySince(final String provider)
    {
        try (KvCluster cluster = new KvCluster(provider))
        {
            final byte[] key = bytes("doc");
            assertNull(cluster.client.getVersioned(key));
            cluster.client.put(key, bytes("v1"));

            final Versioned first = cluster.client.getVersioned(key);
            assertArrayEquals(bytes("v1"), first.value());
            assertTrue(cluster.client.compareAndSetVersion(key, first, bytes("v2")), "nobody wrote it since");
            assertArrayEquals(bytes("v2"), cluster.client.get(key));
            assertFalse(cluster.client.compareAndSetVersion(key, first, bytes("v3")), "the version was replaced by v2");

            final Versioned second = cluster.client.getVersioned(key);
            cluster.client.put(key, bytes("v2"));
            assertFalse(cluster.client.compareAndSetVersion(key, second, bytes("v3")),
                "rewritten with the same bytes: another version");
            assertArrayEquals(bytes("v2"), cluster.client.get(key));

            final Versioned third = cluster.client.getVersioned(key);
            assertTrue(cluster.client.delete(key));
            assertFalse(cluster.client.compareAndSetVersion(key, third, bytes("v3")), "deleted since");
            assertNull(cluster.client.get(key), "a failed versioned write leaves nothing");

            cluster.client.put(key, bytes("v4"));
            assertFalse(cluster.client.compareAndSetVersion(key, third, bytes("v5")),
                "put again since: another version");
            assertArrayEquals(bytes("v4"), cluster.client.get(key));
            assertThrows(IllegalArgumentException.class,
                () -> cluster.client.compareAndSetVersion(key, null, bytes("x")));
        }
    }

    @Test
    void aVersionOlderThanTheGracePeriodAllowsIsComparedByItsValue()
    {
        // grace period 2 s, client timeout 1 s: a version is compared as a word for 1 s of the client's clock
        final CachedNanoClock clock = new CachedNanoClock();
        try (KvCluster cluster = new KvCluster("shm", 1, context -> context.graceMs(2_000));
            KvClient client = KvClient.connect(cluster.clientRaas,
                new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID).timeoutMs(1_000).nanoClock(clock)))
        {
            final byte[] key = bytes("slow reader");
            client.put(key, bytes("same"));
            final Versioned young = client.getVersioned(key);
            client.put(key, bytes("same"));
            clock.advance(TimeUnit.MILLISECONDS.toNanos(999));
            assertFalse(client.compareAndSetVersion(key, young, bytes("next")), "a young version is its word");

            final Versioned old = client.getVersioned(key);
            client.put(key, bytes("same"));
            clock.advance(TimeUnit.MILLISECONDS.toNanos(1_000));
            assertTrue(client.compareAndSetVersion(key, old, bytes("next")),
                "an old version's word may name a reused block: its value, still the same, decides");
            assertArrayEquals(bytes("next"), client.get(key));
            assertFalse(client.compareAndSetVersion(key, old, bytes("later")),
                "by value too, it no longer holds");
        }
    }

    @Test
    void keysAndValuesOfEveryAllowedSizeRoundTrip()
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final ThreadLocalRandom random = ThreadLocalRandom.current();
            final int[][] sizes =
                {{1, 0}, {1, 1}, {7, 57}, {100, 1000}, {65_536, 10}, {16, 1 << 20}, {65_536, 1 << 20}};
            for (final int[] size : sizes)
            {
                final byte[] key = new byte[size[0]];
                final byte[] value = new byte[size[1]];
                random.nextBytes(key);
                random.nextBytes(value);
                cluster.client.put(key, value);
                assertArrayEquals(value, cluster.client.get(key),
                    "key of " + size[0] + " B, value of " + size[1] + " B");
            }
        }
    }

    @Test
    void oversizedKeysAndValuesAreRefusedAndNothingIsWritten()
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final int chunksBefore = cluster.memoryNode.chunksAllocated();
            final IllegalArgumentException longKey = assertThrows(IllegalArgumentException.class,
                () -> cluster.client.put(new byte[65_537], bytes("v")));
            assertTrue(longKey.getMessage().contains("65537 bytes"), longKey.getMessage());
            assertThrows(IllegalArgumentException.class, () -> cluster.client.put(bytes("k"), new byte[(1 << 20) + 1]));
            assertThrows(IllegalArgumentException.class, () -> cluster.client.put(new byte[0], bytes("v")));
            assertEquals(chunksBefore, cluster.memoryNode.chunksAllocated(), "no heap was taken");
            assertNull(cluster.client.get(bytes("k")));
        }
    }

    @Test
    void thousandsOfKeysAreAllFound()
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            for (int i = 0; i < 5_000; i++)
            {
                cluster.client.put(bytes("key-" + i), bytes("value-" + i));
            }
            for (int i = 0; i < 5_000; i++)
            {
                assertArrayEquals(bytes("value-" + i), cluster.client.get(bytes("key-" + i)), "key-" + i);
            }
            for (int i = 0; i < 5_000; i += 2)
            {
                assertTrue(cluster.client.delete(bytes("key-" + i)));
            }
            for (int i = 0; i < 5_000; i++)
            {
                final byte[] value = cluster.client.get(bytes("key-" + i));
                if (i % 2 == 0)
                {
                    assertNull(value, "key-" + i);
                }
                else
                {
                    assertArrayEquals(bytes("value-" + i), value, "key-" + i);
                }
            }
        }
    }

    @Test
    void aFullSubtableSplitsAndEveryKeyStaysFound()
    {
        // one bucket group per subtable: 21 slots each, so 500 keys take many splits
        try (KvCluster cluster = new KvCluster("shm", context -> context.indexGroups(1).maxGlobalDepth(8)))
        {
            for (int i = 0; i < 500; i++)
            {
                cluster.client.put(bytes("k" + i), bytes("v" + i));
            }
            final MemorySegment index = cluster.index();
            assertTrue(IndexInspector.subtables(index) > 24, IndexInspector.subtables(index) + " subtables");
            for (int i = 0; i < 500; i++)
            {
                assertArrayEquals(bytes("v" + i), cluster.client.get(bytes("k" + i)), "k" + i);
            }
            for (int i = 0; i < 500; i += 2)
            {
                assertTrue(cluster.client.delete(bytes("k" + i)));
                cluster.client.put(bytes("k" + (i + 1)), bytes("w" + i));
            }
            for (int i = 0; i < 500; i += 2)
            {
                assertNull(cluster.client.get(bytes("k" + i)));
                assertArrayEquals(bytes("w" + i), cluster.client.get(bytes("k" + (i + 1))));
            }
        }
    }

    @Test
    void aVersionReadBeforeSplitsMovedItsSlotStillWrites()
    {
        try (KvCluster cluster = new KvCluster("shm", context -> context.indexGroups(1).maxGlobalDepth(8)))
        {
            final Versioned[] versions = new Versioned[20];
            for (int i = 0; i < versions.length; i++)
            {
                cluster.client.put(bytes("early" + i), bytes("v" + i));
                versions[i] = cluster.client.getVersioned(bytes("early" + i));
            }
            for (int i = 0; i < 500; i++)
            {
                cluster.client.put(bytes("k" + i), bytes("v" + i));
            }
            final MemorySegment index = cluster.index();
            assertTrue(IndexInspector.subtables(index) > 24, IndexInspector.subtables(index) + " subtables");
            // each split moved about half of a subtable's keys, with their words, to its new half
            for (int i = 0; i < versions.length; i++)
            {
                assertTrue(cluster.client.compareAndSetVersion(bytes("early" + i), versions[i], bytes("w" + i)),
                    "early" + i);
                assertArrayEquals(bytes("w" + i), cluster.client.get(bytes("early" + i)));
            }
        }
    }

    @Test
    void aFullBucketPairThatCannotSplitIsAClearErrorAndLosesNothing()
    {
        // one bucket group and no room to split: every key's candidates are among its two combined buckets, 21 slots in
        // all
        try (KvCluster cluster = new KvCluster("shm", context -> context.indexGroups(1).maxGlobalDepth(0)))
        {
            int stored = 0;
            KvException full = null;
            for (int i = 0; i < 100 && full == null; i++)
            {
                try
                {
                    cluster.client.put(bytes("k" + i), bytes("v" + i));
                    stored++;
                }
                catch (final KvException ex)
                {
                    full = ex;
                }
            }
            assertTrue(full != null && full.getMessage().contains("cannot split further"), String.valueOf(full));
            assertTrue(full.getMessage().contains("memory node " + KvCluster.MEMORY_NODE_ID), full.getMessage());
            // a key whose two candidates are the same combined bucket sees 14 of the 21 slots
            assertTrue(stored >= 14 && stored <= 21, stored + " keys stored");
            for (int i = 0; i < stored; i++)
            {
                assertArrayEquals(bytes("v" + i), cluster.client.get(bytes("k" + i)));
            }
            cluster.client.put(bytes("k0"), bytes("updated"));
            assertArrayEquals(bytes("updated"), cluster.client.get(bytes("k0")), "updates need no free slot");
        }
    }

    @Test
    void aFullHeapIsAClearErrorNotAHang()
    {
        // a heap of 8 KiB: chunks are granted at most 4 KiB, the first one asked for being larger
        try (KvCluster cluster = new KvCluster("shm", context -> context.chunkBytes(4096).heapChunks(2)))
        {
            final byte[] value = new byte[1000];
            final KvException full = assertThrows(KvException.class, () ->
            {
                for (int i = 0; i < 100; i++)
                {
                    cluster.client.put(bytes("k" + i), value);
                }
            });
            assertTrue(full.getMessage().contains("memory node 1 is full"), full.getMessage());
            assertTrue(cluster.memoryNode.chunksAllocated() >= 1);
            assertArrayEquals(value, cluster.client.get(bytes("k0")));
            assertTrue(Arrays.equals(value, cluster.client.get(bytes("k5"))));
        }
    }
}
