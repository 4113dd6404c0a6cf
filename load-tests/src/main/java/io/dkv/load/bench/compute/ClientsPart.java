package io.dkv.load.bench.compute;

import io.dkv.compute.ComputeNode;
import io.dkv.compute.ComputeNodeContext;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.load.resp.RespSocket;
import io.dkv.memory.MemoryNodeContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static io.dkv.load.bench.Formats.ratio;

/**
 * Bounded clients (issue 67): on a compute node and on redis-server, each with its default client-output-buffer-limit,
 * a subscriber that never reads (a 4 KB receive buffer) beside a publisher of {@link #MESSAGE_BYTES}-byte messages: how
 * long until PUBLISH answers 0 (the subscriber was dropped), and a third connection's PING latency meanwhile. Then
 * MGETs of {@link #MGET_KEYS} keys back to back from one connection, and PING beside them.
 */
final class ClientsPart
{
    static final String TITLE = "Bounded clients: a subscriber that never reads, and PING beside it and beside " +
        "20,000-key MGETs, a compute node against redis-server";
    static final int MGET_KEYS = 20_000;
    private static final int MESSAGE_BYTES = 10_240;
    private static final int RECEIVE_BUFFER = 4096;
    private static final int TIMEOUT_MS = 60_000;
    private static final long SUBSCRIBER_DEADLINE_NS = 30_000_000_000L;
    private static final long PING_PAUSE_NS = 1_000_000L;

    private final Path redisBinary;
    private final int mgets;
    private final PrintWriter progress;

    /** One server's figures: the subscriber's drop, PINGs beside it, PINGs beside the MGETs. */
    record Timing(long droppedAfterNanos, int published, long[] pingsBesideSubscriber, long[] pingsBesideMget,
        long[] mgetNanos)
    {
    }

    record Result(Timing dkv, Timing redis, String redisVersion, int mgets)
    {
    }

    ClientsPart(final Path redisBinary, final int mgets, final PrintWriter progress)
    {
        this.redisBinary = redisBinary;
        this.mgets = mgets;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        final MemoryNodeContext memoryNode = new MemoryNodeContext().indexGroups(4096).heapChunks(64);
        try (InProcessStore store = InProcessStore.start(memoryNode);
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client()));
            RedisServer redis = RedisServer.start(redisBinary))
        {
            progress.printf("clients: a subscriber that never reads beside a publisher of %,d-byte messages, then " +
                "%,d MGETs of %,d keys, each with PINGs beside it, on a compute node and on redis-server...%n",
                MESSAGE_BYTES, mgets, MGET_KEYS);
            progress.flush();
            final Timing dkv = measure(node.port());
            final Timing baseline = measure(redis.port());
            return new Result(dkv, baseline, redis.version(), mgets);
        }
    }

    private Timing measure(final int port) throws IOException, InterruptedException
    {
        final String endpoint = RedisServer.HOST + ":" + port;
        final Pinger besideSubscriber = Pinger.start(endpoint);
        final long began = System.nanoTime();
        long dropped = -1;
        int published = 0;
        try (Socket subscriber = new Socket(); RespSocket publisher = new RespSocket(endpoint, TIMEOUT_MS))
        {
            subscriber.setReceiveBufferSize(RECEIVE_BUFFER);
            subscriber.connect(new InetSocketAddress(RedisServer.HOST, port), TIMEOUT_MS);
            subscriber.setSoTimeout(TIMEOUT_MS);
            final OutputStream out = subscriber.getOutputStream();
            out.write("*2\r\n$9\r\nSUBSCRIBE\r\n$7\r\nclients\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            readConfirmation(subscriber.getInputStream(), endpoint);
            final byte[] message = new byte[MESSAGE_BYTES];
            Arrays.fill(message, (byte)'m');
            final long start = System.nanoTime();
            while (System.nanoTime() - start < SUBSCRIBER_DEADLINE_NS)
            {
                final Object receivers = publisher.call(bytes("PUBLISH"), bytes("clients"), message);
                published++;
                if (Long.valueOf(0).equals(receivers))
                {
                    dropped = System.nanoTime() - start;
                    break;
                }
            }
        }
        final long[] pingsBesideSubscriber = besideSubscriber.stop();
        if (dropped < 0)
        {
            throw new IllegalStateException(endpoint + " still delivered to a subscriber that never read after " +
                published + " messages of " + MESSAGE_BYTES + " bytes in " +
                (System.nanoTime() - began) / 1_000_000 + " ms");
        }
        final byte[][] mget = new byte[MGET_KEYS + 1][];
        mget[0] = bytes("MGET");
        try (RespSocket writer = new RespSocket(endpoint, TIMEOUT_MS))
        {
            for (int from = 0; from < MGET_KEYS; from += 1000)
            {
                final byte[][] mset = new byte[1 + 2 * 1000][];
                mset[0] = bytes("MSET");
                for (int i = 0; i < 1000; i++)
                {
                    mget[1 + from + i] = bytes("clients-" + (from + i));
                    mset[1 + 2 * i] = mget[1 + from + i];
                    mset[2 + 2 * i] = bytes("value-" + (from + i));
                }
                writer.call(mset);
            }
        }
        final Pinger besideMget = Pinger.start(endpoint);
        final long[] mgetNanos = new long[mgets];
        try (RespSocket reader = new RespSocket(endpoint, TIMEOUT_MS))
        {
            for (int i = 0; i < mgets; i++)
            {
                final long at = System.nanoTime();
                final Object values = reader.call(mget);
                mgetNanos[i] = System.nanoTime() - at;
                if (!(values instanceof List<?> list) || list.size() != MGET_KEYS || list.get(0) == null)
                {
                    throw new IllegalStateException(endpoint + " answered MGET of " + MGET_KEYS + " keys with " +
                        (values instanceof List<?> got ? got.size() + " values" : values));
                }
            }
        }
        return new Timing(dropped, published, pingsBesideSubscriber, besideMget.stop(), mgetNanos);
    }

    private static void readConfirmation(final InputStream in, final String endpoint) throws IOException
    {
        // *3 $9 subscribe $7 clients :1, each line ending in CRLF: 6 lines
        int lines = 0;
        while (lines < 6)
        {
            final int b = in.read();
            if (b < 0)
            {
                throw new IOException(endpoint + " closed the subscriber before confirming its SUBSCRIBE");
            }
            lines += b == '\n' ? 1 : 0;
        }
    }

    /** A connection PINGing one request at a time, a pause of 1 ms between, until stopped. */
    private static final class Pinger implements Runnable
    {
        private final String endpoint;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Long> nanos = new ArrayList<>();
        private final Thread thread;
        private volatile RuntimeException failure;

        private Pinger(final String endpoint)
        {
            this.endpoint = endpoint;
            this.thread = new Thread(this, "clients-pinger");
        }

        static Pinger start(final String endpoint)
        {
            final Pinger pinger = new Pinger(endpoint);
            pinger.thread.start();
            return pinger;
        }

        public void run()
        {
            try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
            {
                final byte[] ping = bytes("PING");
                while (running.get())
                {
                    final long at = System.nanoTime();
                    socket.call(ping);
                    final long took = System.nanoTime() - at;
                    synchronized (nanos)
                    {
                        nanos.add(took);
                    }
                    LockSupport.parkNanos(PING_PAUSE_NS);
                }
            }
            catch (final RuntimeException ex)
            {
                failure = ex;
            }
        }

        long[] stop() throws InterruptedException
        {
            running.set(false);
            thread.join();
            if (failure != null)
            {
                throw new IllegalStateException(endpoint + ": a PING beside failed: " + failure.getMessage(), failure);
            }
            synchronized (nanos)
            {
                return nanos.stream().mapToLong(Long::longValue).toArray();
            }
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    static ReportSection section(final Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("measure", false),
            new TextTable.Column("dkv", true),
            new TextTable.Column("redis", true),
            new TextTable.Column("ratio", true)));
        final Timing dkv = result.dkv();
        final Timing redis = result.redis();
        table.addRow("subscriber dropped after (ms)", millis(dkv.droppedAfterNanos()),
            millis(redis.droppedAfterNanos()), ratio((double)dkv.droppedAfterNanos() / redis.droppedAfterNanos()));
        table.addRow("messages published until then", Integer.toString(dkv.published()),
            Integer.toString(redis.published()), ratio((double)dkv.published() / redis.published()));
        addPercentile(table, "PING beside the subscriber p50 (ms)", dkv.pingsBesideSubscriber(),
            redis.pingsBesideSubscriber(), 50);
        addPercentile(table, "PING beside the subscriber p99 (ms)", dkv.pingsBesideSubscriber(),
            redis.pingsBesideSubscriber(), 99);
        addPercentile(table, "MGET of 20,000 keys p50 (ms)", dkv.mgetNanos(), redis.mgetNanos(), 50);
        addPercentile(table, "PING beside the MGETs p50 (ms)", dkv.pingsBesideMget(), redis.pingsBesideMget(), 50);
        addPercentile(table, "PING beside the MGETs p99 (ms)", dkv.pingsBesideMget(), redis.pingsBesideMget(), 99);
        return new ReportSection(TITLE, List.of(String.format(Locale.ROOT, "each server with its default " +
            "client-output-buffer-limit (pubsub 32mb 8mb 60); a subscriber with a %,d-byte receive buffer that " +
            "never reads, a publisher of %,d-byte messages one at a time until PUBLISH answers 0, a third " +
            "connection PINGing one at a time with 1 ms between; then %,d MGETs of %,d keys of about 10 bytes back " +
            "to back, PINGs beside them (%,d and %,d PINGs on dkv, %,d and %,d on redis-server); ratio: dkv's over " +
            "redis-server's, lower is better", RECEIVE_BUFFER, MESSAGE_BYTES, result.mgets(), MGET_KEYS,
            dkv.pingsBesideSubscriber().length, dkv.pingsBesideMget().length, redis.pingsBesideSubscriber().length,
            redis.pingsBesideMget().length)), table);
    }

    private static void addPercentile(final TextTable table, final String name, final long[] dkv, final long[] redis,
        final double percentile)
    {
        final double ofDkv = Percentiles.of(dkv, percentile);
        final double ofRedis = Percentiles.of(redis, percentile);
        table.addRow(name, millis(ofDkv), millis(ofRedis), ratio(ofDkv / ofRedis));
    }

    /** @return the goal lines: the subscriber dropped within 5 s, PING p99 at most 10 ms beside it and the MGETs. */
    static List<String> goals(final Result result)
    {
        final double dropped = result.dkv().droppedAfterNanos() / 1e9;
        final double besideSubscriber = Percentiles.of(result.dkv().pingsBesideSubscriber(), 99) / 1e6;
        final double besideMget = Percentiles.of(result.dkv().pingsBesideMget(), 99) / 1e6;
        return List.of(
            String.format(Locale.ROOT, "a subscriber that never reads is dropped within 5 s: %s (%.2f s)",
                dropped <= 5.0 ? "MET" : "MISSED", dropped),
            String.format(Locale.ROOT, "PING p99 <= 10 ms beside it and beside 20,000-key MGETs: %s (%.2f ms and " +
                "%.2f ms)", besideSubscriber <= 10.0 && besideMget <= 10.0 ? "MET" : "MISSED", besideSubscriber,
                besideMget));
    }

    private static String millis(final double nanos)
    {
        return String.format(Locale.ROOT, "%,.2f", nanos / 1e6);
    }
}
