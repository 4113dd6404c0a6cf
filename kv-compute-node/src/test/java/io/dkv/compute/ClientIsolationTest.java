package io.dkv.compute;

import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No client holds up another: a peer that pipelines reads and never takes the replies stops being run (backpressure)
 * and what it had sent is dropped when it goes; one whose reply passes the output limit is closed and counted; an MGET
 * of many keys runs in slices between which another connection of the same event loop is served. Each runs beside a
 * well-behaved client on the same loop (the test store's node has one), whose latency it prints; it asserts on what the
 * node did (requests run, connections closed, the order of replies), never on how long anything took, so that it holds
 * on a loaded machine.
 */
class ClientIsolationTest
{
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * 20,000 pipelined GETs of a 16 KiB value, never read (320 MB of replies): the node runs as many as the socket
     * buffers and the high water mark take, a few hundred, and stops; the well-behaved client is served throughout;
     * once the peer resets its connection the node closes it and runs none of the rest.
     */
    @Test
    void aPeerThatTakesNoRepliesIsNoLongerRunAndWhatItSentIsDroppedWhenItGoes() throws Exception
    {
        final int pipelined = 20_000;
        try (TestStore store = new TestStore(new ComputeNodeContext());
            RawResp steady = new RawResp(store.port()))
        {
            assertEquals("+OK", steady.call("SET", "big", "v".repeat(16 * 1024)));
            final Probe probe = new Probe(steady);
            final long before = probe.commands();
            final Socket hostile = new Socket();
            hostile.connect(new InetSocketAddress("127.0.0.1", store.port()));
            final Thread writer = pipeline(hostile, request("GET", "big"), pipelined);
            final long stalled = probe.untilSteady(before);
            System.out.printf("ClientIsolationTest: a peer pipelined %,d GETs of 16 KiB and read none; the node ran " +
                "%,d of them and stopped; well-behaved client's PINGs meanwhile: %s%n", pipelined, stalled,
                probe.latencies());
            assertTrue(stalled < pipelined / 2, () -> "the node ran " + stalled + " of " + pipelined +
                " GETs whose replies nobody took");
            assertTrue(stalled > 0, "it ran some before its replies backed up");

            hostile.setSoLinger(true, 0);
            hostile.close();
            writer.join(TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS));
            probe.untilConnections(1);
            final long afterClose = probe.untilSteady(before);
            System.out.printf("ClientIsolationTest: after the peer reset, %,d had run in all (%,d after the reset); " +
                "PINGs: %s%n", afterClose, afterClose - stalled, probe.latencies());
            assertTrue(afterClose < pipelined / 2, () -> "the node ran " + afterClose + " of " + pipelined +
                " GETs of a connection that was gone");
        }
    }

    /**
     * An MGET whose reply (4 MiB) passes a 1 MiB output limit closes its connection, counted; the node and the
     * well-behaved client go on; CONFIG GET reports the limit as redis's normal class.
     */
    @Test
    void aReplyPastTheOutputLimitClosesItsConnectionAndIsCounted() throws Exception
    {
        try (TestStore store = new TestStore(new ComputeNodeContext().outputLimitBytes(1 << 20));
            RawResp steady = new RawResp(store.port()))
        {
            final String value = "w".repeat(64 * 1024);
            final List<String> mget = new ArrayList<>(List.of("MGET"));
            for (int i = 0; i < 64; i++)
            {
                assertEquals("+OK", steady.call("SET", "large-" + i, value));
                mget.add("large-" + i);
            }
            assertEquals("*2[$client-output-buffer-limit, $normal 1048576 0 0 slave 268435456 67108864 60 " +
                "pubsub 33554432 8388608 60]",
                steady.call("CONFIG", "GET", "client-output-buffer-limit"));
            try (RawResp greedy = new RawResp(store.port()))
            {
                greedy.send(mget.toArray(String[]::new));
                assertTrue(greedy.closedByServer(), "a 4 MiB reply over a 1 MiB limit closes the connection");
            }
            assertEquals("+PONG", steady.call("PING"));
            assertTrue(steady.call("INFO", "stats").contains("dkv_output_limit_closes:1\r\n"), "counted once");
            // within the limit, the same values are served one MGET at a time
            assertTrue(steady.call("MGET", "large-0", "large-1").startsWith("*2[$www"));
        }
    }

    /**
     * A 20,000-key MGET runs in slices: a connection on the same event loop that PINGs one at a time gets answers
     * while it runs, and the MGET's connection gets its reply whole and then the next request's.
     */
    @Test
    void aLargeMgetRunsInSlicesBetweenWhichAnotherConnectionIsServed() throws Exception
    {
        final int keys = 20_000;
        final String value = "abcdefgh";
        try (TestStore store = new TestStore(new ComputeNodeContext());
            RawResp setter = new RawResp(store.port());
            Socket large = new Socket())
        {
            final List<String> mset = new ArrayList<>();
            for (int i = 0; i < keys; i++)
            {
                if (mset.isEmpty())
                {
                    mset.add("MSET");
                }
                mset.add("slice-" + i);
                mset.add(value);
                if (mset.size() > 2_000 || i == keys - 1)
                {
                    assertEquals("+OK", setter.call(mset.toArray(String[]::new)));
                    mset.clear();
                }
            }
            final String[] mget = new String[keys + 1];
            mget[0] = "MGET";
            for (int i = 0; i < keys; i++)
            {
                mget[i + 1] = "slice-" + i;
            }
            final PingLoop pings = new PingLoop(new RawResp(store.port()));
            pings.start();
            pings.awaitAnswers(3);
            large.connect(new InetSocketAddress("127.0.0.1", store.port()));
            large.setSoTimeout((int)TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS));
            final byte[] requests = concat(request(mget), request("PING"));
            final long sent = System.nanoTime();
            large.getOutputStream().write(requests);
            final byte[] expected = concat(("*" + keys + "\r\n").getBytes(StandardCharsets.US_ASCII),
                ("$8\r\n" + value + "\r\n").repeat(keys).getBytes(StandardCharsets.US_ASCII));
            final byte[] reply = large.getInputStream().readNBytes(expected.length);
            final long done = System.nanoTime();
            final byte[] pong = large.getInputStream().readNBytes(7);
            pings.stop();
            assertTrue(Arrays.equals(expected, reply), "the MGET's reply, whole");
            assertEquals("+PONG\r\n", new String(pong, StandardCharsets.US_ASCII), "then the next request's");
            final int during = pings.answeredBetween(sent, done);
            System.out.printf("ClientIsolationTest: a %,d-key MGET took %,d ms; another connection of its loop got " +
                "%d PINGs answered meanwhile: %s%n", keys, TimeUnit.NANOSECONDS.toMillis(done - sent), during,
                pings.latencies(sent, done));
            // unsliced, the one PING in flight when the MGET came was all (1); 3 leaves room for a loaded machine
            assertTrue(during >= 3, () -> "PINGs sent and answered while the MGET ran: " + during);
        }
    }

    static byte[] request(final String... args)
    {
        final StringBuilder text = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (final String arg : args)
        {
            text.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg)
                .append("\r\n");
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(final byte[] a, final byte[] b)
    {
        final byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /** Write {@code request} {@code times} times on a thread of its own, in large writes; never read. */
    static Thread pipeline(final Socket socket, final byte[] request, final int times)
    {
        final Thread writer = new Thread(() ->
        {
            final int perWrite = Math.max(1, 64 * 1024 / request.length);
            final byte[] chunk = new byte[perWrite * request.length];
            for (int i = 0; i < perWrite; i++)
            {
                System.arraycopy(request, 0, chunk, i * request.length, request.length);
            }
            try
            {
                final OutputStream out = socket.getOutputStream();
                for (int written = 0; written < times; written += perWrite)
                {
                    out.write(chunk, 0, Math.min(perWrite, times - written) * request.length);
                }
                out.flush();
            }
            catch (final IOException ex)
            {
                // the test closed the socket while the write was blocked: the node was not reading
            }
        }, "hostile-writer");
        writer.setDaemon(true);
        writer.start();
        return writer;
    }

    /** The well-behaved client, which reads the node's figures through INFO and times each call. */
    static final class Probe
    {
        private final RawResp client;
        private final List<Long> nanos = new ArrayList<>();
        private long calls;

        Probe(final RawResp client)
        {
            this.client = client;
        }

        /** @return commands the node processed, less this probe's own. */
        long commands() throws IOException
        {
            return field(info("stats"), "total_commands_processed") - calls;
        }

        /**
         * @return the node's commands past {@code base} once they moved and 50 calls in a row saw no more of them (at
         * most 30 s).
         */
        long untilSteady(final long base) throws IOException
        {
            final long end = System.nanoTime() + BOUND_NANOS;
            long last = -1;
            int same = 0;
            // steady once it moved: a count still at 0 is a peer whose first requests have not arrived yet
            while ((same < 50 || last <= 0) && System.nanoTime() < end)
            {
                final long now = commands() - base;
                same = now == last ? same + 1 : 0;
                last = now;
            }
            return last;
        }

        void untilConnections(final int connections) throws IOException
        {
            final long end = System.nanoTime() + BOUND_NANOS;
            while (field(info("clients"), "connected_clients") != connections)
            {
                assertTrue(System.nanoTime() < end, "connections back to " + connections + " within 30 s");
            }
        }

        private String info(final String section) throws IOException
        {
            final long start = System.nanoTime();
            final String reply = client.call("INFO", section);
            nanos.add(System.nanoTime() - start);
            calls++;
            return reply;
        }

        /** @return the calls' median and max round trips since the last, in microseconds. */
        String latencies()
        {
            final String text = summary(nanos);
            nanos.clear();
            return text;
        }

        static long field(final String info, final String name)
        {
            final int at = info.indexOf(name + ":");
            return Long.parseLong(info.substring(at + name.length() + 1, info.indexOf('\r', at)));
        }
    }

    static String summary(final List<Long> nanos)
    {
        if (nanos.isEmpty())
        {
            return "none";
        }
        final List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return sorted.size() + " calls, median " + sorted.get(sorted.size() / 2) / 1_000 + " us, max " +
            sorted.getLast() / 1_000 + " us";
    }

    /** PINGs one at a time on a thread of its own, noting when each was sent and answered. */
    static final class PingLoop implements Runnable
    {
        private final RawResp client;
        private final List<long[]> answered = Collections.synchronizedList(new ArrayList<>());
        private final Thread thread = new Thread(this, "pings");
        private volatile boolean running = true;

        PingLoop(final RawResp client)
        {
            this.client = client;
        }

        void start()
        {
            thread.setDaemon(true);
            thread.start();
        }

        public void run()
        {
            try
            {
                while (running)
                {
                    final long sent = System.nanoTime();
                    assertEquals("+PONG", client.call("PING"));
                    answered.add(new long[]{sent, System.nanoTime()});
                }
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        void awaitAnswers(final int count) throws InterruptedException
        {
            while (answered.size() < count)
            {
                Thread.sleep(1);
            }
        }

        void stop() throws InterruptedException
        {
            running = false;
            thread.join(TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS));
            CloseHelper.quietClose(client);
        }

        /** @return PINGs sent after {@code from} and answered before {@code to}. */
        int answeredBetween(final long from, final long to)
        {
            int count = 0;
            synchronized (answered)
            {
                for (final long[] ping : answered)
                {
                    count += ping[0] >= from && ping[1] <= to ? 1 : 0;
                }
            }
            return count;
        }

        String latencies(final long from, final long to)
        {
            final List<Long> nanos = new ArrayList<>();
            synchronized (answered)
            {
                for (final long[] ping : answered)
                {
                    if (ping[0] >= from && ping[0] <= to)
                    {
                        nanos.add(ping[1] - ping[0]);
                    }
                }
            }
            return summary(nanos);
        }
    }
}
