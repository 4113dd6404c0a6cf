package io.dkv.compute;

import io.dkv.compute.command.RateLimitedLog;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failed AUTHs are counted, logged at most a line an interval naming the peer, and slowed: each holds its
 * connection's reply for a delay that doubles up to a cap, without holding the event loop (a client beside it is
 * served meanwhile), and the connection is closed after a number of them. Only lower bounds on time are asserted.
 */
class AuthThrottleTest
{
    private static final long FIRST_MS = 500;
    private static final long MAX_MS = 1_000;
    private static final int MAX_FAILURES = 4;

    @Test
    void failedAuthsAreDelayedCountedLoggedAndTheConnectionClosedAfterTheMost() throws Exception
    {
        final List<String> lines = Collections.synchronizedList(new ArrayList<>());
        final List<Long> lineTimes = Collections.synchronizedList(new ArrayList<>());
        final Consumer<String> log = line ->
        {
            if (line.contains("failed AUTH"))
            {
                lineTimes.add(System.nanoTime());
                lines.add(line);
            }
        };
        try (TestStore store = new TestStore(new ComputeNodeContext().requirePass("right")
            .authFailureDelayMs(FIRST_MS).authFailureDelayMaxMs(MAX_MS).authFailuresMax(MAX_FAILURES).log(log));
            RawResp steady = new RawResp(store.port()))
        {
            assertEquals("+OK", steady.call("AUTH", "right"));
            final ClientIsolationTest.PingLoop pings = new ClientIsolationTest.PingLoop(steady);
            pings.start();
            pings.awaitAnswers(1);
            final long started;
            final long answered;
            try (RawResp guesser = new RawResp(store.port()))
            {
                started = System.nanoTime();
                guesser.sendRaw(ClientIsolationTest.concat(ClientIsolationTest.concat(
                    ClientIsolationTest.request("AUTH", "wrong-1"), ClientIsolationTest.request("AUTH", "wrong-2")),
                    ClientIsolationTest.concat(ClientIsolationTest.request("AUTH", "wrong-3"),
                    ClientIsolationTest.concat(ClientIsolationTest.request("AUTH", "right"),
                    ClientIsolationTest.request("PING")))));
                for (int i = 0; i < 3; i++)
                {
                    assertEquals("-WRONGPASS invalid username-password pair or user is disabled.", guesser.read());
                }
                assertEquals("+OK", guesser.read(), "the right password still works");
                assertEquals("+PONG", guesser.read());
                answered = System.nanoTime();
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(answered - started);
            final int during = pings.answeredBetween(started, answered);
            System.out.printf("AuthThrottleTest: 3 wrong passwords then the right one answered in %,d ms (at least " +
                "%d + %d + %d); a client beside them got %d PINGs answered meanwhile: %s%n", elapsedMs, FIRST_MS,
                MAX_MS, MAX_MS, during, pings.latencies(started, answered));
            assertTrue(elapsedMs >= FIRST_MS + 2 * MAX_MS, () -> "3 failures held their replies " + elapsedMs + " ms");

            try (Socket guesser = new Socket())
            {
                guesser.connect(new InetSocketAddress("127.0.0.1", store.port()));
                guesser.setSoTimeout(30_000);
                // exactly as many as close it: a request still unread when the node closes would make the kernel
                // reset the connection, and the replies before it could be lost to the reset
                for (int i = 0; i < MAX_FAILURES; i++)
                {
                    guesser.getOutputStream().write(ClientIsolationTest.request("AUTH", "wrong-" + i));
                }
                final String wrong = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
                // read to the end of the stream: the node closed it (kept open, the read would time out)
                final byte[] replies = guesser.getInputStream().readAllBytes();
                assertEquals(wrong.repeat(MAX_FAILURES), new String(replies, java.nio.charset.StandardCharsets.UTF_8),
                    "closed after the " + MAX_FAILURES + "th failure, its reply sent");
            }
            pings.stop();
            try (RawResp client = new RawResp(store.port()))
            {
                assertEquals("+OK", client.call("AUTH", "right"));
                assertTrue(client.call("INFO", "stats").contains("dkv_auth_failures:" + (3 + MAX_FAILURES) + "\r\n"),
                    "every failure counted");
            }
            System.out.println("AuthThrottleTest: logged " + lines);
            // 7 failures within seconds: one line, or (a machine so busy that the test outlasts the interval) lines
            // an interval apart at least, each after the first saying how many it did not log
            assertFalse(lines.isEmpty(), "the first failure is logged");
            assertTrue(lines.getFirst().startsWith("dkv compute node: failed AUTH from /127.0.0.1:") &&
                lines.getFirst().contains("(its 1st on that connection; 1 since start)"), lines::toString);
            for (int i = 1; i < lines.size(); i++)
            {
                final long apartMs = TimeUnit.NANOSECONDS.toMillis(lineTimes.get(i) - lineTimes.get(i - 1));
                assertTrue(apartMs >= RateLimitedLog.INTERVAL_MS, () -> "at most a line an interval: " + lines);
                assertTrue(lines.get(i).contains(" more since the last such line"), lines::toString);
            }
        }
    }
}
