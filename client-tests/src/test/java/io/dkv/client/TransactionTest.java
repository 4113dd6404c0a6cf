package io.dkv.client;

import io.dkv.client.txn.Transaction;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.format.KvBlockLayout;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transactions over keys on several memory nodes, with one copy of each key and with two (client/README.md,
 * "Transactions"): all or nothing, conflicts refused with nothing written, write skew refused, and transfers from
 * several threads that keep the accounts' sum in every snapshot read meanwhile and at the end.
 */
class TransactionTest
{
    private static final long[] IDS = {1, 2, 3};
    private static final int ACCOUNTS = 8;
    private static final long OPENING = 1_000;
    /** Asynchronous transactions started at once, at most, where a test bounds them. */
    private static final int IN_FLIGHT = 4;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aTransactionWritesEveryKeyOrNone(final int replicas)
    {
        final KvClient client = cluster(replicas);
        client.put(bytes("a"), bytes("1"));
        client.put(bytes("b"), bytes("2"));

        final String read = client.transact(tx ->
        {
            final String seen = text(tx.get(bytes("a"))) + text(tx.get(bytes("b")));
            tx.put(bytes("a"), bytes("10"));
            tx.put(bytes("b"), bytes("20"));
            tx.put(bytes("c"), bytes("30"));
            assertArrayEquals(bytes("10"), tx.get(bytes("a")), "a transaction reads its own writes");
            return seen;
        });
        assertEquals("12", read);
        assertArrayEquals(bytes("10"), client.get(bytes("a")));
        assertArrayEquals(bytes("20"), client.get(bytes("b")));
        assertArrayEquals(bytes("30"), client.get(bytes("c")));

        final Transaction aborted = client.begin();
        aborted.put(bytes("a"), bytes("never"));
        aborted.delete(bytes("b"));
        aborted.abort();
        assertArrayEquals(bytes("10"), client.get(bytes("a")), "an aborted transaction wrote nothing");
        assertArrayEquals(bytes("20"), client.get(bytes("b")));

        client.transact(tx ->
        {
            assertTrue(tx.delete(bytes("a")));
            assertFalse(tx.delete(bytes("never-written")));
            tx.put(bytes("b"), bytes("21"));
            return null;
        });
        assertNull(client.get(bytes("a")), "a transaction's delete");
        assertArrayEquals(bytes("21"), client.get(bytes("b")));
        for (final String key : List.of("a", "b", "c"))
        {
            final Versioned version = client.getVersioned(bytes(key));
            assertTrue(version == null || version.expireAtMillis() >= 0, "no intent is left on " + key);
        }
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aCommitAfterAWriteToAKeyItReadTakesNoEffect(final int replicas)
    {
        final KvClient client = cluster(replicas);
        client.put(bytes("x"), bytes("1"));
        client.put(bytes("y"), bytes("1"));

        final Transaction tx = client.begin();
        assertArrayEquals(bytes("1"), tx.get(bytes("x")));
        tx.put(bytes("x"), bytes("2"));
        tx.put(bytes("y"), bytes("2"));
        client.put(bytes("x"), bytes("written between"));
        assertThrows(TransactionConflictException.class, tx::commit);
        assertArrayEquals(bytes("written between"), client.get(bytes("x")));
        assertArrayEquals(bytes("1"), client.get(bytes("y")), "none of a conflicting transaction's writes is made");

        final Transaction reader = client.begin();
        assertArrayEquals(bytes("1"), reader.get(bytes("y")));
        assertArrayEquals(bytes("written between"), reader.get(bytes("x")));
        client.put(bytes("y"), bytes("changed"));
        assertThrows(TransactionConflictException.class, reader::commit,
            "a read-only transaction whose reads no longer hold together");
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void writeSkewIsRefused(final int replicas)
    {
        final KvClient client = cluster(replicas);
        client.put(bytes("on-call-alice"), bytes("yes"));
        client.put(bytes("on-call-bob"), bytes("yes"));

        // each sees both on call and takes itself off: serializable, at most one of them may commit
        final Transaction alice = client.begin();
        final Transaction bob = client.begin();
        for (final Transaction tx : List.of(alice, bob))
        {
            assertArrayEquals(bytes("yes"), tx.get(bytes("on-call-alice")));
            assertArrayEquals(bytes("yes"), tx.get(bytes("on-call-bob")));
        }
        alice.put(bytes("on-call-alice"), bytes("no"));
        bob.put(bytes("on-call-bob"), bytes("no"));
        alice.commit();
        assertThrows(TransactionConflictException.class, bob::commit);
        assertArrayEquals(bytes("yes"), client.get(bytes("on-call-bob")), "someone stays on call");
    }

    /**
     * The same carried by completions (a commit posted by a thread of the caller's is the protocol's, carried round by
     * round, where a transaction reads a key it does not write): the second commit reads the first's key again and
     * is refused, over keys that hold values and over keys that hold none (each claims its own if the other's is
     * free).
     */
    @ParameterizedTest(name = "{0}, keys hold values: {1}")
    @CsvSource({"shm, true", "shm, false", "tcp, true", "tcp, false"})
    void writeSkewIsRefusedWhenTheCommitIsCarriedByCompletions(final String provider, final boolean held)
        throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, 1, new KvClientContext());
        final byte[] aliceKey = bytes("skew-alice");
        final byte[] bobKey = bytes("skew-bob");
        if (held)
        {
            client.put(aliceKey, bytes("yes"));
            client.put(bobKey, bytes("yes"));
        }
        final Transaction alice = client.begin();
        final Transaction bob = client.begin();
        for (final Transaction tx : List.of(alice, bob))
        {
            tx.readAllAsync(List.of(aliceKey, bobKey)).get(60, TimeUnit.SECONDS);
        }
        alice.put(aliceKey, bytes("no"));
        bob.put(bobKey, bytes("no"));
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        try
        {
            alice.commitAsync(poster).get(60, TimeUnit.SECONDS);
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> bob.commitAsync(poster).get(60, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof TransactionConflictException, refused::toString);
        }
        finally
        {
            poster.shutdown();
        }
        assertArrayEquals(bytes("no"), client.get(aliceKey));
        assertArrayEquals(held ? bytes("yes") : null, client.get(bobKey), "bob's write took no effect");
        assertTrue(client.getVersioned(bobKey) == null || client.getVersioned(bobKey).expireAtMillis() >= 0,
            "no intent is left on bob's key");
    }

    /**
     * A transfer reads a value at both keys it writes and reads no other: it commits in parallel (client/README.md,
     * "Parallel commit"), its intents swapped in one after the other or all at once.
     */
    @ParameterizedTest(name = "r = {0}, intents all at once: {1}")
    @CsvSource({"1, false", "2, false", "1, true", "2, true"})
    void transfersFromSeveralThreadsKeepTheSumInEverySnapshot(final int replicas, final boolean stageInFlight)
        throws Exception
    {
        final KvClient client = open.store(directory, IDS, replicas,
            new KvClientContext().txnStageInFlight(stageInFlight));
        for (int i = 0; i < ACCOUNTS; i++)
        {
            client.put(account(i), bytes(Long.toString(OPENING)));
        }
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger transfers = new AtomicInteger();
        final AtomicInteger snapshots = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++)
        {
            threads.add(Thread.ofPlatform().start(() -> run(failure, () ->
            {
                for (int n = 0; n < 150; n++)
                {
                    final int from = ThreadLocalRandom.current().nextInt(ACCOUNTS);
                    final int to = (from + 1 + ThreadLocalRandom.current().nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                    final long amount = 1 + ThreadLocalRandom.current().nextInt(50);
                    client.transact(tx ->
                    {
                        tx.put(account(from), bytes(Long.toString(balance(tx, from) - amount)));
                        tx.put(account(to), bytes(Long.toString(balance(tx, to) + amount)));
                        return null;
                    });
                    transfers.incrementAndGet();
                }
            })));
        }
        threads.add(Thread.ofPlatform().start(() -> run(failure, () ->
        {
            while (transfers.get() < 450 && failure.get() == null)
            {
                final long sum = client.transact(tx ->
                {
                    long total = 0;
                    for (int i = 0; i < ACCOUNTS; i++)
                    {
                        total += balance(tx, i);
                    }
                    return total;
                });
                assertEquals(ACCOUNTS * OPENING, sum, "a snapshot's sum");
                snapshots.incrementAndGet();
            }
        })));
        for (final Thread thread : threads)
        {
            thread.join();
        }
        if (failure.get() != null)
        {
            throw new AssertionError(failure.get());
        }
        long sum = 0;
        for (int i = 0; i < ACCOUNTS; i++)
        {
            sum += Long.parseLong(text(client.get(account(i))));
        }
        assertEquals(ACCOUNTS * OPENING, sum, "the sum after " + transfers.get() + " transfers, " + snapshots.get() +
            " snapshots");
    }

    /**
     * A transaction may read its keys ahead of using them, all in flight at once over tcp: each is then read as a
     * {@code read} reads it, the key named twice once, and the commit checks every one of them.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void readAllReadsEachKeyAsReadDoesAndTheCommitChecksEveryOne(final String provider)
    {
        final KvClient client = open.store(provider, directory, IDS, 1, new KvClientContext());
        client.put(bytes("ra-a"), bytes("1"));
        client.put(bytes("ra-b"), bytes("2"));
        final Transaction tx = client.begin();
        tx.readAll(List.of(bytes("ra-a"), bytes("ra-b"), bytes("ra-c"), bytes("ra-a")));
        client.put(bytes("ra-a"), bytes("changed after the read"));
        assertEquals("1", text(tx.read(bytes("ra-a")).value()), "the value as read ahead");
        assertEquals("2", text(tx.read(bytes("ra-b")).value()));
        assertNull(tx.read(bytes("ra-c")));
        tx.put(bytes("ra-c"), bytes("3"));
        assertThrows(TransactionConflictException.class, tx::commit, "a key read ahead changed before the commit");
        assertNull(client.get(bytes("ra-c")), "nothing written");
    }

    /**
     * An MSET's shape: each transaction writes one value to every key of a group without reading any (blind), some keys
     * new and some holding values, so that both commits run. Over tcp the versions those writes replace are read all
     * in flight at once (client/README.md, "Cost in round trips"); on shm one after the other. Either way a reader's
     * snapshot of the group sees one writer's value at every key, and so does the end.
     */
    @ParameterizedTest(name = "{0}, r = {1}")
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    void blindWritesOfAGroupFromSeveralThreadsAreSeenWholeInEverySnapshot(final String provider, final int replicas)
        throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, replicas, new KvClientContext());
        final int keys = 6;
        final List<byte[]> group = new ArrayList<>();
        for (int i = 0; i < keys; i++)
        {
            group.add(bytes("blind-" + i));
        }
        // half the group holds a value at first: the first commits replace some versions and insert others
        final List<String> opening = new ArrayList<>();
        for (int i = 0; i < keys; i++)
        {
            if (i % 2 == 0)
            {
                client.put(group.get(i), bytes("opening"));
            }
            opening.add(i % 2 == 0 ? "opening" : text(null));
        }
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger written = new AtomicInteger();
        final AtomicInteger snapshots = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++)
        {
            final int writer = t;
            threads.add(Thread.ofPlatform().start(() -> run(failure, () ->
            {
                for (int n = 0; n < 60; n++)
                {
                    final byte[] value = bytes("w" + writer + "-" + n);
                    client.transact(tx ->
                    {
                        group.forEach(key -> tx.put(key, value));
                        return null;
                    });
                    written.incrementAndGet();
                }
            })));
        }
        threads.add(Thread.ofPlatform().start(() -> run(failure, () ->
        {
            while (written.get() < 180 && failure.get() == null)
            {
                final List<String> seen = client.transact(tx -> group.stream().map(key -> text(tx.get(key))).toList());
                assertTrue(seen.equals(opening) || seen.stream().distinct().count() == 1,
                    "a snapshot of the group, before any write or after one whole: " + seen);
                snapshots.incrementAndGet();
            }
        })));
        for (final Thread thread : threads)
        {
            thread.join();
        }
        if (failure.get() != null)
        {
            throw new AssertionError(failure.get());
        }
        final List<String> last = group.stream().map(key -> text(client.get(key))).toList();
        assertEquals(1, last.stream().distinct().count(), "the group after " + written.get() + " writes, " +
            snapshots.get() + " snapshots: " + last);
        for (final byte[] key : group)
        {
            final Versioned version = client.getVersioned(key);
            assertTrue(version.expireAtMillis() >= 0, "no intent is left on " + text(key));
        }
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void asynchronousTransactionsKeepTheSumAndLoseNoIncrement(final int replicas)
    {
        final KvClient client = cluster(replicas);
        for (int i = 0; i < ACCOUNTS; i++)
        {
            client.put(account(i), bytes(Long.toString(OPENING)));
        }
        client.put(bytes("counter"), bytes("0"));
        final List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (int n = 0; n < 60; n++)
        {
            final int from = n % ACCOUNTS;
            final int to = (n * 3 + 1) % ACCOUNTS == from ? (from + 1) % ACCOUNTS : (n * 3 + 1) % ACCOUNTS;
            inFlight.add(client.transactAsync(tx -> tx.getAsync(account(from)).thenCombine(tx.getAsync(account(to)),
                (a, b) ->
                {
                    tx.put(account(from), bytes(Long.toString(Long.parseLong(text(a)) - 7)));
                    tx.put(account(to), bytes(Long.toString(Long.parseLong(text(b)) + 7)));
                    return null;
                })));
            // one key read and written: the single-key compare-and-set, carried by completions
            inFlight.add(client.transactAsync(tx -> tx.getAsync(bytes("counter")).thenApply(value ->
            {
                tx.put(bytes("counter"), bytes(Long.toString(Long.parseLong(text(value)) + 1)));
                return null;
            })));
        }
        CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).join();
        assertEquals("60", text(client.get(bytes("counter"))), "no increment lost");
        final long sum = client.transactAsync(tx ->
        {
            final List<CompletableFuture<byte[]>> reads = new ArrayList<>();
            for (int i = 0; i < ACCOUNTS; i++)
            {
                reads.add(tx.getAsync(account(i)));
            }
            return CompletableFuture.allOf(reads.toArray(new CompletableFuture[0])).thenApply(ignored ->
                reads.stream().mapToLong(read -> Long.parseLong(text(read.join()))).sum());
        }).join();
        assertEquals(ACCOUNTS * OPENING, sum, "a read-only snapshot, validated by asynchronous reads");
    }

    /**
     * An asynchronous transaction over keys it read, each holding a value, commits in parallel carried by the
     * completions (client/README.md, "What the client does around it"): posted by a thread of the caller's, its intents
     * are swapped in all at once and the last swap's completion answers it, so it commits while every one of the
     * client's threads is busy. A compute node's MSET is such a transaction, posted by its event loop; committed on a
     * client thread, it would wait for one.
     */
    @ParameterizedTest(name = "{0}, r = {1}")
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    void anAsynchronousTransferCommitsWhileEveryClientThreadIsBusy(final String provider, final int replicas)
        throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, replicas, new KvClientContext().asyncThreads(1));
        // a pair of accounts each: a read that meets an intent not yet resolved is the synchronous GET's, on a client
        // thread
        final int transfers = 10;
        for (int i = 0; i < 2 * transfers; i++)
        {
            client.put(bytes("busy-" + i), bytes("100"));
        }
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Object> holder = holdTheClientThread(client, held, release);
        assertTrue(held.await(60, TimeUnit.SECONDS), "the client's thread is held");
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        try
        {
            for (int n = 0; n < transfers; n++)
            {
                final byte[] from = bytes("busy-" + 2 * n);
                final byte[] to = bytes("busy-" + (2 * n + 1));
                final long amount = n + 1;
                client.transactAsync(tx -> tx.getAsync(from).thenCombine(tx.getAsync(to), (a, b) ->
                {
                    tx.put(from, bytes(Long.toString(Long.parseLong(text(a)) - amount)));
                    tx.put(to, bytes(Long.toString(Long.parseLong(text(b)) + amount)));
                    return null;
                }), poster).get(60, TimeUnit.SECONDS);
            }
        }
        finally
        {
            release.countDown();
            poster.shutdown();
        }
        holder.get(60, TimeUnit.SECONDS);
        for (int n = 0; n < transfers; n++)
        {
            assertEquals(Integer.toString(99 - n), text(client.get(bytes("busy-" + 2 * n))));
            assertEquals(Integer.toString(101 + n), text(client.get(bytes("busy-" + (2 * n + 1)))));
        }
    }

    /**
     * Asynchronous increments of two of three hot counters each, all in flight at once and posted by a thread of the
     * caller's: their parallel commits' intents meet one another's, so most stages have a swap refused, which aborts
     * the transaction and rolls it back carried by completions before it runs again. None is lost or counted twice,
     * and no intent is left.
     */
    @ParameterizedTest(name = "{0}, r = {1}")
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    void asynchronousIncrementsOverHotKeysAbortAndRunAgainLosingNone(final String provider, final int replicas)
        throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, replicas, new KvClientContext());
        final int counters = 3;
        for (int i = 0; i < counters; i++)
        {
            client.put(bytes("hot-" + i), bytes("0"));
        }
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        final int[] expected = new int[counters];
        final List<CompletableFuture<Object>> inFlight = new ArrayList<>();
        try
        {
            for (int n = 0; n < 90; n++)
            {
                final byte[] a = bytes("hot-" + n % counters);
                final byte[] b = bytes("hot-" + (n + 1) % counters);
                expected[n % counters]++;
                expected[(n + 1) % counters]++;
                inFlight.add(client.transactAsync(tx -> tx.getAsync(a).thenCombine(tx.getAsync(b), (x, y) ->
                {
                    tx.put(a, bytes(Long.toString(Long.parseLong(text(x)) + 1)));
                    tx.put(b, bytes(Long.toString(Long.parseLong(text(y)) + 1)));
                    return null;
                }), poster));
            }
            CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
        }
        finally
        {
            poster.shutdown();
        }
        assertCounters(client, "hot-", expected);
    }

    /**
     * A transaction that writes keys with no value, or reads a key it does not write, commits by the protocol (the
     * primary's PENDING intent, the secondaries', the reads checked again, the decision), carried by completions
     * round by round where a thread of the caller's posts it (client/README.md, "What the client does around it"): so
     * an MSETNX, or a DEL of keys some of which hold nothing, commits while every one of the client's threads is busy.
     */
    @ParameterizedTest(name = "{0}, r = {1}")
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    void anAsynchronousCommitOfKeysWithNoValueCommitsWhileEveryClientThreadIsBusy(final String provider,
        final int replicas) throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, replicas, new KvClientContext().asyncThreads(1));
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Object> holder = holdTheClientThread(client, held, release);
        assertTrue(held.await(60, TimeUnit.SECONDS), "the client's thread is held");
        final int claims = 10;
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        try
        {
            for (int n = 0; n < claims; n++)
            {
                // two keys claimed where neither has a value, and a third read that must still have none
                final List<byte[]> keys = List.of(bytes("claim-" + n + "-a"), bytes("claim-" + n + "-b"),
                    bytes("claim-" + n + "-guard"));
                final String value = Integer.toString(n);
                final Boolean claimed = client.transactAsync(tx -> tx.readAllAsync(keys).thenApply(ignored ->
                {
                    if (tx.get(keys.get(0)) != null || tx.get(keys.get(1)) != null || tx.get(keys.get(2)) != null)
                    {
                        return false;
                    }
                    tx.put(keys.get(0), bytes(value));
                    tx.put(keys.get(1), bytes(value));
                    return true;
                }), poster).get(60, TimeUnit.SECONDS);
                assertTrue(claimed, "claim " + n);
            }
        }
        finally
        {
            release.countDown();
            poster.shutdown();
        }
        holder.get(60, TimeUnit.SECONDS);
        for (int n = 0; n < claims; n++)
        {
            assertEquals(Integer.toString(n), text(client.get(bytes("claim-" + n + "-a"))));
            assertEquals(Integer.toString(n), text(client.get(bytes("claim-" + n + "-b"))));
            assertNull(client.getVersioned(bytes("claim-" + n + "-guard")));
        }
    }

    /**
     * Asynchronous increments of two of three hot counters that start with no value, each reading the third without
     * writing it: every commit is the protocol's carried by completions, and they meet one another's intents at the
     * primary, at a secondary and at the key read again, so many abort, roll back carried the same way, and run
     * again. None is lost or counted twice, and no intent is left.
     */
    @ParameterizedTest(name = "{0}, r = {1}")
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    void asynchronousProtocolCommitsOverHotKeysAbortAndRunAgainLosingNone(final String provider, final int replicas)
        throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, replicas, new KvClientContext());
        final int counters = 3;
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        final int[] expected = new int[counters];
        final AtomicInteger runs = new AtomicInteger();
        final List<CompletableFuture<Object>> inFlight = new ArrayList<>();
        try
        {
            for (int n = 0; n < 60; n++)
            {
                final byte[] a = bytes("cold-" + n % counters);
                final byte[] b = bytes("cold-" + (n + 1) % counters);
                final byte[] c = bytes("cold-" + (n + 2) % counters);
                expected[n % counters]++;
                expected[(n + 1) % counters]++;
                inFlight.add(client.transactAsync(tx -> tx.readAllAsync(List.of(a, b, c)).thenApply(ignored ->
                {
                    runs.incrementAndGet();
                    tx.put(a, bytes(Long.toString(count(tx.get(a)) + 1)));
                    tx.put(b, bytes(Long.toString(count(tx.get(b)) + 1)));
                    return null;
                }), poster));
                if (inFlight.size() == IN_FLIGHT)
                {
                    // (as a compute node admits carried transactions: all 60 at once mostly abort one another)
                    CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
                    inFlight.clear();
                }
            }
            CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
        }
        finally
        {
            poster.shutdown();
        }
        assertCounters(client, "cold-", expected);
        assertTrue(runs.get() > 60, "some ran again: " + runs.get() + " runs of 60 transactions");
    }

    /** Each counter {@code prefix + i} holds {@code expected[i]}, and no intent. */
    private static void assertCounters(final KvClient client, final String prefix, final int[] expected)
    {
        for (int i = 0; i < expected.length; i++)
        {
            assertEquals(Integer.toString(expected[i]), text(client.get(bytes(prefix + i))), "counter " + prefix + i);
            assertTrue(client.getVersioned(bytes(prefix + i)).expireAtMillis() >= 0, "no intent is left on " +
                prefix + i);
        }
    }

    /**
     * A replayed transaction (a function written synchronously, none of whose reads waits: KvClient.transactReplayed)
     * runs again each time it reads a key not yet read, once that key was read, and commits carried by completions:
     * ten increments through pointers (the key read first names the counter read next), each over keys of its own,
     * all in flight at once, commit while every one of the client's threads is held. (A read that meets another
     * transaction's intent is the synchronous GET's, on a client thread, as any asynchronous read's.)
     */
    @ParameterizedTest(name = "{0}, r = {1}")
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    void replayedTransactionsThroughPointersCommitWhileEveryClientThreadIsBusy(final String provider,
        final int replicas) throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, replicas, new KvClientContext().asyncThreads(1));
        final int transactions = 10;
        for (int n = 0; n < transactions; n++)
        {
            client.put(bytes("pointer-" + n), bytes("pointed-" + n));
        }
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Object> holder = holdTheClientThread(client, held, release);
        assertTrue(held.await(60, TimeUnit.SECONDS), "the client's thread is held");
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        final AtomicInteger runs = new AtomicInteger();
        try
        {
            final List<CompletableFuture<Long>> inFlight = new ArrayList<>();
            for (int n = 0; n < transactions; n++)
            {
                inFlight.add(client.transactReplayed(incrementThrough(bytes("pointer-" + n), runs), poster));
            }
            CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        }
        finally
        {
            release.countDown();
            poster.shutdown();
        }
        holder.get(60, TimeUnit.SECONDS);
        final int[] ones = new int[transactions];
        java.util.Arrays.fill(ones, 1);
        assertCounters(client, "pointed-", ones);
        assertEquals(3 * transactions, runs.get(), "each ran once to read its pointer, once its counter, once to " +
            "commit");
    }

    /**
     * A replayed transaction's getVersioned (what EXEC checks WATCH's versions with) is answered from what is known,
     * as its other reads: the function runs once to name the key and once with it read, and never waits on a read.
     */
    @Test
    void aReplayedTransactionsVersionedReadIsAnsweredFromWhatIsKnown() throws Exception
    {
        final KvClient client = open.store("shm", directory, IDS, 1, new KvClientContext());
        client.put(bytes("versioned"), bytes("1"));
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        final AtomicInteger runs = new AtomicInteger();
        try
        {
            final Versioned read = client.transactReplayed(tx ->
            {
                runs.incrementAndGet();
                return tx.getVersioned(bytes("versioned"));
            }, poster).get(60, TimeUnit.SECONDS);
            assertEquals(client.getVersioned(bytes("versioned")).writeId, read.writeId);
        }
        finally
        {
            poster.shutdown();
        }
        assertEquals(2, runs.get(), "one run to name the key, one with it read");
    }

    /** Replayed increments of two counters through pointers, eight in flight at once, lose none. */
    @ParameterizedTest(name = "{0}, r = {1}")
    @CsvSource({"shm, 1", "tcp, 1", "tcp, 2"})
    void replayedIncrementsOverHotKeysRunAgainAndLoseNone(final String provider, final int replicas) throws Exception
    {
        final KvClient client = open.store(provider, directory, IDS, replicas, new KvClientContext());
        client.put(bytes("hot-pointer-0"), bytes("replayed-0"));
        client.put(bytes("hot-pointer-1"), bytes("replayed-1"));
        final ExecutorService poster = Executors.newSingleThreadExecutor();
        final AtomicInteger runs = new AtomicInteger();
        try
        {
            final List<CompletableFuture<Long>> inFlight = new ArrayList<>();
            for (int n = 0; n < 40; n++)
            {
                inFlight.add(client.transactReplayed(incrementThrough(bytes("hot-pointer-" + n % 2), runs), poster));
                if (inFlight.size() == 2 * IN_FLIGHT)
                {
                    CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
                    inFlight.clear();
                }
            }
        }
        finally
        {
            poster.shutdown();
        }
        assertCounters(client, "replayed-", new int[] {20, 20});
    }

    /** @return a function that reads the counter {@code pointer} names, and adds one to it. */
    private static java.util.function.Function<Transaction, Long> incrementThrough(final byte[] pointer,
        final AtomicInteger runs)
    {
        return tx ->
        {
            runs.incrementAndGet();
            final byte[] counter = tx.get(pointer);
            final long next = count(tx.get(counter)) + 1;
            tx.put(counter, bytes(Long.toString(next)));
            return next;
        };
    }

    private static long count(final byte[] value)
    {
        return value == null ? 0 : Long.parseLong(text(value));
    }

    /** Its first run meets a conflict, so its second runs on one of the client's threads, which it holds. */
    private static CompletableFuture<Object> holdTheClientThread(final KvClient client, final CountDownLatch held,
        final CountDownLatch release)
    {
        final AtomicInteger runs = new AtomicInteger();
        return client.transactAsync(tx ->
        {
            if (runs.getAndIncrement() == 0)
            {
                return CompletableFuture.failedFuture(new TransactionConflictException("run again"));
            }
            held.countDown();
            awaitQuietly(release);
            return CompletableFuture.completedFuture(null);
        });
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Resolutions run after the answer on the client's resolution agent; a client that closes runs what is still
     * queued first, and with no queue each committing thread resolves its own: either way a client that closed left
     * no intent behind, as another client's raw reads show.
     */
    @ParameterizedTest(name = "resolutions queued at most: {0}")
    @ValueSource(ints = {64, 0})
    void aClosedClientLeavesNoIntentBehind(final int queued)
    {
        final KvClient client = open.store(directory, IDS, 2, new KvClientContext().txnResolutionsQueued(queued));
        for (int i = 0; i < ACCOUNTS; i++)
        {
            client.put(account(i), bytes(Long.toString(OPENING)));
        }
        for (int n = 0; n < 200; n++)
        {
            final int from = n % ACCOUNTS;
            final int to = (n * 3 + 1) % ACCOUNTS;
            if (from == to)
            {
                continue;
            }
            client.transact(tx ->
            {
                tx.put(account(from), bytes(Long.toString(balance(tx, from) - 1)));
                tx.put(account(to), bytes(Long.toString(balance(tx, to) + 1)));
                tx.put(bytes("fresh-" + from), bytes("x"));
                return null;
            });
        }
        client.close();

        final KvClient other = open.add(KvClient.connect(open.add(RaasDriver.start(Opened.driver("shm", 101),
            directory)), new KvClientContext().memoryNodes(IDS).replicas(2)));
        long sum = 0;
        for (int i = 0; i < ACCOUNTS; i++)
        {
            final Versioned raw = other.rawKeys().read(account(i));
            assertFalse(KvBlockLayout.isIntent(raw.expireAtMillis()), "account " + i + " holds an intent");
            sum += Long.parseLong(text(raw.value()));
            final Versioned fresh = other.rawKeys().read(bytes("fresh-" + i));
            assertFalse(fresh != null && KvBlockLayout.isIntent(fresh.expireAtMillis()), "fresh-" + i);
        }
        assertEquals(ACCOUNTS * OPENING, sum);
    }

    private KvClient cluster(final int replicas)
    {
        return open.store(directory, IDS, replicas, new KvClientContext());
    }

    private static long balance(final Transaction tx, final int account)
    {
        return Long.parseLong(text(tx.get(account(account))));
    }

    private static void run(final AtomicReference<Throwable> failure, final Runnable body)
    {
        try
        {
            body.run();
        }
        catch (final Throwable ex)
        {
            failure.compareAndSet(null, ex);
        }
    }

    private static byte[] account(final int i)
    {
        return bytes("account-" + i);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final byte[] bytes)
    {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }
}
