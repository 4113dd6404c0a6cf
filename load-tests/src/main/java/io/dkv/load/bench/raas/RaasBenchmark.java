package io.dkv.load.bench.raas;

import io.dkv.load.bench.HtmlOption;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.Provider;
import io.dkv.load.bench.ProvidersOption;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.RaasContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import static io.dkv.load.bench.OptionRange.require;

/**
 * {@code dkv bench raas}: RDMA as a Service against the raw verbs layer on the same provider, each
 * figure beside its raw baseline measured in the same run.
 */
@Command(
    name = "raas",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Measure RDMA as a Service against the raw verbs layer on the software providers, each figure " +
            "beside its raw baseline measured in the same run.",
        "join: this process, attached to a standalone driver (dkv driver, its own process), reaches memory nodes it " +
            "never talked to: metadata read from the MetaServer, logical connection, first 8 B READ; against " +
            "creating and connecting a fresh RC queue pair pair to the same node and its first READ.",
        "scale: 64 B READs from one thread over 1 to 10,000 logical connections sharing the driver's queue pairs, " +
            "against as many raw RC queue pairs; memory per connection and per queue pair.",
        "sharing: threads each reading over their own logical connection (lock-free multiplexing), against the same " +
            "threads sharing one raw queue pair under a lock.",
        "overhead: latency of a synchronous 8 B READ through the embedded driver and through a standalone one " +
            "against the raw verbs READ.",
        "thresholds: message round trips from 64 B to 64 KiB, SEND against WRITE_WITH_IMM and COPY against REGISTER; " +
            "the crossovers are what each provider's SEND and COPY threshold defaults should be.",
        "All traffic stays on 127.0.0.1 (tcp) or in local shared memory (shm)."
    })
public final class RaasBenchmark implements Callable<Integer>
{
    static final int READ_SIZE = 64;
    static final int OVERHEAD_SIZE = 8;
    static final int MAX_CONNECTIONS = 100_000;
    static final int MAX_JOIN_NODES = 100_000;
    /** Each memory node is an embedded driver of about 10 MB of heap. */
    static final int MAX_JOIN_BATCH = 200;
    static final int MAX_THREADS = 64;
    static final int MAX_WINDOW = 1024;
    /** Messages must fit the buffer a receiver advertises (1 MiB by default) with room to spare in its ring. */
    static final int MAX_MESSAGE_SIZE = 256 * 1024;
    static final int MAX_REGION_MIB = 16 * 1024;
    /** The reader posts four receives of the write size in one registered buffer. */
    static final int MAX_STREAM_WRITE = 64 * 1024 * 1024;
    static final long MAX_MILLIS = 600_000;
    /** Counts above this take {@code --scale-ops-large} READs: their raw baseline is slow. */
    static final int LARGE_COUNT = 1000;
    static final int LATENCY_BLOCKS = 10;
    /**
     * The drivers keep an RC queue pair this long without traffic, so that a run on the RC path stays
     * on it while other subjects are timed: with the default (2 s) a pause between blocks would move
     * the peer back to DC, and the run would measure both paths.
     */
    static final int RC_IDLE_MS = 600_000;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ProvidersOption providers;

    @Option(names = "--only", split = ",", paramLabel = "PART",
        defaultValue = "join,scale,sharing,overhead,thresholds,streams,isolation,lite",
        description = "Parts to run, comma-separated: ${COMPLETION-CANDIDATES} (default: all).")
    private List<Part> parts;

    @Option(names = "--join-nodes", defaultValue = "200", paramLabel = "N",
        description = "join: memory nodes reached for the first time, each way, timed (default: ${DEFAULT-VALUE}).")
    private int joinNodes;

    @Option(names = "--join-batch", defaultValue = "50", paramLabel = "N",
        description =
            "join: memory nodes running at once; each batch stops before the next starts (default: ${DEFAULT-VALUE}).")
    private int joinBatch;

    @Option(names = "--join-warmup", defaultValue = "500", paramLabel = "N",
        description =
            "join: memory nodes reached each way before timing starts, so that the driver's join path is compiled as " +
            "the raw side's is (default: ${DEFAULT-VALUE}).")
    private int joinWarmup;

    @Option(names = "--connections", split = ",", defaultValue = "1,100,1000,10000", paramLabel = "N",
        description =
            "scale: logical connections (and raw queue pairs) of each run, comma-separated (default: " +
            "${DEFAULT-VALUE}).")
    private List<Integer> connectionCounts;

    @Option(names = "--scale-ops", defaultValue = "100000", paramLabel = "READS",
        description = "scale: READs timed per count and side with up to " + LARGE_COUNT + " connections, in " +
            ScaleBenchmark.REPEATS + " rounds whose median is kept (default: ${DEFAULT-VALUE}).")
    private int scaleOps;

    @Option(names = "--scale-ops-large", defaultValue = "25000", paramLabel = "READS",
        description =
            "scale: READs timed per count and side with more than " + LARGE_COUNT + " connections, whose raw " +
            "baseline is slow (default: ${DEFAULT-VALUE}).")
    private int scaleOpsLarge;

    @Option(names = "--window", defaultValue = "16", paramLabel = "READS",
        description = "scale: READs in flight (default: ${DEFAULT-VALUE}).")
    private int window;

    @Option(names = "--threads", split = ",", defaultValue = "3,6", paramLabel = "T",
        description = "sharing: reading threads of each run, comma-separated (default: ${DEFAULT-VALUE}).")
    private List<Integer> threadCounts;

    @Option(names = "--sharing-millis", defaultValue = "1000", paramLabel = "MILLIS",
        description = "sharing: how long reads are counted per thread count and side, in " + SharingBenchmark.ROUNDS +
            " runs taken in turn with the other sides' (default: ${DEFAULT-VALUE}).")
    private long sharingMillis;

    @Option(names = "--latency-ops", defaultValue = "50000", paramLabel = "READS",
        description = "overhead: READs timed on each side (default: ${DEFAULT-VALUE}).")
    private int latencyOps;

    @Option(names = "--message-sizes", split = ",",
        defaultValue = "64,128,256,512,1024,2048,4096,8192,16384,32768,65536",
        paramLabel = "BYTES",
        description = "thresholds: message sizes, comma-separated (default: 64 B to 64 KiB by powers of two).")
    private List<Integer> messageSizes;

    @Option(names = "--message-millis", defaultValue = "200", paramLabel = "MILLIS",
        description = "thresholds: about how long the round trips timed per size and way take, their count judged " +
            "from the warm-up (default: ${DEFAULT-VALUE}).")
    private long messageMillis;

    @Option(names = "--stream-sizes", split = ",", defaultValue = "64,4096,1048576", paramLabel = "BYTES",
        description = "streams: bytes per write (and read), comma-separated (default: ${DEFAULT-VALUE}).")
    private List<Integer> streamSizes;

    @Option(names = "--stream-millis", defaultValue = "500", paramLabel = "MILLIS",
        description = "streams: how long the writer writes in each timed round of each side (default: " +
            "${DEFAULT-VALUE}).")
    private long streamMillis;

    @Option(names = "--isolation-reads", defaultValue = "20000", paramLabel = "READS",
        description = "isolation: the latency application's READs timed alone and in each shared run (default: " +
            "${DEFAULT-VALUE}).")
    private int isolationReads;

    @Option(names = "--lite-sizes", split = ",", defaultValue = "64,4096", paramLabel = "BYTES",
        description = "lite: RPC request and reply sizes, comma-separated (default: ${DEFAULT-VALUE}).")
    private List<Integer> liteSizes;

    @Option(names = "--lite-millis", defaultValue = "200", paramLabel = "MILLIS",
        description = "lite: about how long the RPCs and the message round trips timed per size take (default: " +
            "${DEFAULT-VALUE}).")
    private long liteMillis;

    @Option(names = "--warmup", defaultValue = "300", paramLabel = "MILLIS",
        description = "Milliseconds each subject runs, discarded, before it is timed (default: ${DEFAULT-VALUE}).")
    private long warmupMillis;

    @Option(names = "--paths", split = ",", defaultValue = "dc,rc", paramLabel = "PATH",
        description = "The drivers' queue pairs RaaS requests travel on, each measured in turn: dc (the shared DC " +
            "initiators) and rc (the RC queue pair the driver gives a hot peer, shared by all its connections) " +
            "(default: ${DEFAULT-VALUE}).")
    private List<RaasPath> paths;

    @Option(names = "--region-mib", defaultValue = "64", paramLabel = "MIB",
        description = "Size of the region READs go to, in MiB (default: ${DEFAULT-VALUE}).")
    private int regionMib;

    @Option(names = "--seed", defaultValue = "42",
        description =
            "Seed of the random offsets and message bytes, so that runs use the same ones (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Mixin
    private MarkdownOption markdown;

    @Mixin
    private HtmlOption html;

    public Integer call() throws IOException, InterruptedException
    {
        validate();
        final double loadAtStart = MachineInfo.loadAverage();
        final List<Provider> selectedProviders = providers.selected();
        final List<RaasPath> selectedPaths = List.copyOf(new LinkedHashSet<>(paths));
        final Set<Part> selectedParts = EnumSet.copyOf(parts);
        final long regionLength = (long)regionMib << 20;
        final PrintWriter progress = spec.commandLine().getErr();
        final PartSettings settings =
            new PartSettings(RaasBenchmark::driverSettings, warmupMillis, regionLength, seed, progress);
        final RaasResults results = new RaasResults(selectedParts);
        final InterleavedLatency latencyRunner =
            InterleavedLatency.ofIterations(warmupMillis, latencyOps, LATENCY_BLOCKS);
        final ThresholdBenchmark thresholds = new ThresholdBenchmark(settings, messageSizes,
            InterleavedLatency.ofMillis(messageWarmupMillis(), messageMillis, LATENCY_BLOCKS));

        for (final Provider provider : selectedProviders)
        {
            if (selectedParts.contains(Part.JOIN))
            {
                results.join.add(new JoinBenchmark(joinNodes, joinBatch, joinWarmup, progress).run(provider));
            }
            if (selectedParts.contains(Part.SCALE))
            {
                final ScaleBenchmark scale = new ScaleBenchmark(settings, distinct(connectionCounts),
                    count -> count > LARGE_COUNT ? scaleOpsLarge : scaleOps, READ_SIZE, window);
                results.scale.addAll(scale.run(provider, selectedPaths));
                results.driverHeapBytes.put(provider, scale.driverHeapBytes());
            }
            if (selectedParts.contains(Part.SHARING))
            {
                results.sharing.addAll(new SharingBenchmark(settings, distinct(threadCounts), READ_SIZE, sharingMillis)
                    .run(provider, selectedPaths));
            }
            if (selectedParts.contains(Part.OVERHEAD))
            {
                results.overhead.addAll(
                    new OverheadBenchmark(settings, driverProperties(), OVERHEAD_SIZE, latencyRunner)
                    .run(provider, selectedPaths));
            }
            if (selectedParts.contains(Part.STREAMS))
            {
                results.streams.addAll(
                    new StreamsBenchmark(settings, distinct(streamSizes), streamMillis).run(provider));
            }
            if (selectedParts.contains(Part.ISOLATION))
            {
                results.isolation.add(new IsolationBenchmark(settings, isolationReads).run(provider));
            }
            if (selectedParts.contains(Part.LITE))
            {
                results.lite.addAll(new LiteBenchmark(settings, distinct(liteSizes),
                    InterleavedLatency.ofMillis(messageWarmupMillis(), liteMillis, LATENCY_BLOCKS)).run(provider));
            }
            if (selectedParts.contains(Part.THRESHOLDS))
            {
                for (final RaasPath path : selectedPaths)
                {
                    results.thresholds.addAll(thresholds.run(provider, path));
                }
            }
        }

        final SectionedReport report = RaasReport.of(MachineInfo.current(),
            method(selectedParts, regionLength, loadAtStart, MachineInfo.loadAverage()), results, selectedProviders,
            selectedPaths, thresholds.maxSendPayload());
        markdown.publish(report, spec.commandLine().getOut());
        html.publish(report, () -> RaasCharts.of(results));
        return 0;
    }

    /**
     * @return the warm-up of each size and way: shorter than the others, as the code has been
     * compiled by the warm-up that comes before the first size.
     */
    private long messageWarmupMillis()
    {
        return warmupMillis / 3;
    }

    private static RaasContext driverSettings(final RaasContext context)
    {
        return context.rcIdleMs(RC_IDLE_MS);
    }

    /** @return {@link #driverSettings} as system properties, for the standalone drivers' processes. */
    private static Map<String, String> driverProperties()
    {
        return Map.of(RaasConfiguration.RC_IDLE_MS_PROP_NAME, Integer.toString(RC_IDLE_MS));
    }

    private static List<Integer> distinct(final List<Integer> values)
    {
        return List.copyOf(new LinkedHashSet<>(values));
    }

    private void validate()
    {
        require(spec, "--join-nodes", joinNodes, 1, MAX_JOIN_NODES);
        require(spec, "--join-batch", joinBatch, 1, MAX_JOIN_BATCH);
        require(spec, "--join-warmup", joinWarmup, 0, MAX_JOIN_NODES);
        require(spec, "--scale-ops", scaleOps, 1, Integer.MAX_VALUE);
        require(spec, "--scale-ops-large", scaleOpsLarge, 1, Integer.MAX_VALUE);
        require(spec, "--window", window, 1, MAX_WINDOW);
        require(spec, "--sharing-millis", sharingMillis, 1, MAX_MILLIS);
        require(spec, "--latency-ops", latencyOps, 1, Integer.MAX_VALUE);
        require(spec, "--message-millis", messageMillis, 1, MAX_MILLIS);
        require(spec, "--warmup", warmupMillis, 0, MAX_MILLIS);
        require(spec, "--region-mib", regionMib, 1, MAX_REGION_MIB);
        html.validate(spec);
        for (final int count : connectionCounts)
        {
            require(spec, "--connections", count, 1, MAX_CONNECTIONS);
        }
        for (final int threads : threadCounts)
        {
            require(spec, "--threads", threads, 1, MAX_THREADS);
        }
        for (final int size : messageSizes)
        {
            require(spec, "--message-sizes", size, 1, MAX_MESSAGE_SIZE);
        }
        for (final int size : streamSizes)
        {
            require(spec, "--stream-sizes", size, 1, MAX_STREAM_WRITE);
        }
        require(spec, "--stream-millis", streamMillis, 1, MAX_MILLIS);
        require(spec, "--isolation-reads", isolationReads, 100, Integer.MAX_VALUE);
        require(spec, "--lite-millis", liteMillis, 1, MAX_MILLIS);
        for (final int size : liteSizes)
        {
            require(spec, "--lite-sizes", size, 1, MAX_MESSAGE_SIZE);
        }
    }

    private List<String> method(final Set<Part> selected, final long regionLength, final double loadAtStart,
        final double loadAtEnd)
    {
        final List<String> lines = new ArrayList<>();
        lines.add("drivers: a client and a server driver embedded in this process per part, provider and path " +
            "(overhead adds a standalone driver per path, join one with default settings, each in a JVM of its own); " +
            "default settings except rcIdleMs " + RaasConfiguration.RC_IDLE_MS_DEFAULT + " -> " + RC_IDLE_MS +
            " (so that a pause between timed blocks does not move an RC peer back to DC) and the RC promotion " +
            "threshold, which fixes the path");
        lines.add("path: " + RaasPath.describe() + "; each run checks at its end that its requests travel on its path");
        lines.add("raw baseline: two devices of the same provider, " + RawVerbsPair.describeQueuePair() +
            ", one CQ on the initiator");
        lines.add("waiting: every measured loop, RaaS and raw, waits between empty polls the same way: " +
            Waiting.describe() +
            "; the drivers' agents back off (BackoffIdleStrategy)");
        lines.add(String.format(Locale.ROOT,
            "targets: random 8-byte-aligned offsets in a %d MiB region, drawn before timing (seed %d), the same for " +
            "both sides", regionLength >> 20, seed));
        if (selected.contains(Part.JOIN))
        {
            lines.add(String.format(Locale.ROOT,
                "join: per provider, a MetaServer in this process, a standalone driver (dkv driver with default " +
                "settings, in a JVM of its own) this process attaches to, and %,d memory nodes (embedded drivers " +
                "without agent threads, ids never used before) started %d at a time, each registering itself and a " +
                "%,d B region; RaaS: lookup(region), open(node), read 8 B, timed together; raw: an RC queue pair " +
                "created on a device of this process and one on the node's device, both taken to RTS (the numbers " +
                "handed over by a method call, where hosts would need a network round trip), one 8 B READ posted and " +
                "polled; each node reached once each way, which first alternating; warm-up, not timed: on one node " +
                "%,d lookups, opens and READs answered from the driver's cache, %,d READs and %,d raw queue pair " +
                "pairs made, connected and used, then %d new nodes reached each way; every READ checked to bring the " +
                "node's own id",
                joinNodes, joinBatch, JoinBenchmark.REGION_BYTES, JoinBenchmark.WARMUP_LOOKUPS,
                JoinBenchmark.WARMUP_READS,
                JoinBenchmark.WARMUP_RAW_JOINS, joinWarmup));
        }
        if (selected.contains(Part.SCALE))
        {
            lines.add(String.format(Locale.ROOT,
                "scale: one thread, %d READs of %d B in flight, request i to connection (or queue pair) i mod N, " +
                "each completion replaced at once; RaaS: readAsync and flush, completions counted by the handler; " +
                "raw: one postSend per request; %,d READs per count and side up to %,d connections, %,d above, timed " +
                "in %d rounds of which the median throughput is kept; every count of every side (RaaS per path, raw) " +
                "is set up first, warmed up for %d ms, then timed in turn in each round",
                window, READ_SIZE, scaleOps, LARGE_COUNT, scaleOpsLarge, ScaleBenchmark.REPEATS, warmupMillis));
        }
        if (selected.contains(Part.SHARING))
        {
            lines.add(String.format(Locale.ROOT,
                "sharing: each thread issues synchronous %d B READs; RaaS: Connection.read on its own logical " +
                "connection; raw: one RC queue pair and its CQ, each thread holding a ReentrantLock from postSend to " +
                "its completion; per thread count, every side (RaaS per path, raw) runs in turn %d times for %,d ms " +
                "in all, after %d ms of warm-up the first time", READ_SIZE, SharingBenchmark.ROUNDS, sharingMillis,
                warmupMillis));
        }
        if (selected.contains(Part.OVERHEAD))
        {
            lines.add(String.format(Locale.ROOT, "overhead: one %d B READ in flight, System.nanoTime around each: " +
                "Connection.read against postSend and polling the CQ of a raw RC queue pair; embedded: the driver in " +
                "this process; standalone: this process attached to dkv driver in a JVM of its own, reading a memory " +
                "node of this process through it (the MetaServer too is in this process), into a buffer from " +
                "allocateBuffer; %,d each after %d ms of warm-up, timed in %d alternating blocks", OVERHEAD_SIZE,
                latencyOps, warmupMillis,
                LATENCY_BLOCKS));
        }
        if (selected.contains(Part.THRESHOLDS))
        {
            lines.add(String.format(Locale.ROOT,
                "thresholds: round trip of one message in flight (send, the server's echo thread receives it and " +
                "sends it back the same way, recv); every way runs %d ms at the smallest and at the largest size " +
                "first, then per size and way: %d ms of warm-up and about %,d ms of round trips, in %d alternating " +
                "blocks; SEND = USE_SEND, WRITE and COPY = USE_WRITE|COPY, REGISTER = USE_WRITE|REGISTER; native " +
                "buffers; the drivers' copy threshold is raised to the largest size so that COPY stays a copy",
                warmupMillis, messageWarmupMillis(), messageMillis, LATENCY_BLOCKS));
        }
        if (selected.contains(Part.STREAMS))
        {
            lines.add(StreamsBenchmark.describe(streamMillis, warmupMillis));
        }
        if (selected.contains(Part.ISOLATION))
        {
            lines.add(IsolationBenchmark.describe(isolationReads, warmupMillis));
        }
        if (selected.contains(Part.LITE))
        {
            lines.add(LiteBenchmark.describe(distinct(liteSizes), messageWarmupMillis()));
        }
        lines.add(String.format(Locale.ROOT,
            "system load average (1 min): %.2f before the run, %.2f at its end, which counts this benchmark's own " +
            "threads (waiting ones yield, so they count as runnable); other work running meanwhile makes the figures " +
            "noisy", loadAtStart, loadAtEnd));
        return lines;
    }
}
