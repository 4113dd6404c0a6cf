package io.dkv.load.bench.compute;

import io.dkv.compute.ComputeNodeCommand;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.process.ReadyLines;
import io.dkv.load.resp.RespSocket;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.dkv.load.bench.Formats.ratio;

/**
 * Exec of a new {@code ./dkv compute-node} process to its first served GET, joining a running cluster, beside two
 * baselines exec'd in the same rounds: a trivial JVM with the same flags ({@code java -version}, to its exit) and
 * redis-server (to its first PING). With an AOT cache as well where the class path allows one.
 */
final class JoinPart
{
    /** How long a new server may take to answer its first request. */
    private static final int PROBE_TIMEOUT_MS = 30_000;
    static final String TITLE = "join: exec of a new process to its first served request";
    static final String PHASES = "join: a compute node's start, phase by phase";
    static final String KEY = "dkv-bench-compute-join";
    static final double GOAL_MS = 150;
    private static final Pattern COMPUTE_PHASES = Pattern.compile(
        "dkv compute node startup nanoTime: called=(\\d+) raas=(\\d+) connected=(\\d+) published=(\\d+) " +
            "warmed=(\\d+) bound=(\\d+) serving=(\\d+)");
    private static final Pattern REDIS_READY = Pattern.compile("Ready to accept connections");
    private static final long AOT_EXIT_TIMEOUT_MS = 300_000;
    private static final long TRIVIAL_TIMEOUT_MS = 30_000;
    /** Phases of a compute node's start, in order; each sample's phases sum to its total. */
    static final List<String> PHASE_NAMES = List.of(
        "exec to the command's call (JVM start, class loading, dkv main, arguments)",
        "MetaServer directory and RaaS attach, registered as compute",
        "event loops made, client connect (memory nodes' metadata read)",
        "port 0 bound, cluster view published, command table made, compute mesh started",
        "warm-up (dkv.compute.warmup.rounds on each event loop)",
        "RESP port bound, serving",
        "node's ready line to the bench (pipe)",
        "first GET on a new connection (accept, first one-sided READs)");

    /** One kind of start: the exec-to-served time of each, and for compute nodes each phase of each. */
    record Series(String name, String timed, long[] totalsNs, long[][] phasesNs)
    {
    }

    record Result(List<Series> series, String aotNote)
    {
        Series find(final String name)
        {
            return series.stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
        }
    }

    static final String JVM = "java -version";
    static final String REDIS = "redis-server";
    static final String COMPUTE = "compute node";
    static final String COMPUTE_AOT = "compute node, AOT cache";
    static final String COMPUTE_ATTACHED = "compute node attached to the driver";
    static final String COMPUTE_ATTACHED_AOT = "compute node attached to the driver, AOT cache";

    private final Path redisBinary;
    private final int starts;
    private final boolean aot;
    private final PrintWriter progress;

    JoinPart(final Path redisBinary, final int starts, final boolean aot, final PrintWriter progress)
    {
        this.redisBinary = redisBinary;
        this.starts = starts;
        this.aot = aot;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        final Path directory = Files.createTempDirectory("dkv-bench-compute-");
        progress.println("join: starting a MetaServer, a memory node and a driver in " + directory + "...");
        progress.flush();
        try (JoinCluster cluster = JoinCluster.start(directory))
        {
            final List<String> embedded = List.of("compute-node", "--port", "0", "--provider", JoinCluster.PROVIDER,
                "--meta", cluster.metaEndpoint(), "--cluster-secret-file", cluster.secretFile().toString());
            final List<String> attached = List.of("compute-node", "--port", "0", "--driver", cluster.driverName());
            final List<String> plain = List.of("-D" + ComputeNodeCommand.PRINT_STARTUP_PROP_NAME + "=true");
            // untimed first round: the files each start reads are in the page cache for all of them alike
            trivialJvm();
            redis(directory);
            final String set = computeRequest(plain, embedded, "SET", KEY, "joined");
            if (!"+OK".equals(set))
            {
                throw new IllegalStateException("SET " + KEY + " through a new compute node answered " + set);
            }
            computeGet(plain, attached);
            final String aotNote;
            List<String> cached = null;
            List<String> cachedAttached = null;
            final List<String> nonJars = JvmCommand.nonJarClassPath();
            if (!aot)
            {
                aotNote = "not tried (--no-aot)";
            }
            else if (!nonJars.isEmpty())
            {
                aotNote = "not tried: an AOT cache takes a class path of JAR files only, this one has " +
                    nonJars.get(0);
            }
            else
            {
                final long trainingStart = System.nanoTime();
                final Path cache = train(plain, embedded, directory.resolve("compute-node.aot"));
                final Path cacheAttached = train(plain, attached, directory.resolve("compute-node-attached.aot"));
                cached = withCache(plain, cache);
                cachedAttached = withCache(plain, cacheAttached);
                aotNote = cache == null || cacheAttached == null ? "a training run wrote no cache (above)" :
                    String.format(Locale.ROOT, "JDK AOT cache (JEP 483/514/515: classes loaded and linked, method " +
                    "profiles) from one training start that served a GET, -XX:AOTCacheOutput, %,d MiB (attached: " +
                    "one of its own, %,d MiB), both trained in %.1f s", Files.size(cache) >> 20,
                    Files.size(cacheAttached) >> 20, (System.nanoTime() - trainingStart) / 1e9);
            }
            final long[] jvm = new long[starts];
            final long[] redis = new long[starts];
            final long[][][] phases = new long[4][starts][];
            final List<List<String>> options = java.util.Arrays.asList(plain, cached, plain, cachedAttached);
            final List<List<String>> arguments = List.of(embedded, embedded, attached, attached);
            for (int i = 0; i < starts; i++)
            {
                progress.printf("join: round %d of %d%n", i + 1, starts);
                progress.flush();
                // one of each per round: load that comes and goes falls on all of them alike
                jvm[i] = trivialJvm();
                redis[i] = redis(directory);
                for (int kind = 0; kind < phases.length; kind++)
                {
                    if (options.get(kind) != null)
                    {
                        phases[kind][i] = computeGet(options.get(kind), arguments.get(kind));
                    }
                }
            }
            final List<Series> series = new ArrayList<>(List.of(
                new Series(JVM, "exec to exit, same flags", jvm, null),
                new Series(REDIS, "exec to first PING answered", redis, null)));
            final List<String> names = List.of(COMPUTE, COMPUTE_AOT, COMPUTE_ATTACHED, COMPUTE_ATTACHED_AOT);
            for (final int kind : new int[]{0, 2, 1, 3})
            {
                if (options.get(kind) != null)
                {
                    final long[] totals = new long[starts];
                    for (int i = 0; i < starts; i++)
                    {
                        totals[i] = sum(phases[kind][i]);
                    }
                    series.add(new Series(names.get(kind), "exec to first GET answered", totals, phases[kind]));
                }
            }
            return new Result(series, aotNote);
        }
        finally
        {
            delete(directory);
        }
    }

    /**
     * Train an AOT cache with one start that serves a GET and stops (the JVM writes it at exit).
     *
     * @return the cache, or null when the run wrote none (what it printed is shown).
     */
    private Path train(final List<String> plain, final List<String> arguments, final Path cache)
        throws IOException, InterruptedException
    {
        progress.println("join: training an AOT cache for " + String.join(" ", arguments) + " (one start, a GET, a " +
            "stop; the JVM writes it at exit)...");
        progress.flush();
        final List<String> training = new ArrayList<>(plain);
        training.add("-XX:AOTCacheOutput=" + cache);
        final String trainingOutput;
        final int trainingExit;
        try (TimedStart start = TimedStart.start(JvmCommand.dkv(training, arguments), ReadyLines.COMPUTE_NODE))
        {
            probe(start, "GET", KEY);
            trainingExit = start.closeWithin(AOT_EXIT_TIMEOUT_MS);
            trainingOutput = start.output();
        }
        if (Files.isRegularFile(cache))
        {
            return cache;
        }
        // the JVM lists each class it leaves out of a cache: what is left says why none was written
        progress.println("join: the training run (exit status " + trainingExit + ") wrote no cache at " + cache +
            "; it wrote:\n" + trainingOutput.lines().filter(line -> !line.contains("Skipping"))
            .collect(Collectors.joining("\n")));
        return null;
    }

    private static List<String> withCache(final List<String> plain, final Path cache)
    {
        if (cache == null)
        {
            return null;
        }
        final List<String> cached = new ArrayList<>(plain);
        cached.add("-XX:AOTCache=" + cache);
        return cached;
    }

    private static long trivialJvm() throws IOException, InterruptedException
    {
        final List<String> command = JvmCommand.java();
        command.add("-version");
        final long execNs = System.nanoTime();
        final Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(TRIVIAL_TIMEOUT_MS, TimeUnit.MILLISECONDS) || process.exitValue() != 0)
        {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not exit with 0 within " +
                TRIVIAL_TIMEOUT_MS +
                " ms");
        }
        return System.nanoTime() - execNs;
    }

    private long redis(final Path directory) throws IOException
    {
        final int port = freePort();
        try (TimedStart start = TimedStart.start(List.of(redisBinary.toString(), "--bind", RedisServer.HOST,
            "--port", Integer.toString(port), "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--dir", directory.toString(), "--logfile", ""), REDIS_READY))
        {
            final String reply = RespSocket.callOnce(RedisServer.HOST, port, PROBE_TIMEOUT_MS, "PING");
            final long answeredNs = System.nanoTime();
            if (!"+PONG".equals(reply))
            {
                throw new IllegalStateException("redis-server on port " + port + " answered PING with " + reply);
            }
            return answeredNs - start.execNs();
        }
    }

    /** @return the phases of one compute node's start to its first GET, which must find the key. */
    private static long[] computeGet(final List<String> options, final List<String> arguments) throws IOException
    {
        try (TimedStart start = TimedStart.start(JvmCommand.dkv(options, arguments), ReadyLines.COMPUTE_NODE))
        {
            final String reply = probe(start, "GET", KEY);
            final long answeredNs = System.nanoTime();
            if (!reply.startsWith("$") || reply.equals("$-1"))
            {
                throw new IllegalStateException("GET " + KEY + " on a new compute node answered " + reply +
                    "; it wrote:\n" + start.output());
            }
            final Matcher phases = COMPUTE_PHASES.matcher(start.output());
            if (!phases.find())
            {
                throw new IllegalStateException("the compute node printed no startup phases (" +
                    ComputeNodeCommand.PRINT_STARTUP_PROP_NAME + "); it wrote:\n" + start.output());
            }
            // exec, then the end of each phase the node printed (called, raas, connected, published, warmed, bound,
            // serving), then the ready line read, then the answer: one more than the phases, the bound-to-serving
            // span (the ready line's own making) counted in the port's phase
            final long[] ends = new long[PHASE_NAMES.size() + 1];
            ends[0] = start.execNs();
            for (int g = 1; g <= 5; g++)
            {
                ends[g] = Long.parseLong(phases.group(g));
            }
            ends[6] = Long.parseLong(phases.group(7));
            ends[7] = start.readyNs();
            ends[8] = answeredNs;
            final long[] spans = new long[PHASE_NAMES.size()];
            for (int p = 0; p < spans.length; p++)
            {
                spans[p] = ends[p + 1] - ends[p];
            }
            return spans;
        }
    }

    private static String computeRequest(final List<String> options, final List<String> arguments,
        final String... request)
        throws IOException
    {
        try (TimedStart start = TimedStart.start(JvmCommand.dkv(options, arguments), ReadyLines.COMPUTE_NODE))
        {
            return probe(start, request);
        }
    }

    /** @return the first line of the reply to the first request a started compute node serves. */
    private static String probe(final TimedStart start, final String... request)
    {
        return RespSocket.callOnce(RedisServer.HOST, Integer.parseInt(start.ready().group(3)), PROBE_TIMEOUT_MS,
            request);
    }

    private static long sum(final long[] values)
    {
        long sum = 0;
        for (final long value : values)
        {
            sum += value;
        }
        return sum;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(RedisServer.HOST)))
        {
            return socket.getLocalPort();
        }
    }

    private static void delete(final Path directory) throws IOException
    {
        try (var paths = Files.walk(directory))
        {
            for (final Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(path);
            }
        }
    }

    static List<ReportSection> sections(final Result result)
    {
        final Series jvm = result.find(JVM);
        final Series redis = result.find(REDIS);
        final TextTable starts = new TextTable(List.of(
            new TextTable.Column("process", false),
            new TextTable.Column("timed", false),
            new TextTable.Column("starts", true),
            new TextTable.Column("median ms", true),
            new TextTable.Column("p99 ms", true),
            new TextTable.Column("fastest ms", true),
            new TextTable.Column("median / java -version", true),
            new TextTable.Column("median / redis-server", true)));
        for (final Series series : result.series())
        {
            final long median = Percentiles.of(series.totalsNs(), 50);
            starts.addRow(series.name(), series.timed(), Integer.toString(series.totalsNs().length), millis(median),
                millis(Percentiles.of(series.totalsNs(), 99)),
                millis(java.util.Arrays.stream(series.totalsNs()).min().orElseThrow()),
                ratio((double)median / Percentiles.of(jvm.totalsNs(), 50)),
                ratio((double)median / Percentiles.of(redis.totalsNs(), 50)));
        }
        final List<Series> compute = result.series().stream().filter(s -> s.phasesNs() != null).toList();
        final List<TextTable.Column> columns = new ArrayList<>(List.of(new TextTable.Column("phase", false)));
        for (final Series series : compute)
        {
            final String suffix = switch (series.name())
            {
                case COMPUTE -> "";
                case COMPUTE_AOT -> " (AOT)";
                case COMPUTE_ATTACHED -> " (attached)";
                default -> " (attached, AOT)";
            };
            columns.add(new TextTable.Column("median ms" + suffix, true));
            columns.add(new TextTable.Column("p99 ms" + suffix, true));
        }
        final TextTable phases = new TextTable(columns);
        for (int p = 0; p < PHASE_NAMES.size(); p++)
        {
            final List<String> row = new ArrayList<>(List.of(PHASE_NAMES.get(p)));
            for (final Series series : compute)
            {
                final long[] samples = new long[series.phasesNs().length];
                for (int i = 0; i < samples.length; i++)
                {
                    samples[i] = series.phasesNs()[i][p];
                }
                row.add(millis(Percentiles.of(samples, 50)));
                row.add(millis(Percentiles.of(samples, 99)));
            }
            phases.addRow(row.toArray(String[]::new));
        }
        return List.of(
            new ReportSection(TITLE, List.of(
                "ratios: the median over the baseline's median, measured in the same rounds; lower is better",
                "p99 is nearest-rank: of 20 starts or fewer, the slowest"), starts),
            new ReportSection(PHASES, List.of(
                "from System.nanoTime read by the bench at exec and by the node (-D" +
                    ComputeNodeCommand.PRINT_STARTUP_PROP_NAME + "=true) at the end of each phase: one monotonic clock",
                "each start's phases sum to its total; medians of phases need not sum to the median total",
                "AOT cache: " + result.aotNote()), phases));
    }

    static List<String> goals(final Result result)
    {
        final List<String> goals = new ArrayList<>();
        for (final Series series : result.series())
        {
            if (series.phasesNs() == null)
            {
                continue;
            }
            final double median = Percentiles.of(series.totalsNs(), 50) / 1e6;
            final String how = switch (series.name())
            {
                case COMPUTE -> "./dkv compute-node's first start, or with DKV_AOT=off";
                case COMPUTE_AOT -> "./dkv compute-node once its first start trained one";
                case COMPUTE_ATTACHED -> "./dkv compute-node --driver NAME, a node of its own behind the host's " +
                    "driver, first start";
                default -> "./dkv compute-node --driver NAME once its first start trained one";
            };
            goals.add(String.format(Locale.ROOT, "%s (%s): exec to first served GET, median <= %.0f ms: %s " +
                "(median %.1f ms, p99 %.1f ms)", series.name(), how, GOAL_MS, median <= GOAL_MS ? "MET" : "MISSED",
                median, Percentiles.of(series.totalsNs(), 99) / 1e6));
        }
        return goals;
    }

    private static String millis(final long nanos)
    {
        return String.format(Locale.ROOT, "%,.1f", nanos / 1e6);
    }
}
