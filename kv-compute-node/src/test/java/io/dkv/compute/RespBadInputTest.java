package io.dkv.compute;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
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
        if (wellBehaved != null)
        {
            wellBehaved.close();
        }
        if (store != null)
        {
            store.close();
        }
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
        // a bulk one byte over the largest value, an array of more arguments than allowed, a line that never ends
        assertRefused("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (1024 * 1024 + 1) + "\r\n", "-ERR Protocol error: invalid bulk length");
        assertRefused("*2147483647\r\n", "-ERR Protocol error: invalid multibulk length");
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
    void connectionsBeyondMaxClientsAreRefusedAndFloodsLeaveNothingBehind() throws Exception
    {
        for (int i = 0; i < 200; i++)
        {
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress("127.0.0.1", store.port()), 10_000);
                if (i % 2 == 0)
                {
                    socket.getOutputStream().write("*3\r\n$3\r\nSET".getBytes(StandardCharsets.US_ASCII));
                }
            }
        }
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
        final long deadline = System.nanoTime() + 30_000_000_000L;
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
