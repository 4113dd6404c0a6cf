package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.format.KvBlockLayout;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The durable epoch each block carries (kv-memory-node/README.md, "Async across nodes"), over one copy of each key and
 * over two: a client writes at its clock's epoch, each copy of a write at the same one; a write is of the epoch of
 * every block its client read before it at least, and of the block it replaces, even a blind overwrite by a client
 * whose clock is behind the one that wrote it.
 */
class WriteEpochTest
{
    private static final long[] IDS = {1, 2};
    private static final long CLIENT = 100;
    private static final long START = 1_767_225_600_000L;
    private static final long AHEAD_MS = 60_000;
    private static final int EPOCH_MS = 50;

    private final StaticDirectory directory = new StaticDirectory();
    private final List<Raas> raases = new ArrayList<>();
    private final List<MemoryNode> nodes = new ArrayList<>();
    private final List<KvClient> clients = new ArrayList<>();
    private Raas clientRaas;

    void start()
    {
        directory.membership(new Membership(1, 2, IDS, new int[]{Membership.LIVE, Membership.LIVE}));
        for (final long id : IDS)
        {
            final Raas raas = RaasDriver.start(KvCluster.context("shm", id).role(NodeRecord.ROLE_MEMORY), directory);
            raases.add(raas);
            nodes.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20)
                .heapChunks(16)));
        }
        clientRaas = RaasDriver.start(KvCluster.context("shm", CLIENT), directory);
    }

    /** @return a client of its own clock, at {@code millis}, writing {@code copies} copies of each key. */
    private KvClient client(final int copies, final long millis)
    {
        final CachedEpochClock clock = new CachedEpochClock();
        clock.update(millis);
        final KvClient client = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS).timeoutMs(2_000)
            .replicas(copies).epochMs(EPOCH_MS).epochClock(clock));
        clients.add(client);
        return client;
    }

    @AfterEach
    void close()
    {
        clients.forEach(KvClient::close);
        nodes.forEach(MemoryNode::close);
        if (clientRaas != null)
        {
            clientRaas.close();
        }
        raases.forEach(Raas::close);
    }

    @ParameterizedTest(name = "copies {0}")
    @ValueSource(ints = {1, 2})
    void aClientWritesAtItsClocksEpochTheSameOnEveryCopy(final int copies)
    {
        start();
        client(copies, START).put(bytes("k"), bytes("v"));
        for (final long epoch : epochsOf("k", copies))
        {
            assertEquals(START / EPOCH_MS, epoch);
        }
    }

    @ParameterizedTest(name = "copies {0}, carried by completions {1}")
    @CsvSource({"1, false", "2, false", "1, true", "2, true"})
    void aWriteIsOfTheEpochOfEveryKeyItsClientReadBefore(final int copies, final boolean async)
    {
        start();
        client(copies, START + AHEAD_MS).put(bytes("read"), bytes("ahead"));
        final KvClient behind = client(copies, START);
        assertArrayEquals(bytes("ahead"), async ? behind.getAsync(bytes("read")).join() : behind.get(bytes("read")));
        put(behind, "written", "after the read", async);
        for (final long epoch : epochsOf("written", copies))
        {
            assertEquals((START + AHEAD_MS) / EPOCH_MS, epoch, "not its clock's " + START / EPOCH_MS);
        }
    }

    @ParameterizedTest(name = "copies {0}, carried by completions {1}")
    @CsvSource({"1, false", "2, false", "1, true", "2, true"})
    void aBlindOverwriteIsOfTheEpochOfTheWriteItReplaces(final int copies, final boolean async)
    {
        start();
        client(copies, START + AHEAD_MS).put(bytes("k"), bytes("ahead"));
        final KvClient behind = client(copies, START);
        put(behind, "k", "blind", async);
        assertArrayEquals(bytes("blind"), behind.get(bytes("k")));
        for (final long epoch : epochsOf("k", copies))
        {
            assertTrue(epoch >= (START + AHEAD_MS) / EPOCH_MS, "epoch " + epoch + " before the replaced write's");
        }
    }

    @ParameterizedTest(name = "copies {0}")
    @ValueSource(ints = {1, 2})
    void aTransactionsWritesAreOfTheEpochOfEveryKeyItRead(final int copies)
    {
        start();
        client(copies, START + AHEAD_MS).put(bytes("from"), bytes("10"));
        final KvClient behind = client(copies, START);
        behind.transact(txn ->
        {
            final byte[] from = txn.get(bytes("from"));
            txn.put(bytes("to"), from);
            return null;
        });
        for (final long epoch : epochsOf("to", copies))
        {
            assertEquals((START + AHEAD_MS) / EPOCH_MS, epoch, "not its clock's " + START / EPOCH_MS);
        }
    }

    /** @return the epoch of the key's block at each node holding it, in node order. */
    private List<Long> epochsOf(final String key, final int copies)
    {
        final List<Long> epochs = new ArrayList<>();
        for (int i = 0; i < IDS.length; i++)
        {
            final var heap = raases.get(i).localMemory(nodes.get(i).heapRegion());
            final long block =
                IndexInspector.committedBlock(raases.get(i).localMemory(nodes.get(i).indexRegion()), heap, key);
            if (block >= 0)
            {
                epochs.add(KvBlockLayout.epoch(heap, block));
            }
        }
        assertEquals(copies, epochs.size(), "copies of " + key + ": " + epochs);
        return epochs;
    }

    private static void put(final KvClient client, final String key, final String value, final boolean async)
    {
        if (async)
        {
            client.putAsync(bytes(key), bytes(value)).join();
        }
        else
        {
            client.put(bytes(key), bytes(value));
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
