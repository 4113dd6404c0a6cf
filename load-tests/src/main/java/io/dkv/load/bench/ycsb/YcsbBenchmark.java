package io.dkv.load.bench.ycsb;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientConfiguration;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.load.bench.HtmlOption;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.ycsb.DkvYcsbClient;
import io.dkv.load.ycsb.HashKeyedDb;
import io.dkv.load.ycsb.RecordCodec;
import io.dkv.load.ycsb.RedisYcsbClient;
import io.dkv.memory.MemoryNodeContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import site.ycsb.DB;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import static io.dkv.load.bench.OptionRange.require;

/**
 * {@code dkv bench ycsb}: YCSB's core workloads on a dkv store in this process and on Redis,
 * alternating, each figure beside Redis's and the GET beside its memory floor.
 */
@Command(
    name = "ycsb",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Run YCSB's core workloads (site.ycsb CoreWorkload) on a dkv store started in this process (a memory node " +
            "and a client, each with an embedded driver on shm) and on Redis (Debian's redis-server, started on " +
            "127.0.0.1), the same workload on both, alternating; report throughput, per client thread too, and " +
            "p50/p99 latency as ratios dkv / Redis, and a dkv GET beside the floor of its three memory accesses " +
            "measured in the same run.",
        "Workloads: a (50%% reads, 50%% updates), b (95%% reads, 5%% updates), c (reads only), d (95%% reads of the " +
            "latest, 5%% inserts), f (50%% reads, 50%% read-modify-writes); e (scans) has no counterpart in a hash " +
            "index.",
        "Replication: --replicas 1,2 runs dkv once per count of copies of each key, each on a store of its own with " +
            "as many memory nodes as the largest count, and reports each beside the fewest copies (the baseline, " +
            "which alone runs beside Redis)."
    })
public final class YcsbBenchmark implements Callable<Integer>
{
    /** Blocks of an index leaf an insert writes, at most on average: an intent of two leaves, the leaf, a split. */
    private static final int INDEX_BLOCKS_PER_INSERT = 4;
    static final long MAX_RECORDS = 10_000_000;
    static final int MAX_THREADS = 64;
    static final int MAX_FIELDS = 1000;
    /** A YCSB key as CoreWorkload builds it: "user" and a hashed 64-bit number of up to 19 digits. */
    static final String LONGEST_KEY = "user" + Long.MAX_VALUE;

    @Spec
    private CommandSpec spec;

    @Option(names = "--workload", split = ",", defaultValue = "c", paramLabel = "W",
        description =
            "Workloads to run, comma-separated or repeated: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private List<YcsbWorkload> workloads;

    @Option(names = "--records", defaultValue = "100000", paramLabel = "N",
        description = "Records loaded into each store before the workloads (default: ${DEFAULT-VALUE}).")
    private long records;

    @Option(names = "--operations", defaultValue = "300000", paramLabel = "N",
        description = "Operations of each timed run (one workload, thread count and store), split evenly over its " +
            "threads (default: ${DEFAULT-VALUE}).")
    private long operations;

    @Option(names = "--threads", split = ",", defaultValue = "1,2,4", paramLabel = "T",
        description = "Client threads of each run, comma-separated (default: ${DEFAULT-VALUE}).")
    private List<Integer> threadCounts;

    @Option(names = "--field-count", defaultValue = "10", paramLabel = "N",
        description = "Fields per record, as YCSB's fieldcount (default: ${DEFAULT-VALUE}).")
    private int fieldCount;

    @Option(names = "--field-length", defaultValue = "100", paramLabel = "BYTES",
        description = "Bytes per field, as YCSB's fieldlength (default: ${DEFAULT-VALUE}).")
    private int fieldLength;

    @Option(names = "--lanes", paramLabel = "N",
        description =
            "Embedded drivers (lanes) dkv's client spreads its threads over, a thread keeping to one; threads of a " +
            "lane share its queue pairs and completion queue, and take turns posting and polling for each other " +
            "(default: one per client thread of the largest run, as Redis has a connection per client thread).")
    private Integer lanes;

    @Option(names = "--warmup", defaultValue = "100000", paramLabel = "N",
        description = "Operations of each workload each store runs untimed, with the most threads, before the first " +
            "timed run (default: ${DEFAULT-VALUE}).")
    private long warmupOperations;

    @Option(names = "--floor-reads", defaultValue = "50000", paramLabel = "N",
        description =
            "Triples of READs timed for the GET's memory floor, after as many untimed (default: ${DEFAULT-VALUE}).")
    private int floorReads;

    @Option(names = "--redis", defaultValue = "auto", paramLabel = "MODE",
        description =
            "auto: start redis-server (Debian's; on 127.0.0.1, a free port, no persistence, stopped at the end and " +
            "on Ctrl-C) and run every workload on it too, or run dkv alone if it is not installed; off: dkv alone " +
            "(default: ${DEFAULT-VALUE}).")
    private AutoOff redisMode;

    @Option(names = "--keep-awake", defaultValue = "off", paramLabel = "MODE",
        description = "auto: a busy loop per core at idle priority (chrt --idle) throughout, so that no core halts " +
            "between requests, as a virtual machine's halt-polling does (where it is off, waking a halted core costs " +
            "tens of microseconds, which Redis's sleeping client and server pay on nearly every request and dkv's " +
            "spinning clients never do); the loops run only when nothing else wants a core, but a dkv thread that " +
            "yields while it waits may lose its core to one for a scheduler slice; off: the machine as it is " +
            "(default: ${DEFAULT-VALUE}).")
    private AutoOff keepAwake;

    @Mixin
    private ReplicasOption replicasOption;

    @Mixin
    private MarkdownOption markdown;

    @Mixin
    private HtmlOption html;

    public Integer call() throws IOException, InterruptedException
    {
        validate();
        final List<Integer> replicas = replicasOption.selected(spec);
        // every count runs on as many memory nodes as the largest needs, so that only the copies differ
        final int memoryNodes = replicas.getLast();
        final double loadAtStart = MachineInfo.loadAverage();
        final List<YcsbWorkload> selected = List.copyOf(new LinkedHashSet<>(workloads));
        final List<Integer> threads = List.copyOf(new LinkedHashSet<>(threadCounts));
        final int maxThreads = threads.stream().mapToInt(Integer::intValue).max().orElseThrow();
        final PrintWriter err = spec.commandLine().getErr();
        final Optional<Path> redisBinary = redisMode == AutoOff.AUTO ? RedisServer.find() : Optional.empty();
        if (redisMode == AutoOff.AUTO && redisBinary.isEmpty())
        {
            err.println("dkv bench ycsb: " + RedisServer.BINARY +
                " is not installed, so dkv runs alone; for the side-by-side run install it (" +
                RedisServer.INSTALL_HINT + ")");
            err.flush();
        }
        final int valueBytes = recordBytes();
        final int blockBytes =
            KvBlockLayout.blockLength(HashKeyedDb.key(YcsbWorkload.TABLE, LONGEST_KEY).length, valueBytes);
        // an insert is a transaction with the table's ordered keyspace: the record's intent and its resolution, and
        // the index leaf's (its new and prior bytes, then the leaf again), and now and then a split
        final long insertBytes = 2L * blockBytes + INDEX_BLOCKS_PER_INSERT * KvBlockLayout.blockLength(
            ReservedKeys.SEGMENT_KEY_LENGTH, 4 * KvClientConfiguration.COLLECTION_SEGMENT_BYTES_DEFAULT);
        final long inserted = records + expectedInserts(selected, threads.size());
        final MemoryNodeContext memoryNode = InProcessStore.sizedFor(
            inserted,
            (records + expectedWrites(selected, threads.size())) * blockBytes + inserted * insertBytes,
            maxThreads,
            memoryNodes * replicas.size());

        final Optional<Path> chrt = keepAwake == AutoOff.AUTO ? Executables.find(AwakeCores.BINARY) : Optional.empty();
        if (keepAwake == AutoOff.AUTO && chrt.isEmpty())
        {
            err.println("dkv bench ycsb: " + AwakeCores.BINARY +
                " is not installed, so idle cores may halt between requests (" + AwakeCores.INSTALL_HINT + ")");
            err.flush();
        }
        final int cores = Runtime.getRuntime().availableProcessors();
        final String awakeLine =
            chrt.isPresent() ? String.format(Locale.ROOT, "cores kept awake: %d busy loop%s at idle " +
            "priority (chrt --idle) throughout, run only when nothing else wants a core; without them a core with " +
            "nothing to do halts, and on a virtual machine waking it costs tens of microseconds, which Redis's " +
            "sleeping client and server pay on nearly every request and dkv's spinning clients never do; a dkv " +
            "thread that yields while it waits may lose its core to a loop for a scheduler slice",
            cores, cores == 1 ? "" : "s") :
            "cores kept awake: none (" + (keepAwake == AutoOff.OFF ? "the default; --keep-awake auto keeps them" :
            AwakeCores.BINARY + " is not installed") +
            "): a core with nothing to do halts, as this machine is set to, and a Redis request may pay for waking one";

        final List<ReplicaPass> passes = new ArrayList<>();
        GetFloors floor = null;
        final String redisLine;
        final ProgressBar progress = new ProgressBar(err);
        try (AwakeCores awake = chrt.isPresent() ? AwakeCores.start(chrt.get(), cores) : null;
            RedisServer redis = redisBinary.isPresent() ? RedisServer.start(redisBinary.get()) : null;
            YcsbRunner runner = new YcsbRunner(maxThreads, progress))
        {
            final Map<String, String> redisProperties = redis == null ? Map.of() : Map.of(
                RedisYcsbClient.HOST_PROPERTY, RedisServer.HOST, RedisYcsbClient.PORT_PROPERTY,
                Integer.toString(redis.port()));
            redisLine = redis == null ? "Redis: off (" + (redisMode == AutoOff.OFF ? "--redis off" :
                RedisServer.BINARY + " is not installed: " + RedisServer.INSTALL_HINT) + ")" :
                String.format(Locale.ROOT,
                    "Redis: redis-server %s (%s) on %s:%d, its own process, started with --save \"\" --appendonly " +
                    "no; Jedis, one connection per client thread; a record is a hash (HSET, HGETALL, HMGET, DEL)",
                    redis.version(), redisBinary.get(), RedisServer.HOST, redis.port());

            final List<Side> sides = new ArrayList<>();
            for (final int count : replicas)
            {
                sides.add(new Side(replicas.size() == 1 ? "dkv" : "dkv r=" + count,
                    sides.isEmpty() ? redis : null, redisProperties));
            }
            try (ReplicaStores stores = new ReplicaStores(replicas, memoryNode, lanes(), memoryNodes))
            {
                final List<List<SideBySide>> runs = new ArrayList<>();
                for (int i = 0; i < sides.size(); i++)
                {
                    runs.add(new ArrayList<>(List.of(
                        loadAndWarmUp(stores.stores().get(i), sides.get(i), runner, selected, maxThreads))));
                }
                final InProcessStore baseline = stores.stores().getFirst();
                final long heapInUse = (long)baseline.memoryNode().chunksAllocated() * memoryNode.chunkBytes();
                floor = new GetFloors(
                    MemoryFloor.measure(baseline.clientRaas(), InProcessStore.MEMORY_NODE_ID,
                        memoryNode.indexGroups(), heapInUse, blockBytes, floorReads, floorReads),
                    MemoryFloor.measureRaw(baseline.clientRaas(), baseline.memoryRaas(), InProcessStore.MEMORY_NODE_ID,
                        memoryNode.indexGroups(), heapInUse, blockBytes, floorReads, floorReads));
                timedRuns(stores.stores(), sides, runner, selected, threads, runs);
                for (int i = 0; i < sides.size(); i++)
                {
                    passes.add(new ReplicaPass(stores.stores().get(i).replicas(), runs.get(i)));
                }
            }
        }

        final SectionedReport report = YcsbReport.of(MachineInfo.current(),
            method(selected, threads, maxThreads, replicas, memoryNodes, memoryNode, valueBytes, blockBytes, redisLine,
                awakeLine, loadAtStart, MachineInfo.loadAverage()),
            passes, floor, redisLine.startsWith("Redis: redis-server"));
        markdown.publish(report, spec.commandLine().getOut());
        final GetFloors measuredFloor = floor;
        html.publish(report, () -> YcsbCharts.of(passes, measuredFloor));
        return 0;
    }

    /**
     * How a pass of dkv runs: its runs' label, and Redis beside it or not.
     *
     * @param dkv        the label of dkv's runs.
     * @param redis      the server that runs every phase beside dkv's, or null.
     * @param properties what Redis's YCSB client needs to find it.
     */
    private record Side(String dkv, RedisServer redis, Map<String, String> properties)
    {
    }

    /**
     * Load the records (on Redis too when beside it), then run every workload untimed.
     *
     * @return the load's figures.
     */
    private SideBySide loadAndWarmUp(
        final InProcessStore store, final Side side, final YcsbRunner runner, final List<YcsbWorkload> selected,
        final int maxThreads) throws InterruptedException
    {
        final Supplier<DB> dkvClients = () -> new DkvYcsbClient(store.client());
        final Supplier<DB> redisClients = RedisYcsbClient::new;
        final RedisServer redis = side.redis();
        // each client thread's first call gives it its session, and with it its lane: in thread order, round robin
        runner.onEachThreadInOrder(() -> store.client().get(HashKeyedDb.key(YcsbWorkload.TABLE, "lane")));
        final Properties loadProperties = properties(YcsbWorkload.C, records, side.properties());
        final RunResult dkvLoad =
            runner.load(side.dkv() + " load", Store.DKV, dkvClients, loadProperties, maxThreads, CpuClock.NONE);
        final RunResult redisLoad = redis == null ? null :
            runner.load("Redis load", Store.REDIS, redisClients, loadProperties, maxThreads, redis.cpu());

        if (warmupOperations > 0)
        {
            for (final YcsbWorkload workload : selected)
            {
                final Properties warmup = properties(workload, warmupOperations, side.properties());
                runner.transactions(side.dkv() + " warm-up " + workload.title(), Store.DKV, dkvClients, warmup,
                    maxThreads, warmupOperations, CpuClock.NONE);
                if (redis != null)
                {
                    runner.transactions("Redis warm-up " + workload.title(), Store.REDIS, redisClients, warmup,
                        maxThreads,
                        warmupOperations, redis.cpu());
                }
            }
        }
        return new SideBySide(null, maxThreads, dkvLoad, redisLoad);
    }

    /**
     * Run every workload at every thread count on each store and, beside the first, on Redis: back to
     * back, the order reversed from one run to the next, so that neither side always goes first.
     *
     * @param runs each store's runs so far, added to.
     */
    private void timedRuns(
        final List<InProcessStore> stores, final List<Side> sides, final YcsbRunner runner,
        final List<YcsbWorkload> selected, final List<Integer> threads, final List<List<SideBySide>> runs)
        throws InterruptedException
    {
        final Supplier<DB> redisClients = RedisYcsbClient::new;
        final RedisServer redis = sides.getFirst().redis();
        boolean dkvFirst = true;
        for (final YcsbWorkload workload : selected)
        {
            final Properties properties = properties(workload, operations, sides.getFirst().properties());
            for (final int count : threads)
            {
                final String suffix = " " + workload.title() + ", " + count + " thread" + (count == 1 ? "" : "s");
                RunResult other = null;
                if (!dkvFirst && redis != null)
                {
                    other = runner.transactions(
                        "Redis" + suffix, Store.REDIS, redisClients, properties, count, operations, redis.cpu());
                }
                final RunResult[] dkv = new RunResult[stores.size()];
                for (int k = 0; k < stores.size(); k++)
                {
                    final int i = dkvFirst ? k : stores.size() - 1 - k;
                    final KvClient client = stores.get(i).client();
                    dkv[i] = runner.transactions(sides.get(i).dkv() + suffix, Store.DKV,
                        () -> new DkvYcsbClient(client), properties, count, operations, CpuClock.NONE);
                }
                if (dkvFirst && redis != null)
                {
                    other = runner.transactions(
                        "Redis" + suffix, Store.REDIS, redisClients, properties, count, operations, redis.cpu());
                }
                dkvFirst = !dkvFirst;
                for (int i = 0; i < stores.size(); i++)
                {
                    runs.get(i).add(new SideBySide(workload, count, dkv[i], i == 0 ? other : null));
                }
            }
        }
    }

    private Properties properties(final YcsbWorkload workload, final long operationCount,
        final Map<String, String> extra)
    {
        final Properties properties = workload.properties(records, operationCount, fieldCount, fieldLength);
        extra.forEach(properties::setProperty);
        return properties;
    }

    /** @return bytes of one record as one dkv value. */
    private int recordBytes()
    {
        final Map<String, byte[]> fields = new LinkedHashMap<>();
        for (int i = 0; i < fieldCount; i++)
        {
            fields.put("field" + i, new byte[fieldLength]);
        }
        return RecordCodec.encode(fields).length;
    }

    /** @return records inserted after the load, at most: workload d's inserts, in its warm-up and its runs. */
    private long expectedInserts(final List<YcsbWorkload> selected, final int threadCounts)
    {
        double inserts = 0;
        for (final YcsbWorkload workload : selected)
        {
            inserts += workload.insertShare() * (warmupOperations + operations * threadCounts);
        }
        return (long)Math.ceil(inserts * 1.1);
    }

    /**
     * @return records written after the load, at most: blocks are written out of place, and the heap
     * is sized to hold them all rather than wait for replaced ones to come back after the grace period.
     */
    private long expectedWrites(final List<YcsbWorkload> selected, final int threadCounts)
    {
        double writes = 0;
        for (final YcsbWorkload workload : selected)
        {
            writes += workload.writeShare() * (warmupOperations + operations * threadCounts);
        }
        // a share is an average: a run may write a little more
        return (long)Math.ceil(writes * 1.1);
    }

    private void validate()
    {
        require(spec, "--records", records, 1, MAX_RECORDS);
        require(spec, "--operations", operations, 1, Integer.MAX_VALUE);
        require(spec, "--field-count", fieldCount, 1, MAX_FIELDS);
        require(spec, "--field-length", fieldLength, 1, KvBlockLayout.MAX_VALUE_LENGTH);
        require(spec, "--warmup", warmupOperations, 0, Integer.MAX_VALUE);
        for (final int count : threadCounts)
        {
            require(spec, "--threads", count, 1, MAX_THREADS);
        }
        // after the thread counts: one lane per thread of the largest run is the default
        require(spec, "--lanes", lanes(), 1, 64);
        require(spec, "--floor-reads", floorReads, 1, 10_000_000);
        html.validate(spec);
        final long recordBytes = (long)fieldCount * fieldLength;
        if (recordBytes > KvBlockLayout.MAX_VALUE_LENGTH / 2)
        {
            throw new ParameterException(spec.commandLine(),
                String.format(Locale.ROOT, "--field-count %d x --field-length %d " +
                "= %,d B per record; a record must stay under %,d B", fieldCount, fieldLength, recordBytes,
                KvBlockLayout.MAX_VALUE_LENGTH / 2));
        }
    }

    /**
     * One lane per client thread unless told otherwise: threads sharing a lane take turns posting and
     * polling for each other, and with more threads than cores a thread descheduled in its turn holds
     * up the others until it runs again (docs/BENCHMARKS.md has the figures).
     */
    private int lanes()
    {
        return lanes != null ? lanes : threadCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    private List<String> method(
        final List<YcsbWorkload> selected,
        final List<Integer> threads,
        final int maxThreads,
        final List<Integer> replicas,
        final int memoryNodes,
        final MemoryNodeContext memoryNode,
        final int valueBytes,
        final int blockBytes,
        final String redisLine,
        final String awakeLine,
        final double loadAtStart,
        final double loadAtEnd)
    {
        final List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT,
            "dkv: in this process, %s (index of %,d bucket groups, heap of %,d chunks of %,d B) with an " +
            "embedded driver on %s, and a client over %d lane%s (embedded drivers, a client thread keeping to one, " +
            "given in thread order); YCSB's DB interface on KvClient (DkvYcsbClient): a record is one value, an " +
            "update a versioned read, the changed field spliced into the record's bytes and a compare-and-set of the " +
            "version (KvClient.compareAndSetVersion)",
            memoryNodes == 1 ? "a memory node" : memoryNodes + " memory nodes, each", memoryNode.indexGroups(),
            memoryNode.heapChunks(), memoryNode.chunkBytes(), InProcessStore.PROVIDER,
            lanes(),
            lanes() == 1 ? "" : "s"));
        if (!replicas.equals(List.of(1)))
        {
            lines.add(String.format(Locale.ROOT,
                "replicas: %s copies of each key (KvClientContext.replicas), each count a store of its own with %d " +
                "memory nodes, all up at once, loaded and warmed up in turn, fewest first, then each run of a " +
                "workload and thread count on every store back to back, the order reversed from run to run; a key's " +
                "copies are on the first r nodes of its rendezvous order: a write goes to all r (blocks and bucket " +
                "reads, then a CAS of the tail and one toward the head per other copy), a read to the head alone; " +
                "the tables before the replication section are of r=%d, the baseline",
                replicas.stream().map(String::valueOf)
                .reduce((a, b) -> a + "," + b).orElseThrow(), memoryNodes, replicas.getFirst()));
        }
        lines.add(redisLine);
        lines.add(awakeLine);
        lines.add("jvm: " + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(argument ->
                argument.startsWith("-Xm") || argument.startsWith("-XX:+Use") || argument.contains("PreTouch"))
            .toList()) + " (the launcher's settings for benchmarks: a fixed heap, touched at start)");
        lines.add(String.format(Locale.ROOT,
            "records: %,d of %d fields of %d B (keys usertable:user<hash>); as a dkv value %,d B (RecordCodec), a " +
            "%,d B block with its key; loaded with %d threads through CoreWorkload.doInsert, dkv first", records,
            fieldCount, fieldLength, valueBytes, blockBytes, maxThreads));
        final StringBuilder shapes = new StringBuilder();
        for (final YcsbWorkload workload : selected)
        {
            shapes.append(shapes.isEmpty() ? "" : "; ").append(workload.name().toLowerCase(Locale.ROOT)).append(": ")
                .append(workload.description());
        }
        lines.add("workloads: YCSB's core workloads as its files workloads/workloada..f set them (" + shapes +
            "); reads of all fields, updates of one");
        lines.add(String.format(Locale.ROOT,
            "runs: per workload and thread count (%s), %,d operations split over the threads, each thread calling " +
            "CoreWorkload.doTransaction on a DB instance of its own; dkv and Redis alternate, the one going first " +
            "changing from run to run; before the first, each store ran %,d untimed operations of every workload " +
            "with %d threads", threads.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElseThrow(),
            operations, warmupOperations, maxThreads));
        lines.add("measuring: System.nanoTime around every call into the store (HdrHistogram); throughput: " +
            "operations over the time from the threads' common start to the last one's end; a progress line on " +
            "stderr meanwhile");
        lines.add(String.format(Locale.ROOT,
            "floor: after the warm-up, %,d triples of synchronous READs (2 x %d B of the index, %,d B of the heap) " +
            "through the client node's driver, then as many on a raw RC queue pair between the two nodes' devices, " +
            "each timed after as many untimed",
            floorReads, MemoryFloor.BUCKET_READ, blockBytes));
        lines.add(String.format(Locale.ROOT,
            "system load average (1 min): %.2f before the run, %.2f at its end; dkv's client threads, its drivers' " +
            "agents and the memory node share the cores with redis-server and the Redis client threads, all on this " +
            "machine", loadAtStart, loadAtEnd));
        return lines;
    }
}
