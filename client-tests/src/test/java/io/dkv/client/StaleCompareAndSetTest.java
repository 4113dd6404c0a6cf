package io.dkv.client;

import io.dkv.format.HeapLayout;
import io.dkv.format.SlotWord;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Connection;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client (or its driver) stopped past the grace period with a CAS in flight cannot put an old value back: by the
 * time it resumes, the chunk of the block its expected word named may have been handed out again and a block of the
 * same key, length and offset written there, so that without the chunk's generation in the word the CAS would find
 * its expected word and land over every write made meanwhile. Here the stopped client's CAS is posted by the test
 * from the word it read, after the key's writes brought a block back to that offset; the node's clock is the test's,
 * so the grace periods pass when the test says.
 */
class StaleCompareAndSetTest
{
    private static final long NODE_ID = 1;
    private static final byte[] KEY = "fenced".getBytes(StandardCharsets.UTF_8);
    private static final int GRACE_MS = 60_000;
    private static final int VALUE_LENGTH = 3_500;
    private static final int MAX_PUTS = 200;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aCasFromAWordReadBeforeItsChunkCameBackFindsNoSlotHoldingIt(final String provider) throws Exception
    {
        final CachedNanoClock nodeClock = new CachedNanoClock();
        final Raas memoryRaas =
            RaasDriver.start(Opened.driver(provider, NODE_ID).role(NodeRecord.ROLE_MEMORY), directory);
        open.add(memoryRaas);
        // one block per chunk and four chunks: every put takes a chunk, and a full heap waits for one to come back
        final MemoryNode memoryNode = MemoryNode.start(memoryRaas, new MemoryNodeContext()
            .indexGroups(64).chunkBytes(4096).heapChunks(4).graceMs(GRACE_MS).nanoClock(nodeClock));
        open.add(memoryNode);
        final Raas clientRaas = RaasDriver.start(Opened.driver(provider, 100), directory);
        open.add(clientRaas);
        final KvClient client = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(NODE_ID));
        open.add(client);

        client.put(KEY, value(0));
        final Versioned stale = client.getVersioned(KEY);
        assertNotNull(stale);

        // the key is written on and on: its first chunk is retired, kept for a grace period, handed out again, and
        // the key's block comes back to the offset the stale word names
        long current;
        int puts = 1;
        do
        {
            assertTrue(puts < MAX_PUTS, "no block of the key came back to heap offset " +
                SlotWord.blockOffset(stale.word) + " in " + MAX_PUTS + " puts (" +
                memoryNode.chunksReclaimed() + " chunks came back)");
            final byte[] next = value(puts);
            whenTheHeapHasRoom(() ->
            {
                client.put(KEY, next);
                return true;
            }, nodeClock, memoryNode);
            current = client.getVersioned(KEY).word;
            puts++;
        }
        while (SlotWord.blockOffset(current) != SlotWord.blockOffset(stale.word));
        assertEquals(SlotWord.fingerprint(stale.word), SlotWord.fingerprint(current));
        assertEquals(SlotWord.lengthHint(stale.word), SlotWord.lengthHint(current));

        final RemoteRegion index = clientRaas.lookup(HeapLayout.indexRegionName(NODE_ID));
        try (Connection connection = clientRaas.open(NODE_ID, null))
        {
            // what it swaps to does not matter here: had it landed, readers would find the key absent
            final long found = connection.cas(index, stale.slotOffset, stale.word, SlotWord.tentative(stale.word));
            assertNotEquals(stale.word, found, "the stopped client's CAS found another word and missed");
            assertEquals(current, found);
        }
        assertEquals(SlotWord.nextGeneration(SlotWord.generation(stale.word)), SlotWord.generation(current),
            "the chunk's next life");
        assertNotEquals(stale.word, current, "the same key, length and offset, and another word");
        assertArrayEquals(value(puts - 1), client.get(KEY), "the last put holds");
        assertEquals(current, client.getVersioned(KEY).word);
        assertFalse(whenTheHeapHasRoom(() -> client.compareAndSetVersion(KEY, stale, value(-1)), nodeClock, memoryNode),
            "nor does the client swap from a version read in the chunk's earlier life");
        assertArrayEquals(value(puts - 1), client.get(KEY));
    }

    /** @return what the write returned, once the heap had a chunk for it (the node's clock moved on meanwhile). */
    private static boolean whenTheHeapHasRoom(final BooleanSupplier write, final CachedNanoClock nodeClock,
        final MemoryNode memoryNode) throws InterruptedException
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                return write.getAsBoolean();
            }
            catch (final KvException ex)
            {
                if (!ex.getMessage().contains("is full") || attempt > 1_000)
                {
                    throw ex;
                }
                // the node scans for unused chunks, then keeps them a grace period, both by its clock
                final long before = memoryNode.chunksReclaimed();
                nodeClock.advance(TimeUnit.MILLISECONDS.toNanos(GRACE_MS));
                final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
                while (memoryNode.chunksReclaimed() == before && System.nanoTime() < deadline)
                {
                    Thread.sleep(1);
                }
            }
        }
    }

    private static byte[] value(final int version)
    {
        final byte[] value = new byte[VALUE_LENGTH];
        value[0] = (byte)version;
        value[1] = (byte)(version >> 8);
        return value;
    }

}
