package io.dkv.compute;

import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Hostile and broken peers: malformed RESP, bulks and arrays over the bounds, lines too long, half a request then
 * silence, and connection floods each get redis's error (where redis has one) and a close, or are refused at
 * maxclients; the node stays up, holds nothing for them afterwards, and a well-behaved client beside them gets correct
 * replies throughout.
 */
class RespBadInputTest
{
    private static final int MAX_CLIENTS = 16;
    private static final int FLOOD = 10_000;
    private static final int FLOOD_THREADS = 4;
    private static final int FLOOD_OPEN_AT_ONCE = 1_000;
    private static final long LEAK_BOUND_BYTES = 8L << 20;
    private static TestStore store;
    private static RawResp wellBehaved;

    @BeforeAll
    static void start() throws IOException
    {
        store = new TestStore(new ComputeNodeContext().partialTimeoutMs(300).maxClients(MAX_CLIENTS));
        wellBehaved = new RawResp(store.port());
        assertEquals("+OK", wellBehaved.call("SET", "steady", "0"));
    }

    @AfterAll
    static void stop() throws IOException
    {
        CloseHelper.closeAll(wellBehaved, store);
    }

    @Test
    void malformedRequestsGetRedissProtocolErrorAndAClose() throws Exception
    {
        assertRefused("*abc\r\n", "-ERR Protocol error: invalid multibulk length");
        assertRefused("*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'");
        assertRefused("*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length");
        assertRefused("*1\r\n$x\r\n", "-ERR Protocol error: invalid bulk length");
        assertRefused("SET \"a b\r\n", "-ERR Protocol error: unbalanced quotes in request");
        assertRefused("*2147483648\r\n", "-ERR Protocol error: invalid multibulk length");
    }

    @Test
    void requestsOverTheBoundsAreRefusedBeforeTheirBytesAreHeld() throws Exception
    {
        // a bulk one byte over redis's largest string, more arguments than the node holds, a line that never
        // ends (a bulk past the node's 1 MiB is written into pieces as it arrives: RespLongStringDifferentialTest)
        assertRefused("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (512L * 1024 * 1024 + 1) + "\r\n",
            "-ERR Protocol error: invalid bulk length");
        // redis's largest count is taken (an argument array grows as arguments arrive), and the arguments are held to
        // client-query-buffer-limit (16 MiB here), each counted 24 bytes beyond its length: the 699,051st empty one
        // passes it, refused as its length is read (sent no further, so that the close resets nothing unread)
        assertRefused("*2147483647\r\n" + "$0\r\n\r\n".repeat(699_050) + "$0\r\n",
            "-ERR Protocol error: a command of more than 16777216 bytes of arguments (client-query-buffer-limit; " +
            "each argument counts 24 bytes more than its length)");
        assertRefused("*1\r\n$" + "9".repeat(70_000), "-ERR Protocol error: too big bulk count string");
        assertRefused("a".repeat(70_000), "-ERR Protocol error: too big inline request");
        // the largest value itself is served
        final String largest = "v".repeat(1024 * 1024);
        try (RawResp client = new RawResp(store.port()))
        {
            assertEquals("+OK", client.call("SET", "largest", largest));
            assertEquals("$" + largest, client.call("GET", "largest"));
        }
        assertSteady();
    }

    @Test
    void beforeAuthABulkOverSixteenKiBGetsRedissUnauthenticatedTextUpToRedissOwnBound() throws Exception
    {
        try (TestStore guarded = new TestStore(new ComputeNodeContext().requirePass("pw")))
        {
            // redis 7.0 checks its proto-max-bulk-len (512 MB) first, then 16 KiB before AUTH: 2 MB is past this
            // node's 1 MiB bound, yet redis names the AUTH
            for (final long length : new long[]{16 * 1024 + 1, 2L * 1024 * 1024, 512L * 1024 * 1024})
            {
                try (RawResp client = new RawResp(guarded.port()))
                {
                    client.sendRaw(("*2\r\n$4\r\nAUTH\r\n$" + length + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                    assertEquals("-ERR Protocol error: unauthenticated bulk length", client.read(),
                        "length " + length);
                }
            }
            try (RawResp client = new RawResp(guarded.port()))
            {
                client.sendRaw(("*2\r\n$4\r\nAUTH\r\n$" + (512L * 1024 * 1024 + 1) + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
                assertEquals("-ERR Protocol error: invalid bulk length", client.read());
            }
            try (RawResp client = new RawResp(guarded.port()))
            {
                assertEquals("+OK", client.call("AUTH", "pw"));
                client.sendRaw(("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (512L * 1024 * 1024 + 1) + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
                assertEquals("-ERR Protocol error: invalid bulk length", client.read(),
                    "authenticated: redis's bound");
            }
        }
    }

    @Test
    void aPeerThatSendsHalfARequestAndStallsIsClosedAfterTheDeadline() throws Exception
    {
        try (RawResp stalled = new RawResp(store.port()))
        {
            stalled.sendRaw("*2\r\n$3\r\nGET\r\n$5\r\nst".getBytes(StandardCharsets.US_ASCII));
            assertSteady();
            assertTrue(stalled.closedByServer(), "a stalled half request must be closed");
        }
        try (RawResp stalled = new RawResp(store.port()))
        {
            stalled.sendRaw("PIN".getBytes(StandardCharsets.US_ASCII));
            assertTrue(stalled.closedByServer(), "a stalled half inline request must be closed");
        }
        assertSteady();
    }

    @Test
    void pipelinedAndInlineRequestsAreAnsweredInOrder() throws Exception
    {
        try (RawResp client = new RawResp(store.port()))
        {
            client.sendRaw(("*3\r\n$3\r\nSET\r\n$2\r\np1\r\n$1\r\n5\r\nINCR p1\r\nget p1\r\n\r\n" +
                "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertEquals("+OK", client.read());
            assertEquals(":6", client.read());
            assertEquals("$6", client.read());
            assertEquals("$", client.read());
        }
    }

    @Test
    void connectionsBeyondMaxClientsAreRefusedAndASlotFreesWhenOneLeaves() throws Exception
    {
        assertSteady();
        final List<RawResp> held = new ArrayList<>();
        try
        {
            awaitConnections(1);
            for (int i = 1; i < MAX_CLIENTS; i++)
            {
                final RawResp client = new RawResp(store.port());
                held.add(client);
                assertEquals("+PONG", client.call("PING"));
            }
            try (RawResp refused = new RawResp(store.port()))
            {
                assertEquals("-ERR max number of clients reached", refused.read());
                assertTrue(refused.closedByServer());
            }
            assertSteady();
        }
        finally
        {
            for (final RawResp client : held)
            {
                client.close();
            }
        }
        awaitConnections(1);
        try (RawResp client = new RawResp(store.port()))
        {
            assertEquals("+PONG", client.call("PING"), "a slot is free again once the others left");
        }
    }

    /**
     * 10,000 connections from several threads, in waves (no more than {@link #FLOOD_OPEN_AT_ONCE} open at once),
     * each dropped after nothing, half a request, garbage (a protocol error the node answers and closes on) or half a
     * request and a reset: a well-behaved client beside them counts exactly throughout, and afterwards the node is up,
     * its connections are back to what they were, and the JVM's heap after a full GC has not grown by
     * {@link #LEAK_BOUND_BYTES}. A connection held open costs the node about 2 KB of heap (its channel, pipeline,
     * decoder and session: 2,000 held half requests measured 1.7 to 2.2 KB each beyond the client's sockets), so
     * 10,000 leaked would be about 20 MB; what the heap holds after a full GC does not depend on the machine's load.
     * Netty's allocator is not the measure: it keeps the chunks that the most connections open at once took, and
     * how many were open at once does depend on load.
     */
    @Test
    void tenThousandConnectionsOpenedAndDroppedLeaveNothingBehind() throws Exception
    {
        // its own node, so that no flood connection meets maxclients: a refusal is another test's subject
        try (TestStore flooded = new TestStore(new ComputeNodeContext().maxClients(2 * FLOOD));
            RawResp steady = new RawResp(flooded.port()))
        {
            assertEquals("+OK", steady.call("SET", "flood-steady", "0"));
            // a first wave warms up what is made once (classes, the allocator's chunks, caches) before the measure
            final long warmUp = flood(flooded.port(), FLOOD_OPEN_AT_ONCE, steady, 0);
            awaitConnections(flooded, 1);
            final long heapBefore = heapAfterGc();
            final long started = System.nanoTime();
            final long counted = flood(flooded.port(), FLOOD, steady, warmUp);
            System.out.printf("RespBadInputTest: %,d connections opened and dropped in %,d ms; the well-behaved " +
                "client counted %,d times beside them%n", FLOOD, (System.nanoTime() - started) / 1_000_000, counted);
            try (RawResp client = new RawResp(flooded.port()))
            {
                assertEquals("+PONG", client.call("PING"), "the node is up");
            }
            awaitConnections(flooded, 1);
            final long heapAfter = heapAfterGc();
            System.out.printf("RespBadInputTest: heap after a full GC %,d bytes before the flood, %,d after%n",
                heapBefore, heapAfter);
            assertTrue(heapAfter - heapBefore < LEAK_BOUND_BYTES, () -> "the heap after a full GC grew by " +
                (heapAfter - heapBefore) + " bytes over the flood");
        }
    }

    /**
     * @param connections how many to open and drop, over {@link #FLOOD_THREADS} threads.
     * @param steady      the well-behaved client, which counts on the calling thread until the flood is over.
     * @param counted     what its counter holds now.
     * @return how many times it counted.
     */
    private static long flood(final int port, final int connections, final RawResp steady, final long counted)
        throws Exception
    {
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < FLOOD_THREADS; t++)
        {
            final int thread = t;
            threads.add(Thread.ofPlatform().name("flood-" + t).start(() ->
            {
                try
                {
                    floodWaves(port, connections / FLOOD_THREADS, thread);
                }
                catch (final Throwable ex)
                {
                    failures.add(ex);
                }
            }));
        }
        long count = counted;
        do
        {
            assertEquals(":" + (count + 1), steady.call("INCR", "flood-steady"));
            count++;
        }
        while (threads.stream().anyMatch(Thread::isAlive));
        for (final Thread thread : threads)
        {
            thread.join();
        }
        if (!failures.isEmpty())
        {
            final AssertionError error = new AssertionError("a flood thread failed: " + failures.getFirst());
            failures.forEach(error::addSuppressed);
            throw error;
        }
        return count - counted;
    }

    /**
     * Waves of sockets opened together, each sent nothing, half a request, garbage, or half a request and then reset,
     * then all dropped. A socket closed from this side first, with nothing unread, stays in TIME_WAIT for a minute,
     * holding its ephemeral port: half of the 11,000 here (5,502 counted by {@code ss}; a close with the node's error
     * unread, or with SO_LINGER 0, resets instead), well within Linux's default range (32768-60999), and on loopback
     * {@code tcp_tw_reuse} (2, the default) lets new connections reuse them anyway.
     */
    private static void floodWaves(final int port, final int connections, final int thread) throws IOException
    {
        final int wave = FLOOD_OPEN_AT_ONCE / FLOOD_THREADS;
        final byte[] half = "*3\r\n$3\r\nSET".getBytes(StandardCharsets.US_ASCII);
        final byte[] garbage = "*abc\r\n".getBytes(StandardCharsets.US_ASCII);
        final List<Socket> open = new ArrayList<>(wave);
        try
        {
            for (int done = 0; done < connections; )
            {
                for (int i = 0; i < wave && done < connections; i++, done++)
                {
                    final Socket socket = new Socket();
                    open.add(socket);
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 30_000);
                    switch ((done + thread) % 4)
                    {
                        case 1 -> socket.getOutputStream().write(half);
                        case 2 -> socket.getOutputStream().write(garbage);
                        case 3 ->
                        {
                            socket.getOutputStream().write(half);
                            socket.setSoLinger(true, 0); // its close resets the connection: no TIME_WAIT
                        }
                        default ->
                        {
                        }
                    }
                }
                closeAll(open);
            }
        }
        finally
        {
            closeAll(open);
        }
    }

    private static void closeAll(final List<Socket> sockets) throws IOException
    {
        for (final Socket socket : sockets)
        {
            socket.close();
        }
        sockets.clear();
    }

    private static long heapAfterGc()
    {
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        memory.gc();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static void assertRefused(final String request, final String error) throws Exception
    {
        try (RawResp client = new RawResp(store.port()))
        {
            client.sendRaw(request.getBytes(StandardCharsets.US_ASCII));
            assertEquals(error, client.read(), request.length() > 60 ? request.substring(0, 60) + "..." : request);
            assertTrue(client.closedByServer(), "closed after the protocol error");
        }
        assertSteady();
    }

    /** The well-behaved client's counter goes up by one each time it asks, whatever happened beside it. */
    private static synchronized void assertSteady() throws IOException
    {
        final long before = Long.parseLong(wellBehaved.call("GET", "steady").substring(1));
        assertEquals(":" + (before + 1), wellBehaved.call("INCR", "steady"));
    }

    private static void awaitConnections(final int expected) throws InterruptedException
    {
        awaitConnections(store, expected);
    }

    private static void awaitConnections(final TestStore store, final int expected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (store.computeNode().connections() != expected)
        {
            if (System.nanoTime() > deadline)
            {
                fail("connections open: " + store.computeNode().connections() + ", expected " + expected);
            }
            Thread.sleep(10);
        }
    }
}
