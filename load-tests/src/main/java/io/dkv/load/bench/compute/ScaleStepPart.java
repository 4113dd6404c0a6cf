package io.dkv.load.bench.compute;

import io.dkv.compute.autoscale.MetricsScrape;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.process.RoleProcess;
import io.dkv.load.resp.RespSocket;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static io.dkv.load.bench.Formats.ratio;

/**
 * A scale-out step under steady load: one compute node serves a fixed rate of GETs and SETs from clients that
 * reconnect every so often (as pooled clients cycle their connections), then a second node starts on the same port
 * (SO_REUSEPORT), and the kernel gives it part of the new connections. The latency of each request is taken from the
 * moment it was due (open loop: a stall delays the requests behind it, and they count), in three phases: steady (one
 * node), the step (from the second node's exec until a settling time after it serves) and after (two nodes). The
 * nodes attach to the host's standalone driver, or each starts a driver of its own.
 */
final class ScaleStepPart
{
    static final String TITLE = "scale-out step: 1 -> 2 compute nodes under steady load";
    static final double GOAL_P99_RATIO = 2.0;
    private static final Pattern COMPUTE_READY = Pattern.compile(
        "dkv compute node (\\d+) serving RESP on \\S+:(\\d+) .*; metrics on http://\\S+:(\\d+)/metrics");
    private static final int TIMEOUT_MS = 10_000;
    private static final int KEYS = 10_000;
    private static final String[] PHASES = {"steady (1 node)", "step (exec of node 2 to settled)", "after (2 nodes)"};
    private static final int WARMUP = -1;
    private static final int DONE = 3;

    private final int rate;
    private final int clients;
    private final long phaseMs;
    private final long connectionLifeMs;
    private final PrintWriter progress;
    private final boolean attached;
    private volatile int phase = WARMUP;

    /**
     * @param rate             requests a second, over all clients.
     * @param clients          client threads, each with one connection at a time.
     * @param phaseMs          length of the steady and after phases, and the settling time of the step.
     * @param connectionLifeMs how long a client keeps a connection before it opens a new one.
     * @param attached         whether the nodes attach to the host's driver ({@code --driver}), else each starts its
     *                         own.
     */
    ScaleStepPart(final int rate, final int clients, final long phaseMs, final long connectionLifeMs,
        final boolean attached, final PrintWriter progress)
    {
        this.attached = attached;
        this.rate = rate;
        this.clients = clients;
        this.phaseMs = phaseMs;
        this.connectionLifeMs = connectionLifeMs;
        this.progress = progress;
    }

    /** What each phase saw. */
    record Phase(String name, long durationMs, Histogram latencies, long failed)
    {
    }

    record Result(List<Phase> phases, long joinMs, double secondNodeConnections, double firstNodeConnections,
        String firstFailure)
    {
        Phase steady()
        {
            return phases.get(0);
        }

        Phase step()
        {
            return phases.get(1);
        }
    }

    /** Run one step in a cluster of its own; a part may run several, one after the other. */
    Result run(final Path directory) throws Exception
    {
        // the clients of a step before stopped at DONE
        phase = WARMUP;
        try (JoinCluster cluster = JoinCluster.start(directory))
        {
            final int port = freePort();
            progress.println("scale: node 1 on port " + port + ", " + clients + " clients at " + rate + " requests/s");
            progress.flush();
            try (RoleProcess first = startNode(cluster, directory, 1, port))
            {
                preload(port);
                final Histogram[][] histograms = new Histogram[clients][PHASES.length];
                final long[][] failed = new long[clients][PHASES.length];
                final AtomicReference<String> firstFailure = new AtomicReference<>();
                final List<Thread> threads = new ArrayList<>();
                for (int c = 0; c < clients; c++)
                {
                    final int client = c;
                    for (int p = 0; p < PHASES.length; p++)
                    {
                        histograms[c][p] = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                    }
                    final Thread thread = new Thread(() -> load(port, histograms[client], failed[client], firstFailure),
                        "dkv-bench-scale-client-" + client);
                    thread.start();
                    threads.add(thread);
                }
                final long[] durations = new long[PHASES.length];
                Thread.sleep(phaseMs / 2);
                phase = 0;
                long start = System.nanoTime();
                Thread.sleep(phaseMs);
                phase = 1;
                durations[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                start = System.nanoTime();
                final RoleProcess second = startNode(cluster, directory, 2, port);
                final long joinMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                progress.println("scale: node 2 serving " + joinMs + " ms after its exec");
                progress.flush();
                try (second)
                {
                    Thread.sleep(phaseMs);
                    phase = 2;
                    durations[1] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    start = System.nanoTime();
                    Thread.sleep(phaseMs);
                    phase = DONE;
                    durations[2] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    for (final Thread thread : threads)
                    {
                        thread.join();
                    }
                    final double secondConnections = connectionsReceived(second);
                    final double firstConnections = connectionsReceived(first);
                    final List<Phase> phases = new ArrayList<>();
                    for (int p = 0; p < PHASES.length; p++)
                    {
                        final Histogram merged = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                        long failures = 0;
                        for (int c = 0; c < clients; c++)
                        {
                            merged.add(histograms[c][p]);
                            failures += failed[c][p];
                        }
                        phases.add(new Phase(PHASES[p], durations[p], merged, failures));
                    }
                    return new Result(phases, joinMs, secondConnections, firstConnections, firstFailure.get());
                }
            }
        }
    }

    private RoleProcess startNode(final JoinCluster cluster, final Path directory, final int ordinal, final int port)
    {
        final List<String> arguments = new ArrayList<>(List.of("compute-node", "--port", Integer.toString(port),
            "--reuse-port", "--metrics-port", "0"));
        arguments.addAll(attached ? List.of("--driver", cluster.driverName()) : List.of("--provider",
            JoinCluster.PROVIDER, "--meta", cluster.metaEndpoint(), "--cluster-secret-file",
            cluster.secretFile().toString()));
        return RoleProcess.start("compute node " + ordinal, "256m", Map.of(), arguments, COMPUTE_READY,
            directory.resolve("scale-compute-node-" + ordinal + ".log"));
    }

    private static void preload(final int port)
    {
        try (RespSocket socket = new RespSocket("127.0.0.1:" + port, TIMEOUT_MS))
        {
            for (int key = 0; key < KEYS; key++)
            {
                socket.call(bytes("SET"), key(key), bytes("value-" + key));
            }
        }
    }

    /** One client: requests at its share of the rate, each timed from when it was due, a new connection at times. */
    private void load(final int port, final Histogram[] histograms, final long[] failed,
        final AtomicReference<String> firstFailure)
    {
        final long intervalNs = TimeUnit.SECONDS.toNanos(1) * clients / rate;
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        RespSocket socket = null;
        long connectedAt = 0;
        long due = System.nanoTime();
        try
        {
            while (phase != DONE)
            {
                final long now = System.nanoTime();
                if (now < due)
                {
                    LockSupport.parkNanos(due - now);
                    continue;
                }
                final int current = phase;
                try
                {
                    if (socket == null || now - connectedAt > TimeUnit.MILLISECONDS.toNanos(connectionLifeMs))
                    {
                        if (socket != null)
                        {
                            socket.close();
                        }
                        socket = null;
                        socket = new RespSocket("127.0.0.1:" + port, TIMEOUT_MS);
                        connectedAt = System.nanoTime();
                    }
                    final int key = random.nextInt(KEYS);
                    if (random.nextInt(10) < 8)
                    {
                        socket.call(bytes("GET"), key(key));
                    }
                    else
                    {
                        socket.call(bytes("SET"), key(key), bytes("value-" + key));
                    }
                    if (current >= 0)
                    {
                        histograms[current].recordValue(
                            Math.min(System.nanoTime() - due, TimeUnit.SECONDS.toNanos(60)));
                    }
                }
                catch (final RuntimeException ex)
                {
                    if (current >= 0)
                    {
                        failed[current]++;
                        firstFailure.compareAndSet(null, PHASES[current] + ": " + ex.getMessage());
                    }
                    if (socket != null)
                    {
                        socket.close();
                    }
                    socket = null;
                }
                due += intervalNs;
            }
        }
        finally
        {
            if (socket != null)
            {
                socket.close();
            }
        }
    }

    private static double connectionsReceived(final RoleProcess node)
    {
        try
        {
            final Map<String, Double> samples = new MetricsScrape("127.0.0.1", TIMEOUT_MS)
                .scrape(Integer.parseInt(node.readyGroup(3)));
            return samples.getOrDefault("dkv_compute_connections_received_total", Double.NaN);
        }
        catch (final IOException ex)
        {
            return Double.NaN;
        }
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket())
        {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static byte[] key(final int key)
    {
        return bytes("dkv-bench-scale-" + key);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the step's p99 over the steady phase's. */
    static double stepRatio(final Result result)
    {
        return (double)result.step().latencies().getValueAtPercentile(99) /
            result.steady().latencies().getValueAtPercentile(99);
    }

    /**
     * @param results the steps run, each in a cluster of its own: one alone gives too noisy a ratio to judge a goal by.
     * @return the run whose ratio is the median's (the lower middle of an even count), whose phases the report shows.
     */
    static Result median(final List<Result> results)
    {
        final List<Result> byRatio = results.stream().sorted(java.util.Comparator.comparingDouble(
            ScaleStepPart::stepRatio)).toList();
        return byRatio.get((byRatio.size() - 1) / 2);
    }

    static ReportSection section(final List<Result> results)
    {
        final Result result = median(results);
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("phase", false),
            new TextTable.Column("seconds", true),
            new TextTable.Column("requests", true),
            new TextTable.Column("failed", true),
            new TextTable.Column("p50 us", true),
            new TextTable.Column("p99 us", true),
            new TextTable.Column("p99.9 us", true),
            new TextTable.Column("max us", true),
            new TextTable.Column("p99 / steady p99", true)));
        final double steadyP99 = result.steady().latencies().getValueAtPercentile(99);
        for (final Phase phase : result.phases())
        {
            final Histogram h = phase.latencies();
            table.addRow(phase.name(), String.format(Locale.ROOT, "%.1f", phase.durationMs() / 1000.0),
                String.format(Locale.ROOT, "%,d", h.getTotalCount()), Long.toString(phase.failed()),
                micros(h.getValueAtPercentile(50)), micros(h.getValueAtPercentile(99)),
                micros(h.getValueAtPercentile(99.9)), micros(h.getMaxValue()),
                ratio(h.getValueAtPercentile(99) / steadyP99));
        }
        final List<String> notes = new ArrayList<>();
        if (results.size() > 1)
        {
            notes.add(String.format(Locale.ROOT, "%d steps, each in a cluster of its own; step p99 / steady p99 of " +
                "each, in the order run: %s; the table is the median's", results.size(), String.join(", ",
                results.stream().map(run -> ratio(stepRatio(run))).toList())));
        }
        notes.add(String.format(Locale.ROOT, "node 2 served %,d ms after its exec; connections accepted by then: " +
            "node 1 %,.0f, node 2 %,.0f (the kernel's share for node 2 of those opened after it listened)",
            result.joinMs(), result.firstNodeConnections(), result.secondNodeConnections()));
        notes.add("latency: from when a request was due (open loop) to its reply, so a stall counts for the requests " +
            "behind it; a request's time includes opening its connection when it is the first on one");
        notes.add(result.firstFailure() == null ? "no request failed" : "first failure: " + result.firstFailure());
        return new ReportSection(TITLE, notes, table);
    }

    /** The ratio goal judged by the median step, the failures goal by every step's requests. */
    static List<String> goals(final List<Result> results)
    {
        final double ratio = stepRatio(median(results));
        final long failed = results.stream().flatMap(run -> run.phases().stream()).mapToLong(Phase::failed).sum();
        return List.of(
            String.format(Locale.ROOT, "scale-out step p99 <= %.1fx the steady p99%s: %s (%.2fx)", GOAL_P99_RATIO,
                results.size() > 1 ? ", median of " + results.size() + " steps" : "",
                ratio <= GOAL_P99_RATIO ? "MET" : "MISSED", ratio),
            String.format(Locale.ROOT, "no failed request through the step: %s (%d failed)",
                failed == 0 ? "MET" : "MISSED", failed));
    }

    private static String micros(final double nanos)
    {
        return String.format(Locale.ROOT, "%,.0f", nanos / 1000);
    }
}
