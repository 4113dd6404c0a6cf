package io.dkv.compute;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's close (SIGTERM's) ends within its drain timeout whatever its clients do: one that pipelined GETs of a large
 * value and reads none, and one whose failed AUTH holds its reply, are closed at the deadline, as is an idle one.
 * Asserted with a generous slack over the deadline, for a loaded machine.
 */
class ShutdownBoundTest
{
    private static final long DRAIN_MS = 1_000;
    private static final long SLACK_MS = 15_000;

    @Test
    void closeEndsWithinTheDrainTimeoutWhateverTheClientsDo() throws Exception
    {
        final TestStore store = new TestStore(new ComputeNodeContext().drainTimeoutMs(DRAIN_MS).requirePass("pw")
            .authFailureDelayMs(60_000).authFailureDelayMaxMs(60_000));
        try (RawResp steady = new RawResp(store.port());
            RawResp guesser = new RawResp(store.port());
            Socket stuck = new Socket())
        {
            assertEquals("+OK", steady.call("AUTH", "pw"));
            assertEquals("+OK", steady.call("SET", "big", "v".repeat(64 * 1024)));
            stuck.connect(new InetSocketAddress("127.0.0.1", store.port()));
            stuck.getOutputStream().write(ClientIsolationTest.request("AUTH", "pw"));
            ClientIsolationTest.pipeline(stuck, ClientIsolationTest.request("GET", "big"), 100_000);
            guesser.send("AUTH", "wrong");
            final ClientIsolationTest.Probe probe = new ClientIsolationTest.Probe(steady);
            final long before = probe.commands();
            final long ran = probe.untilSteady(before);
            final long started = System.nanoTime();
            store.computeNode().close();
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("ShutdownBoundTest: close took %,d ms (drain timeout %,d ms) with a peer that read " +
                "none of its replies (%,d GETs of 64 KiB run) and one whose failed AUTH was held%n", tookMs, DRAIN_MS,
                ran);
            assertTrue(tookMs < DRAIN_MS + SLACK_MS, () -> "close took " + tookMs + " ms");
            assertTrue(steady.closedByServer());
            assertTrue(guesser.closedByServer(), "the held connection is closed");
        }
        finally
        {
            store.close();
        }
    }
}
