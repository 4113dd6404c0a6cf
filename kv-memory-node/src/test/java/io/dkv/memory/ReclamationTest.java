package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.format.HeapLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.SlotWord;
import io.dkv.raas.Raas;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replaced and deleted blocks come back: a chunk no slot points into is handed out again after the
 * grace period, so a small heap takes many times its size in updates; what a client that went away
 * left half done (blocks never published, a tentative slot) is never seen and is reclaimed too. The grace period is
 * the node's clock's to measure.
 */
class ReclamationTest
{
    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aSmallHeapTakesManyTimesItsSizeInUpdates() throws Exception
    {
        // 16 chunks of 4 KiB, four 1 KiB blocks each: 64 blocks, and 240 puts
        try (KvCluster cluster =
            new KvCluster("shm", 1, context -> context.chunkBytes(4096).heapChunks(16).graceMs(300)))
        {
            try (KvClient client =
                KvClient.connect(cluster.clientRaas, new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID)
                .timeoutMs(200)))
            {
                final byte[] value = new byte[900];
                for (int i = 0; i < 240; i++)
                {
                    value[0] = (byte)i;
                    putWaitingForRoom(client, bytes("key-" + (i % 8)), value);
                }
                for (int k = 0; k < 8; k++)
                {
                    final byte[] read = client.get(bytes("key-" + k));
                    assertEquals(900, read.length);
                    assertEquals((byte)(232 + k), read[0], "key-" + k + " holds its last value");
                }
            }
            assertTrue(cluster.memoryNode.chunksReclaimed() >= 40,
                cluster.memoryNode.chunksReclaimed() + " chunks came back");
        }
    }

    @Test
    void whatAClientThatWentAwayLeftHalfDoneIsNeverSeenAndIsReclaimed() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm", 1, context -> context.graceMs(300)))
        {
            final long ghostBlock;
            try (Raas goneRaas = RaasDriver.start(KvCluster.context("shm", 200), cluster.directory);
                KvClient gone =
                    KvClient.connect(goneRaas,
                        new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID).timeoutMs(200)))
            {
                // its block is written into the chunk, and never published
                assertFalse(gone.compareAndSet(bytes("ghost"), bytes("not there"), bytes("never seen")));
                gone.put(bytes("kept"), bytes("published"));
                // the first chunk handed out starts after the heap's header: its first block is the unpublished one
                ghostBlock = HeapLayout.HEADER_LENGTH;
                final long tentative =
                    SlotWord.tentative(SlotWord.committed(KeyHash.fingerprint(KeyHash.hash(bytes("ghost"))), ghostBlock,
                        64));
                final MemorySegment index = cluster.index();
                // as if it had died between its tentative CAS and its commit
                index.set(SLOT, IndexInspector.firstEmptySlot(index), tentative);
                assertNull(gone.get(bytes("ghost")));
            }
            try (KvClient client =
                KvClient.connect(cluster.clientRaas, new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID)
                .timeoutMs(200)))
            {
                assertArrayEquals(bytes("published"), client.get(bytes("kept")));
                assertNull(client.get(bytes("ghost")), "a tentative slot is never seen");
                assertEquals(0, cluster.memoryNode.chunksReclaimed(), "a published block keeps its chunk");
                assertTrue(client.delete(bytes("kept")));
                KvCluster.awaitTrue(() -> cluster.memoryNode.chunksReclaimed() >= 1);
                assertNull(client.get(bytes("ghost")));
                final MemorySegment index = cluster.index();
                assertEquals(0, slotsPointingAt(index, ghostBlock), "the unfinished insert's slot was cleared");
            }
        }
    }

    @Test
    void aChunkComesBackOnceTheNodesClockSaysTheGracePeriodIsOver() throws Exception
    {
        final int graceMs = 60_000;
        final CachedNanoClock clock = new CachedNanoClock();
        try (KvCluster cluster = new KvCluster("shm", 1,
            context -> context.chunkBytes(4096).heapChunks(16).graceMs(graceMs).nanoClock(clock));
            KvClient writer = KvClient.connect(cluster.clientRaas,
                new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID).timeoutMs(200)))
        {
            writer.put(bytes("deleted"), bytes("its block is the first chunk's only one"));
            assertTrue(cluster.client.delete(bytes("deleted")));
            // too big for what the first chunk has left: the writer retires it, then is granted another
            writer.put(bytes("next"), new byte[4_000]);
            assertEquals(0, cluster.memoryNode.chunksReclaimed(), "held for a grace period of the node's clock");
            clock.advance(TimeUnit.MILLISECONDS.toNanos(graceMs));
            KvCluster.awaitTrue(() -> cluster.memoryNode.chunksReclaimed() == 1);
        }
    }

    @Test
    void aClientWhoseTimeoutIsNotShorterThanTheGracePeriodIsRefused()
    {
        try (KvCluster cluster = new KvCluster("shm", 1, context -> context.graceMs(300)))
        {
            final KvException refused = assertThrows(KvException.class, () ->
                KvClient.connect(cluster.clientRaas,
                    new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID).timeoutMs(300)));
            assertTrue(refused.getMessage().contains("grace period of 300 ms"), refused.getMessage());
        }
    }

    private static void putWaitingForRoom(final KvClient client, final byte[] key,
        final byte[] value) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true)
        {
            try
            {
                client.put(key, value);
                return;
            }
            catch (final KvException ex)
            {
                if (!ex.getMessage().contains("is full") || System.nanoTime() > deadline)
                {
                    throw ex;
                }
                Thread.sleep(20);
            }
        }
    }


    private static int slotsPointingAt(final MemorySegment index, final long block)
    {
        final int[] count = new int[1];
        IndexInspector.forEachSlot(index, (slot, word) ->
        {
            if (word != SlotWord.EMPTY && SlotWord.blockOffset(word) == block)
            {
                count[0]++;
            }
        });
        return count[0];
    }
}
