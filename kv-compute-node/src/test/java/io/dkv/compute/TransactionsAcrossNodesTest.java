package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MULTI/EXEC, WATCH, MSET and MSETNX hold across compute nodes: two nodes over one store, each with its own client, as
 * two processes would be. A WATCH on one node sees a write made through the other; concurrent transactions through
 * both lose no update and never show a reader one key changed without the other; no reader (MGET, or GET and GET in a
 * transaction) sees part of an MSET; of two MSETNX over a common key, exactly one sets all its keys. Counts are small
 * and fixed so that the test holds on two busy cores; it asserts on outcomes, never on times.
 */
class TransactionsAcrossNodesTest
{
    private static final int ROUNDS = 150;

    @RegisterExtension
    static final TwoComputeNodesExtension NODES = new TwoComputeNodesExtension();

    @Test
    void aWatchOnOneNodeSeesAWriteThroughTheOther() throws Exception
    {
        try (RawResp first = new RawResp(NODES.first().port());
            RawResp second = new RawResp(NODES.second().port()))
        {
            assertEquals("+OK", first.call("SET", "x-w", "1"));
            assertEquals("+OK", first.call("WATCH", "x-w"));
            assertEquals("+OK", second.call("SET", "x-w", "2"));
            assertEquals("+OK", first.call("MULTI"));
            assertEquals("+QUEUED", first.call("SET", "x-other", "never"));
            assertEquals("*nil", first.call("EXEC"), "the write through the other node failed the EXEC");
            assertEquals("$nil", second.call("GET", "x-other"), "and nothing of it was written");

            assertEquals("+OK", first.call("WATCH", "x-w"));
            assertEquals("$2", second.call("GET", "x-w"));
            assertEquals("+OK", first.call("MULTI"));
            assertEquals("+QUEUED", first.call("INCR", "x-w"));
            assertEquals("*1[:3]", first.call("EXEC"), "a read through the other node changes nothing");

            assertEquals("+OK", second.call("WATCH", "x-w"));
            assertEquals(":1", first.call("DEL", "x-w"));
            assertEquals("+OK", second.call("MULTI"));
            assertEquals("+QUEUED", second.call("GET", "x-w"));
            assertEquals("*nil", second.call("EXEC"), "a delete through the other node failed it too");
        }
    }

    /**
     * Four clients, two on each node, add 1 to two keys in one MULTI/EXEC each round, and two more do the same by
     * WATCH, GET, MULTI, SET, EXEC (again on nil) over two other keys; readers on both nodes check each pair, by MGET
     * and by a transaction of two GETs, never to differ. At the end each pair counts every EXEC that ran: no update was
     * lost.
     */
    @Test
    void concurrentTransactionsThroughTwoNodesLoseNoUpdateAndKeepTheirKeysInStep() throws Exception
    {
        try (RawResp setup = new RawResp(NODES.first().port()))
        {
            setup.call("MSET", "x-a", "0", "x-b", "0", "x-c", "0", "x-d", "0");
        }
        final AtomicBoolean writing = new AtomicBoolean(true);
        final AtomicLong watchedRetries = new AtomicLong();
        final List<String> torn = new ArrayList<>();
        final AtomicInteger reads = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(8);
        try
        {
            final List<Future<?>> writers = new ArrayList<>();
            for (int i = 0; i < 4; i++)
            {
                final int port = i % 2 == 0 ? NODES.first().port() : NODES.second().port();
                writers.add(pool.submit(() ->
                {
                    try (RawResp resp = new RawResp(port))
                    {
                        for (int round = 0; round < ROUNDS; round++)
                        {
                            resp.call("MULTI");
                            resp.call("INCR", "x-a");
                            resp.call("INCR", "x-b");
                            final String replies = resp.call("EXEC");
                            assertTrue(replies.matches("\\*2\\[:(\\d+), :\\1]"), replies);
                        }
                    }
                    return null;
                }));
            }
            for (int i = 0; i < 2; i++)
            {
                final int port = i == 0 ? NODES.first().port() : NODES.second().port();
                writers.add(pool.submit(() ->
                {
                    try (RawResp resp = new RawResp(port))
                    {
                        for (int round = 0; round < ROUNDS; round++)
                        {
                            while (!watchedIncrement(resp))
                            {
                                watchedRetries.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            final List<Future<?>> readers = new ArrayList<>();
            for (final int port : new int[]{NODES.first().port(), NODES.second().port()})
            {
                readers.add(pool.submit(() ->
                {
                    try (RawResp resp = new RawResp(port))
                    {
                        while (writing.get())
                        {
                            check(resp.call("MGET", "x-a", "x-b"), torn);
                            check(resp.call("MGET", "x-c", "x-d"), torn);
                            resp.call("MULTI");
                            resp.call("GET", "x-a");
                            resp.call("GET", "x-b");
                            check(resp.call("EXEC"), torn);
                            reads.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> writer : writers)
            {
                writer.get(5, TimeUnit.MINUTES);
            }
            writing.set(false);
            for (final Future<?> reader : readers)
            {
                reader.get(1, TimeUnit.MINUTES);
            }
        }
        finally
        {
            writing.set(false);
            pool.shutdownNow();
        }
        System.out.printf("TransactionsAcrossNodesTest: %d MULTI/EXEC and %d WATCHed increments through two nodes, " +
            "%d WATCHed EXECs answered nil and ran again, %d rounds of reads%n", 4 * ROUNDS, 2 * ROUNDS,
            watchedRetries.get(), reads.get());
        assertEquals(List.of(), torn, "readers saw a pair out of step");
        try (RawResp resp = new RawResp(NODES.second().port()))
        {
            assertEquals("*2[$" + 4 * ROUNDS + ", $" + 4 * ROUNDS + "]", resp.call("MGET", "x-a", "x-b"),
                "every MULTI/EXEC's increments, none lost");
            assertEquals("*2[$" + 2 * ROUNDS + ", $" + 2 * ROUNDS + "]", resp.call("MGET", "x-c", "x-d"),
                "every WATCHed increment that ran, none lost");
        }
    }

    /** @return false when EXEC answered nil: a watched key changed, nothing was written. */
    private static boolean watchedIncrement(final RawResp resp) throws Exception
    {
        resp.call("WATCH", "x-c", "x-d");
        final long c = Long.parseLong(resp.call("GET", "x-c").substring(1));
        final long d = Long.parseLong(resp.call("GET", "x-d").substring(1));
        resp.call("MULTI");
        resp.call("SET", "x-c", Long.toString(c + 1));
        resp.call("SET", "x-d", Long.toString(d + 1));
        final String replies = resp.call("EXEC");
        if (replies.equals("*nil"))
        {
            return false;
        }
        assertEquals("*2[+OK, +OK]", replies);
        return true;
    }

    private static void check(final String pair, final List<String> torn)
    {
        if (!pair.matches("\\*2\\[\\$(\\d+), \\$\\1]"))
        {
            synchronized (torn)
            {
                torn.add(pair);
            }
        }
    }

    /**
     * One client MSETs two keys to the same new value, round after round, through one node; readers on both nodes
     * MGET them and must always find them equal.
     */
    @Test
    void noReaderOnEitherNodeSeesPartOfAnMset() throws Exception
    {
        final AtomicBoolean writing = new AtomicBoolean(true);
        final List<String> torn = new ArrayList<>();
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        try (RawResp writer = new RawResp(NODES.first().port()))
        {
            writer.call("MSET", "x-m1", "0", "x-m2", "0");
            final List<Future<?>> readers = new ArrayList<>();
            for (final int port : new int[]{NODES.first().port(), NODES.second().port()})
            {
                readers.add(pool.submit(() ->
                {
                    try (RawResp resp = new RawResp(port))
                    {
                        while (writing.get())
                        {
                            final String pair = resp.call("MGET", "x-m1", "x-m2");
                            check(pair, torn);
                            seen.add(pair);
                        }
                    }
                    return null;
                }));
            }
            for (int round = 1; round <= 4 * ROUNDS; round++)
            {
                assertEquals("+OK", writer.call("MSET", "x-m1", Integer.toString(round), "x-m2",
                    Integer.toString(round)));
            }
            writing.set(false);
            for (final Future<?> reader : readers)
            {
                reader.get(1, TimeUnit.MINUTES);
            }
        }
        finally
        {
            writing.set(false);
            pool.shutdownNow();
        }
        System.out.printf("TransactionsAcrossNodesTest: %d MSETs, readers saw %d distinct pairs%n", 4 * ROUNDS,
            seen.size());
        assertEquals(List.of(), torn, "a reader saw one key of an MSET and not the other");
        assertTrue(seen.size() > 2, "the readers read while the MSETs ran: " + seen.size() + " pairs seen");
    }

    /**
     * Round after round, two clients on different nodes race MSETNX over keys that overlap in one: exactly one sets
     * all of its keys, and the other none.
     */
    @Test
    void ofTwoRacingMsetnxOverACommonKeyExactlyOneSetsAllItsKeys() throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        try (RawResp left = new RawResp(NODES.first().port());
            RawResp right = new RawResp(NODES.second().port()))
        {
            for (int round = 0; round < ROUNDS / 3; round++)
            {
                left.call("DEL", "x-n1", "x-n2", "x-n3");
                final Future<String> l = pool.submit(() -> left.call("MSETNX", "x-n1", "L", "x-n2", "L"));
                final Future<String> r = pool.submit(() -> right.call("MSETNX", "x-n2", "R", "x-n3", "R"));
                final String leftWon = l.get(1, TimeUnit.MINUTES);
                final String rightWon = r.get(1, TimeUnit.MINUTES);
                final String values = left.call("MGET", "x-n1", "x-n2", "x-n3");
                if (leftWon.equals(":1"))
                {
                    assertEquals(":0", rightWon);
                    assertEquals("*3[$L, $L, $nil]", values);
                }
                else
                {
                    assertEquals(":1", rightWon, "one of them sets its keys");
                    assertEquals("*3[$nil, $R, $R]", values);
                }
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }
}
