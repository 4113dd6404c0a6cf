package io.dkv.compute;

import io.dkv.client.membership.Rendezvous;
import io.dkv.format.KeyHash;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A script is one transaction over keys of different memory nodes: transfers between two accounts on two memory nodes,
 * run as scripts from many connections while MULTI/EXEC transfers run beside them, never lose or make money, and
 * readers (a read-only script, an MGET) never see a transfer half done; a counter a script increments from many
 * connections at once counts every run once and answers each caller a value of its own (a run in conflict runs again
 * unseen, and only the run that committed answers). Counts are small and fixed for two busy cores; nothing is timed.
 */
class ScriptAtomicityTest
{
    private static final int THREADS = 6;
    private static final int ROUNDS = 60;
    private static final String TRANSFER = "local from = tonumber(redis.call('get', KEYS[1]))\n" +
        "local to = tonumber(redis.call('get', KEYS[2]))\n" +
        "local amount = tonumber(ARGV[1])\n" +
        "if from < amount then return 0 end\n" +
        "redis.call('set', KEYS[1], from - amount)\n" +
        "redis.call('set', KEYS[2], to + amount)\n" +
        "return 1";
    private static final String SUM = "#!lua flags=no-writes\n" +
        "return tonumber(redis.call('get', KEYS[1])) + tonumber(redis.call('get', KEYS[2]))";

    private static final Pattern PAIR = Pattern.compile("\\*2\\[\\$(-?\\d+), \\$(-?\\d+)]");

    private static TestStore store;
    private static String first;
    private static String second;

    @BeforeAll
    static void start()
    {
        store = new TestStore(new ComputeNodeContext(), SystemEpochClock.INSTANCE, 0,
            TestStore.HEAP_CHUNKS / 4, 3);
        final long[] ids = store.memoryIds();
        first = "account-0";
        second = null;
        for (int i = 1; second == null; i++)
        {
            final String candidate = "account-" + i;
            if (nodeOf(candidate, ids) != nodeOf(first, ids))
            {
                second = candidate;
            }
        }
    }

    @AfterAll
    static void stop()
    {
        if (store != null)
        {
            store.close();
        }
    }

    @Test
    void transfersByScriptAcrossMemoryNodesConserveTheSum() throws Exception
    {
        assertNotEquals(nodeOf(first, store.memoryIds()), nodeOf(second, store.memoryIds()));
        try (RawResp setup = new RawResp(store.port()))
        {
            assertEquals("+OK", setup.call("MSET", first, "1000", second, "1000"));
        }
        final AtomicBoolean writing = new AtomicBoolean(true);
        final AtomicInteger reads = new AtomicInteger();
        final List<String> torn = new ArrayList<>();
        final ExecutorService pool = Executors.newFixedThreadPool(THREADS + 2);
        try
        {
            final List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++)
            {
                final int thread = t;
                writers.add(pool.submit(() ->
                {
                    try (RawResp resp = new RawResp(store.port()))
                    {
                        for (int round = 0; round < ROUNDS; round++)
                        {
                            final boolean forward = (round + thread) % 2 == 0;
                            final String from = forward ? first : second;
                            final String to = forward ? second : first;
                            if (thread == 0)
                            {
                                // beside the scripts, transfers by MULTI/EXEC
                                resp.call("MULTI");
                                resp.call("DECRBY", from, "3");
                                resp.call("INCRBY", to, "3");
                                assertTrue(resp.call("EXEC").startsWith("*2["));
                            }
                            else
                            {
                                final String reply = resp.call("EVAL", TRANSFER, "2", from, to,
                                    Integer.toString(1 + round % 7));
                                assertTrue(reply.equals(":1") || reply.equals(":0"), reply);
                            }
                        }
                    }
                    return null;
                }));
            }
            final Future<?> reader = pool.submit(() ->
            {
                try (RawResp resp = new RawResp(store.port()))
                {
                    while (writing.get())
                    {
                        final String sum = resp.call("EVAL_RO", SUM, "2", first, second);
                        final String both = resp.call("MGET", first, second);
                        final Matcher values = PAIR.matcher(both);
                        if (!sum.equals(":2000") || !values.matches() ||
                            Long.parseLong(values.group(1)) + Long.parseLong(values.group(2)) != 2000)
                        {
                            synchronized (torn)
                            {
                                torn.add(sum + " " + both);
                            }
                        }
                        reads.incrementAndGet();
                    }
                }
                return null;
            });
            for (final Future<?> writer : writers)
            {
                writer.get();
            }
            writing.set(false);
            reader.get();
        }
        finally
        {
            pool.shutdownNow();
        }
        assertTrue(torn.isEmpty(), () -> "readers saw half a transfer: " + torn);
        assertTrue(reads.get() > 0);
        try (RawResp resp = new RawResp(store.port()))
        {
            assertEquals(":2000", resp.call("EVAL", SUM, "2", first, second));
        }
    }

    @Test
    void aCounterCountsEachRunOnceAndEachCallerGetsItsOwnValue() throws Exception
    {
        final String counter = "script-counter";
        final Set<String> answers = ConcurrentHashMap.newKeySet();
        final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try
        {
            final List<Future<?>> callers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++)
            {
                callers.add(pool.submit(() ->
                {
                    try (RawResp resp = new RawResp(store.port()))
                    {
                        for (int round = 0; round < ROUNDS; round++)
                        {
                            // read, then write: concurrent runs conflict, and run again until each commits
                            final String reply = resp.call("EVAL", "local v = tonumber(redis.call('get', KEYS[1]) " +
                                "or '0') + 1\nredis.call('set', KEYS[1], v)\nreturn v", "1", counter);
                            assertTrue(answers.add(reply), () -> "two callers were answered " + reply);
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> caller : callers)
            {
                caller.get();
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        assertEquals(THREADS * ROUNDS, answers.size());
        try (RawResp resp = new RawResp(store.port()))
        {
            assertEquals("$" + THREADS * ROUNDS, resp.call("GET", counter));
        }
    }

    private static int nodeOf(final String key, final long[] memoryIds)
    {
        return Rendezvous.choose(KeyHash.hash(key.getBytes(StandardCharsets.UTF_8)), memoryIds);
    }
}
