package io.dkv.client;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.StaticDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client's durability changed while it runs ({@link KvClient#durability(Durability)}, what a compute node's CONFIG
 * SET appendfsync does): the writes that begin after the change promise what it says, synchronous ones and those
 * carried by completions alike; writes under way finish under the durability they began with, so none is left with a
 * block written pending and its node never told. A durability that needs a disk is refused over a memory node that
 * keeps none, naming it, and nothing changes.
 */
class DurabilitySwitchTest
{
    private final Opened open = new Opened();
    private final List<MemoryNode> nodes = new ArrayList<>();

    @TempDir
    Path data;

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @Test
    void theWritesThatBeginAfterAChangePromiseWhatItSays()
    {
        final KvClient client = store(true);
        assertEquals(Durability.NONE, client.durability());
        client.put(bytes("memory-only"), bytes("v"));
        assertEquals(0, persisted(), "durability none tells the node nothing");

        client.durability(Durability.SYNC);
        client.put(bytes("sync"), bytes("v"));
        // under sync a write returns once its node has the key on disk: counted before it answered
        assertEquals(1, persisted());
        client.putAsync(bytes("sync-async"), bytes("v")).join();
        assertEquals(2, persisted());

        client.durability(Durability.NONE);
        client.put(bytes("memory-only-again"), bytes("v"));
        assertEquals(2, persisted());
        final PersistCounts counts = client.persistCounts();
        assertEquals(List.of(2L, 0L, 0L), List.of(counts.told(), counts.pending(), counts.failed()), counts.toString());
        for (final String key : List.of("memory-only", "sync", "sync-async", "memory-only-again"))
        {
            assertArrayEquals(bytes("v"), client.get(bytes(key)), key);
        }
    }

    @Test
    void writesInFlightWhenDurabilityDropsToNoneAreStillToldAndReadBackSettled()
    {
        final KvClient client = store(true);
        client.durability(Durability.SYNC);
        final List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        for (int i = 0; i < 16; i++)
        {
            inFlight.add(client.putAsync(bytes("in-flight-" + i), bytes("v" + i)));
        }
        client.durability(Durability.NONE);
        inFlight.forEach(CompletableFuture::join);
        // each write carried on under sync was told to its node, which has it on disk; one that its completions
        // handed back before anything of it was visible began again, under none
        final PersistCounts counts = client.persistCounts();
        assertEquals(0, counts.pending(), counts.toString());
        assertEquals(0, counts.failed(), counts.toString());
        final long persisted = persisted();
        assertTrue(persisted >= counts.told() && counts.told() > 0, persisted + " persisted, " + counts);
        for (int i = 0; i < 16; i++)
        {
            assertArrayEquals(bytes("v" + i), client.get(bytes("in-flight-" + i)));
        }
        // no block was left pending with its node never told: a reader meeting one would have the node write it
        assertEquals(persisted, persisted());
    }

    @Test
    void aDurabilityThatNeedsADiskIsRefusedOverANodeThatKeepsNoneAndNothingChanges()
    {
        final KvClient client = store(false);
        final long[] without = client.memoryNodesWithoutDisk();
        assertEquals(1, without.length);
        final KvException refused = assertThrows(KvException.class, () -> client.durability(Durability.ASYNC));
        assertEquals("memory node " + without[0] + " keeps nothing on disk (start it with a data directory), so " +
            "durability async cannot be had", refused.getMessage());
        assertEquals(Durability.NONE, client.durability());
        client.put(bytes("k"), bytes("v"));
        assertArrayEquals(bytes("v"), client.get(bytes("k")));
    }

    private KvClient store(final boolean withDisk)
    {
        final long id = ThreadLocalRandom.current().nextLong(1_000, 1L << 40);
        final AtomicInteger made = new AtomicInteger();
        return open.store(new StaticDirectory(), new long[]{id}, 1, new KvClientContext(), () ->
        {
            final MemoryNodeContext node = new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20).heapChunks(16);
            return withDisk ? node.dataDir(data.resolve("node-" + made.incrementAndGet())) : node;
        }, nodes);
    }

    private long persisted()
    {
        return nodes.stream().mapToLong(node -> node.persistStats().keysPersisted()).sum();
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
