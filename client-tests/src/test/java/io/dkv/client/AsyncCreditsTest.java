package io.dkv.client;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A client whose driver gives each connection fewer credits than the default keeps no more asynchronous GETs and
 * writes in flight than those credits carry: the thread that delivers a completion posts the operation's next step
 * and must never wait for a credit only its own delivery would give back. Every operation of a full window, all
 * started at once from one thread, completes, most of them by their completions.
 */
class AsyncCreditsTest
{
    private static final long[] IDS = {1, 2};
    private static final int CREDITS = 8;
    private static final int KEYS = 200;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @CsvSource({"shm, 1", "shm, 2", "tcp, 2"})
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void asyncGetsAndWritesAtAFullWindowCompleteWithEightCreditsAConnection(final String provider, final int replicas)
        throws Exception
    {
        final KvClient client = cluster(provider, replicas);
        final long writesBefore = client.writesAnsweredByCompletions();
        final List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < KEYS; i++)
        {
            puts.add(client.putAsync(bytes("key-" + i), bytes("value " + i)));
        }
        for (int i = 0; i < KEYS; i++)
        {
            awaitDone(puts.get(i), "put of key-" + i);
        }
        final long writes = client.writesAnsweredByCompletions() - writesBefore;
        assertTrue(writes > 0, "puts finished by their completions: " + writes + " of " + KEYS);
        long answered = 0;

        // twice: GETs find the views of the nodes this thread read before the puts' splits, and the first round's
        // fall back the synchronous way once a node's view is found old
        for (int round = 0; round < 2; round++)
        {
            final long getsBefore = client.getsAnsweredByCompletions();
            final List<CompletableFuture<byte[]>> gets = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                gets.add(client.getAsync(bytes("key-" + i)));
            }
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(bytes("value " + i), awaitDone(gets.get(i), "GET of key-" + i), "key-" + i);
            }
            answered = client.getsAnsweredByCompletions() - getsBefore;
        }
        assertTrue(answered > 0, "GETs answered by their completions: " + answered + " of " + KEYS);

        final List<CompletableFuture<Boolean>> deletes = new ArrayList<>();
        for (int i = 0; i < KEYS; i++)
        {
            deletes.add(client.deleteAsync(bytes("key-" + i)));
        }
        for (int i = 0; i < KEYS; i++)
        {
            assertEquals(Boolean.TRUE, awaitDone(deletes.get(i), "delete of key-" + i), "key-" + i);
        }
    }

    /**
     * A transaction carried by completions over more keys than the thread may have writes in flight (two, at eight
     * credits) cannot start every intent at once: it goes on from there on the client's threads, swapping from the
     * versions the carried swaps put in place (a key with no value inserted at its slot). Over keys with no value (the
     * protocol's commit), then over the values they now hold (the parallel commit), then deleting them all.
     */
    @ParameterizedTest
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCarriedTransactionOverMoreKeysThanWritesInFlightGoesOnOnTheClientsThreads(final String provider,
        final int replicas) throws Exception
    {
        final KvClient client = cluster(provider, replicas);
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 6; i++)
        {
            keys.add(bytes("wide-" + i));
        }
        final java.util.concurrent.ExecutorService poster = java.util.concurrent.Executors.newSingleThreadExecutor();
        try
        {
            for (final String value : new String[] {"first", "second", null})
            {
                awaitDone(client.transactAsync(tx -> tx.readAllAsync(keys).thenApply(ignored ->
                {
                    for (final byte[] key : keys)
                    {
                        if (value == null)
                        {
                            tx.delete(key);
                        }
                        else
                        {
                            tx.put(key, bytes(value));
                        }
                    }
                    return null;
                }), poster), "a transaction writing " + value);
                for (final byte[] key : keys)
                {
                    assertArrayEquals(value == null ? null : bytes(value), client.get(key),
                        new String(key, StandardCharsets.UTF_8) + " after writing " + value);
                }
            }
        }
        finally
        {
            poster.shutdown();
        }
    }

    private static <T> T awaitDone(final CompletableFuture<T> future, final String what) throws Exception
    {
        try
        {
            // far past any round trip here: a future not done by then waits on a credit nothing gives back
            return future.get(30, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            return fail(what + " not done in 30 s with " + CREDITS + " credits a connection");
        }
    }

    private KvClient cluster(final String provider, final int replicas)
    {
        if (replicas > 1)
        {
            directory.membership(new Membership(1, replicas, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        }
        for (final long id : IDS)
        {
            final Raas raas =
                open.add(RaasDriver.start(Opened.driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(2).maxGlobalDepth(9)));
        }
        final Raas clientRaas =
            open.add(RaasDriver.start(Opened.driver(provider, 100).connectionCredits(CREDITS), directory));
        assertEquals(CREDITS, clientRaas.connectionCredits());
        return open.add(KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS).replicas(replicas)));
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
