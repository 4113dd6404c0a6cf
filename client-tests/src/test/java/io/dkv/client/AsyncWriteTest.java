package io.dkv.client;

import io.dkv.client.async.AsyncGets;
import io.dkv.client.async.AsyncWrites;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KvClient}'s asynchronous writes carried by completions: one thread keeps many puts, deletes and
 * compare-and-sets in flight, the completion of a write's last CAS answers it, every answer is the one the
 * synchronous write gives, every replica holds what the write wrote, and writes racing on one key, carried by
 * completions or not, lose no update.
 */
class AsyncWriteTest
{
    private static final long[] IDS = {1, 2};
    /** What one thread's writes keep in flight with the driver's default credits. */
    private static final int WRITE_WINDOW = AsyncWrites.inFlight(RaasConfiguration.CONNECTION_CREDITS_DEFAULT);
    /** What one thread's GETs keep in flight with the driver's default credits. */
    private static final int GET_WINDOW = AsyncGets.inFlight(RaasConfiguration.CONNECTION_CREDITS_DEFAULT);
    private static final int KEYS = 150;
    private static final String[] OPERATIONS =
        {"put", "delete", "cas", "setnx", "versioned", "expired put", "expire/persist", "get"};

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();
    private final List<Raas> clientDrivers = new ArrayList<>();
    private final List<MemoryNode> memoryNodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @CsvSource({"shm, 1", "shm, 2", "tcp, 1", "tcp, 2"})
    void oneThreadKeepsManyWritesInFlightAndTheirCompletionsFinishThem(final String provider, final int replicas)
    {
        final KvClient client = cluster(provider, replicas, new KvClientContext().memoryNodes(IDS), null);
        for (final int inFlight : new int[] {1, 4, WRITE_WINDOW})
        {
            final List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                keys.add(bytes("key-" + inFlight + "-" + i));
            }
            final long before = client.writesAnsweredByCompletions();
            windowed(inFlight, KEYS, i -> client.putAsync(keys.get(i), bytes("first " + i)));
            final long inserted = client.writesAnsweredByCompletions() - before;
            windowed(inFlight, KEYS, i -> client.putAsync(keys.get(i), bytes("second " + i + "v".repeat(i))));
            final long updated = client.writesAnsweredByCompletions() - before - inserted;
            final List<CompletableFuture<Boolean>> deletes = windowed(inFlight, KEYS / 2,
                i -> client.deleteAsync(keys.get(2 * i)));

            for (int i = 0; i < KEYS; i++)
            {
                final byte[] expected = i % 2 == 0 ? null : bytes("second " + i + "v".repeat(i));
                assertArrayEquals(expected, client.get(keys.get(i)), "key-" + inFlight + "-" + i);
                for (final KvClient replica : replicaReaders(replicas))
                {
                    assertArrayEquals(expected, replica.get(keys.get(i)), "a replica of key-" + inFlight + "-" + i);
                }
            }
            deletes.forEach(delete -> assertEquals(Boolean.TRUE, delete.join()));
            // a key whose buckets hold another key of its fingerprint, or a full bucket pair (a split), goes the
            // synchronous way: a few in a hundred
            assertTrue(inserted >= KEYS * 8 / 10, inserted + " of " + KEYS + " inserts finished by completions, " +
                inFlight + " in flight");
            assertTrue(updated >= KEYS * 8 / 10, updated + " of " + KEYS + " updates finished by completions, " +
                inFlight + " in flight");
        }
    }

    @ParameterizedTest
    @CsvSource({"shm, 1", "shm, 2", "tcp, 2"})
    void everyAnswerIsTheSynchronousWritesAnswer(final String provider, final int replicas)
    {
        final KvClient client = cluster(provider, replicas, new KvClientContext().memoryNodes(IDS), null);
        final Map<String, byte[]> model = new HashMap<>();
        final Map<String, StringBuilder> history = new HashMap<>();
        final Random random = new Random(42);
        final long past = System.currentTimeMillis() - 1_000;
        for (int op = 0; op < 3_000; op++)
        {
            final String name = "key-" + random.nextInt(40);
            final byte[] value = bytes("value " + op);
            final int kind = random.nextInt(8);
            final StringBuilder log = history.computeIfAbsent(name, ignored -> new StringBuilder());
            log.append(' ').append(op).append(':').append(OPERATIONS[kind]);
            final String what = "operation " + op + " on " + name + " (its operations:" + log + ")";
            try
            {
                apply(client, model, random, kind, name, value, past, what);
            }
            catch (final CompletionException ex)
            {
                throw new AssertionError(what + ": " + ex.getCause(), ex);
            }
        }
        for (int i = 0; i < 40; i++)
        {
            assertArrayEquals(model.get("key-" + i), client.get(bytes("key-" + i)), "key-" + i + " at the end");
        }
        assertTrue(client.writesAnsweredByCompletions() > 0, "writes finished by completions");
    }

    /** One operation of {@link #everyAnswerIsTheSynchronousWritesAnswer}, its answer checked against the model. */
    private static void apply(final KvClient client, final Map<String, byte[]> model, final Random random,
        final int kind, final String name, final byte[] value, final long past, final String what)
    {
        final byte[] key = bytes(name);
        final byte[] held = model.get(name);
        switch (kind)
        {
            case 0 ->
            {
                client.putAsync(key, value).join();
                model.put(name, value);
            }
            case 1 ->
            {
                assertEquals(held != null, client.deleteAsync(key).join(), what + ": delete");
                model.remove(name);
            }
            case 2 ->
            {
                final boolean matches = held == null || random.nextBoolean();
                final byte[] expected = matches ? held : bytes("not " + new String(held, StandardCharsets.UTF_8));
                assertEquals(matches, client.compareAndSetAsync(key, expected, value).join(), what + ": cas");
                if (matches)
                {
                    model.put(name, value);
                }
            }
            case 3 ->
            {
                assertEquals(held == null, client.compareAndSetAsync(key, null, value).join(), what + ": setnx");
                model.putIfAbsent(name, value);
            }
            case 4 ->
            {
                final Versioned version = client.getVersionedAsync(key).join();
                assertArrayEquals(held, version == null ? null : version.value(), what + ": versioned read");
                if (version != null)
                {
                    assertEquals(Boolean.TRUE, client.compareAndSetVersionAsync(key, version, value).join(), what);
                    assertEquals(Boolean.FALSE, client.compareAndSetVersionAsync(key, version, value).join(),
                        what + ": a version written over since");
                    model.put(name, value);
                }
            }
            case 5 ->
            {
                // a value that expired is no value: put, judged absent by every later operation
                client.putAsync(key, value, past).join();
                model.remove(name);
            }
            case 6 ->
            {
                final long expireAt = System.currentTimeMillis() + 3_600_000;
                assertEquals(held != null, client.expireAtAsync(key, expireAt).join(), what + ": expire");
                final long ttl = client.ttlMillisAsync(key).join();
                assertTrue(held == null ? ttl == -2 : ttl > 0 && ttl <= 3_600_000, what + ": ttl " + ttl);
                assertEquals(held != null, client.persistAsync(key).join(), what + ": persist");
                assertEquals(held == null ? -2L : -1L, client.ttlMillisAsync(key).join(), what + ": ttl");
            }
            default -> assertArrayEquals(held, client.getAsync(key).join(), what + ": get");
        }
    }

    @ParameterizedTest
    @CsvSource({"shm, 1", "shm, 2", "tcp, 2"})
    void writesRacingOnOneKeyLoseNoUpdate(final String provider, final int replicas) throws Exception
    {
        final KvClient client = cluster(provider, replicas, new KvClientContext().memoryNodes(IDS), null);
        final byte[] counter = bytes("counter");
        client.put(counter, bytes("0"));
        final int perThread = 150;
        final AtomicInteger increments = new AtomicInteger();
        final Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++)
        {
            final boolean async = t > 0;
            threads[t] = new Thread(() ->
            {
                int done = 0;
                while (done < perThread)
                {
                    final Versioned read =
                        async ? client.getVersionedAsync(counter).join() : client.getVersioned(counter);
                    final byte[] next = bytes(String.valueOf(Long.parseLong(new String(read.value(),
                        StandardCharsets.UTF_8)) + 1));
                    final boolean written = async ? client.compareAndSetVersionAsync(counter, read, next).join() :
                        client.compareAndSetVersion(counter, read, next);
                    if (written)
                    {
                        done++;
                        increments.incrementAndGet();
                    }
                }
            }, "racer-" + t);
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(String.valueOf(increments.get()), new String(client.get(counter), StandardCharsets.UTF_8));
        assertEquals(threads.length * perThread, increments.get());

        // puts of the same fresh key from several threads at once: exactly one finds it absent
        for (int round = 0; round < 30; round++)
        {
            final byte[] key = bytes("fresh-" + round);
            final Thread[] putters = new Thread[3];
            final List<CompletableFuture<Boolean>> answers = Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < putters.length; t++)
            {
                final byte[] value = bytes("from " + t);
                putters[t] = new Thread(() -> answers.add(client.compareAndSetAsync(key, null, value)));
                putters[t].start();
            }
            for (final Thread putter : putters)
            {
                putter.join();
            }
            final long winners = answers.stream().filter(CompletableFuture::join).count();
            assertEquals(1, winners, "round " + round + ": compare-and-sets of an absent key that won");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void writesTheCompletionsCannotCarryGoTheSynchronousWay(final String provider)
    {
        final KvClient client = cluster(provider, 2, new KvClientContext().memoryNodes(IDS), null);
        final byte[] large = new byte[200_000];
        large[199_999] = 7;
        client.putAsync(bytes("large"), large).join();
        assertArrayEquals(large, client.get(bytes("large")), "a block past what a write carried by completions puts");

        final List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 4 * WRITE_WINDOW; i++)
        {
            puts.add(client.putAsync(bytes("key-" + i), bytes("value " + i)));
        }
        puts.forEach(CompletableFuture::join);
        for (int i = 0; i < 4 * WRITE_WINDOW; i++)
        {
            assertArrayEquals(bytes("value " + i), client.get(bytes("key-" + i)), "key-" + i + ", all asked at once");
        }

        final CompletionException tooLong =
            assertThrows(CompletionException.class, () -> client.putAsync(new byte[70_000], bytes("v")).join());
        assertInstanceOf(IllegalArgumentException.class, tooLong.getCause());
        final CompletionException noValue =
            assertThrows(CompletionException.class, () -> client.compareAndSetAsync(bytes("k"), null, null).join());
        assertInstanceOf(IllegalArgumentException.class, noValue.getCause());
        client.close();
        final CompletionException closed =
            assertThrows(CompletionException.class, () -> client.deleteAsync(bytes("key-1")).join());
        assertInstanceOf(KvException.class, closed.getCause());
    }

    @ParameterizedTest
    @CsvSource({"1, SYNC", "2, SYNC", "2, ASYNC"})
    void aDurableWritesNodesAreToldBeforeItsFutureCompletes(final int replicas, final Durability durability,
        @TempDir final Path data)
    {
        final KvClient client = cluster("shm", replicas,
            new KvClientContext().memoryNodes(IDS).durability(durability), data);
        final int writes = 60;
        windowed(WRITE_WINDOW, writes - 1, i -> client.putAsync(bytes("durable-" + i), bytes("value " + i)));
        assertEquals(Boolean.TRUE, client.deleteAsync(bytes("durable-0")).join());
        if (durability == Durability.SYNC)
        {
            // each replica's node answered once the key was on its disk
            final long persisted = memoryNodes.stream().mapToLong(node -> node.persistStats().keysPersisted()).sum();
            assertTrue(persisted >= (long)writes * replicas, persisted + " keys persisted over the nodes");
        }
        for (int i = 0; i < writes - 1; i++)
        {
            assertArrayEquals(i == 0 ? null : bytes("value " + i), client.get(bytes("durable-" + i)), "durable-" + i);
        }
        // telling the nodes is the client's agent's: no client thread waits for an answer (the writes that went the
        // synchronous way, a new key's fingerprint beside another's or a split, told them on a client thread)
        final long byCompletions = client.writesAnsweredByCompletions();
        assertTrue(byCompletions >= writes / 2, byCompletions + " of " + writes + " finished without a client thread");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClientAttachedToTheHostsDriverHasItsCompletionsDelivered(final String provider) throws Exception
    {
        // an attached handle reads the driver's responses only when asked: the client polls it for its futures. Two
        // copies and the driver's default buffers, as `./dkv up` runs clients (UndrainedClientTest adds a client that
        // never reads its answers)
        cluster(provider, 2, new KvClientContext().memoryNodes(IDS), null);
        final String name = "async-write-test-" + ProcessHandle.current().pid() + "-" + provider;
        open.add(StandaloneDriver.launch(Opened.driver(provider, 100).driverName(name), directory));
        final Raas attached = open.add(AttachedRaas.attach(new RaasContext().driverName(name).requestSlots(1024)
            .clientDataBytes(1 << 20).timeoutMs(10_000)));
        final KvClient client = open.add(KvClient.connect(attached,
            new KvClientContext().memoryNodes(IDS).timeoutMs(9_000)));

        windowed(WRITE_WINDOW, KEYS, i -> client.putAsync(bytes("key-" + i), bytes("value " + i)));
        final List<CompletableFuture<byte[]>> gets =
            windowed(GET_WINDOW, KEYS, i -> client.getAsync(bytes("key-" + i)));
        final List<CompletableFuture<Boolean>> deletes =
            windowed(WRITE_WINDOW, KEYS, i -> client.deleteAsync(bytes("key-" + i)));

        for (int i = 0; i < KEYS; i++)
        {
            assertArrayEquals(bytes("value " + i), gets.get(i).join(), "key-" + i);
            assertEquals(Boolean.TRUE, deletes.get(i).join(), "key-" + i);
        }
        assertTrue(client.writesAnsweredByCompletions() >= KEYS, "writes finished by completions");
    }

    /** Start {@code count} operations, {@code inFlight} at a time, from this one thread; wait for them all. */
    private static <T> List<CompletableFuture<T>> windowed(final int inFlight, final int count,
        final IntFunction<CompletableFuture<T>> operation)
    {
        final List<CompletableFuture<T>> started = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            if (i >= inFlight)
            {
                started.get(i - inFlight).join();
            }
            started.add(operation.apply(i));
        }
        started.forEach(CompletableFuture::join);
        return started;
    }

    /** @return a client of one copy per memory node, reading that node's replica of each key alone. */
    private List<KvClient> replicaReaders(final int replicas)
    {
        if (replicas == 1)
        {
            return List.of();
        }
        final List<KvClient> readers = new ArrayList<>();
        for (final long id : IDS)
        {
            readers.add(open.add(KvClient.connect(clientDrivers.get(0),
                new KvClientContext().memoryNodes(id).replicas(1))));
        }
        return readers;
    }

    private KvClient cluster(final String provider, final int replicas, final KvClientContext context,
        final Path data)
    {
        if (replicas > 1)
        {
            directory.membership(new Membership(1, replicas, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        }
        for (final long id : IDS)
        {
            final Raas raas =
                open.add(RaasDriver.start(Opened.driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            // two groups per subtable: the keys split it several times while they are written
            final MemoryNodeContext node = new MemoryNodeContext().indexGroups(2).maxGlobalDepth(9);
            memoryNodes.add(
                open.add(MemoryNode.start(raas, data == null ? node : node.dataDir(data.resolve("node-" + id)))));
        }
        final Raas clientRaas = open.add(RaasDriver.start(Opened.driver(provider, 100), directory));
        clientDrivers.add(clientRaas);
        return open.add(KvClient.connect(clientRaas, context.replicas(replicas == 1 ? 1 : 0)));
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
