package io.dkv.client;

import io.dkv.client.async.AsyncGets;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KvClient#getAsync} carried by completions: one thread keeps many GETs in flight, the
 * completion of a GET's last READ answers it, and a GET the completions cannot answer alone goes
 * the synchronous way; every answer is the synchronous GET's.
 */
class AsyncGetTest
{
    private static final long[] IDS = {1, 2};
    /** What one thread's GETs keep in flight with the driver's default credits. */
    private static final int GET_WINDOW = AsyncGets.inFlight(RaasConfiguration.CONNECTION_CREDITS_DEFAULT);
    private static final int KEYS = 300;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @CsvSource({"shm, 1", "shm, 2", "tcp, 1", "tcp, 2"})
    void oneThreadKeepsManyGetsInFlightAndEachIsAnsweredByItsCompletions(final String provider, final int replicas)
    {
        final KvClient client = cluster(provider, replicas);
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++)
        {
            final byte[] key = bytes("key-" + i);
            keys.add(key);
            if (i % 5 != 0)
            {
                // every fifth key has no value: a miss is answered once two reads agree
                client.put(key, bytes("value " + i + " " + "v".repeat(i)));
            }
        }

        for (final int inFlight : new int[] {1, 4, 16, GET_WINDOW})
        {
            final long answeredBefore = client.getsAnsweredByCompletions();
            final List<CompletableFuture<byte[]>> gets = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                if (i >= inFlight)
                {
                    gets.get(i - inFlight).join();
                }
                gets.add(client.getAsync(keys.get(i)));
            }
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(client.get(keys.get(i)), gets.get(i).join(), "key-" + i + " at " + inFlight);
            }
            assertEquals(KEYS, client.getsAnsweredByCompletions() - answeredBefore,
                "GETs answered by their completions alone, " + inFlight + " in flight");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void getsPastTheBoundAndOnesTheCompletionsCannotAnswerGoTheSynchronousWay(final String provider) throws Exception
    {
        final KvClient client = cluster(provider, 1);
        for (int i = 0; i < KEYS; i++)
        {
            client.put(bytes("key-" + i), bytes("value " + i));
        }
        final byte[] large = new byte[200_000];
        large[199_999] = 7;
        client.put(bytes("large"), large);
        final long expireAt = System.currentTimeMillis() + 50;
        client.put(bytes("expiring"), bytes("soon gone"), expireAt);
        while (System.currentTimeMillis() <= expireAt)
        {
            Thread.sleep(10);
        }

        final List<CompletableFuture<byte[]>> gets = new ArrayList<>();
        for (int i = 0; i < KEYS; i++)
        {
            gets.add(client.getAsync(bytes("key-" + i)));
        }
        for (int i = 0; i < KEYS; i++)
        {
            assertArrayEquals(bytes("value " + i), gets.get(i).join(), "key-" + i + ", all asked at once");
        }
        assertArrayEquals(large, client.getAsync(bytes("large")).join(), "a value past what a slot's hint tells");
        assertNull(client.getAsync(bytes("expiring")).join(), "an expired value");
        assertNull(client.get(bytes("expiring")));
    }

    @ParameterizedTest
    @CsvSource({"shm, 1", "tcp, 2"})
    void aMultiGetOfManyKeysGoesInWavesOfGetsAndAnswersAsTheSynchronousOne(final String provider, final int replicas)
    {
        final KvClient client = cluster(provider, replicas);
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++)
        {
            keys.add(bytes("key-" + i));
            if (i % 3 != 0)
            {
                client.put(keys.get(i), bytes("value " + i));
            }
        }
        final long answeredBefore = client.getsAnsweredByCompletions();

        final List<byte[]> values = client.multiGetAsync(keys).join();

        final List<byte[]> expected = client.multiGet(keys);
        assertEquals(KEYS, values.size());
        for (int i = 0; i < KEYS; i++)
        {
            assertArrayEquals(expected.get(i), values.get(i), "key-" + i);
        }
        // the waves after the first start on client threads, whose first GETs may find their views of the nodes older
        // than the splits the loading made: those few go the synchronous way, which reads the directory again
        final long answered = client.getsAnsweredByCompletions() - answeredBefore;
        assertTrue(answered >= KEYS / 2, answered + " of " + KEYS + " GETs answered by completions");
        assertEquals(List.of(), client.multiGetAsync(List.of()).join());
        final CompletionException bad =
            assertThrows(CompletionException.class, () -> client.multiGetAsync(List.of(new byte[0])).join());
        assertInstanceOf(IllegalArgumentException.class, bad.getCause());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void aGetOfABadKeyOrOnAClosedClientFailsItsFuture(final String provider)
    {
        final KvClient client = cluster(provider, 1);
        final CompletionException tooLong =
            assertThrows(CompletionException.class, () -> client.getAsync(new byte[70_000]).join());
        assertInstanceOf(IllegalArgumentException.class, tooLong.getCause());
        client.close();
        final CompletionException closed =
            assertThrows(CompletionException.class, () -> client.getAsync(bytes("key")).join());
        assertInstanceOf(KvException.class, closed.getCause());
    }

    private KvClient cluster(final String provider, final int replicas)
    {
        if (replicas > 1)
        {
            directory.membership(
                new Membership(1, replicas, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        }
        for (final long id : IDS)
        {
            final Raas raas =
                open.add(RaasDriver.start(Opened.driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            // two groups per subtable: the keys split it several times while they are written
            open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(2).maxGlobalDepth(9)));
        }
        final Raas clientRaas = open.add(RaasDriver.start(Opened.driver(provider, 100), directory));
        return open.add(KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS)));
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
