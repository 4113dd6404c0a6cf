package io.dkv.load.bench.compute;

import io.dkv.load.bench.HtmlOption;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.html.Chart;
import io.dkv.load.bench.ycsb.RedisServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code dkv bench compute}: a compute node against redis-server on the same machine in the same run, under
 * redis-benchmark (throughput) and from a new process's exec to its first served request (join).
 */
@Command(name = "compute", mixinStandardHelpOptions = true,
    description = {
        "A compute node against redis-server (Debian's, started on a free loopback port), side by side in one run.",
        "throughput: redis-benchmark SET then GET at -c 1, -c 50 and -c 50 -P 16 against a compute node over a dkv " +
            "store in this process (a memory node and client on shm) and against redis-server. Goals: ops/s >= 1.0x " +
            "redis-server's and p50 <= redis-server's at every setting.",
        "join: exec of a new ./dkv compute-node process (same JVM flags) joining a running MetaServer, memory node " +
            "and driver, to its first served GET, beside java -version (to exit) and redis-server (to its first " +
            "PING). Goal: median <= 150 ms.",
        "scale: a scale-out step: a second compute node starts on the first's port (SO_REUSEPORT) while clients " +
            "that reconnect now and then send GETs and SETs at a fixed rate. Goals: p99 during the step <= 2x the " +
            "steady p99; no failed request.",
        "multi: redis-benchmark's MSET (10 keys) at -c 1 and -c 50, and transfers between two keys by WATCH, GET, " +
            "GET, MULTI, SET, SET, EXEC from 1 and 8 connections, against a compute node (each one transaction) and " +
            "redis-server. Goal: MSET ops/s >= 1.0x redis-server's.",
        "collections (not by default): redis-benchmark's SADD, HSET and SPOP at the three settings, and one field's " +
            "HSET and HGET on a hash of --hash-fields fields against one of 10. Goal: the large hash's p50 within " +
            "1.5x the small one's.",
        "ordered (not by default): redis-benchmark's LPUSH, RPUSH, LPOP, RPOP, ZADD, ZPOPMIN and LRANGE_100 at the " +
            "three settings, and one element's ZADD, ZSCORE, ZRANK, ZRANGE, LINDEX, LRANGE, LPUSH and RPOP on a " +
            "sorted set and a list of --ordered-members elements against ones of 10.",
        "long (not by default): SET and GET of one value of 4, 64 and 256 MB (strings in pieces), --long-rounds " +
            "of each, against redis-server.",
        "full (not by default): a 16 MiB heap and redis-server's maxmemory of 16 MiB filled with values of 10 KB, " +
            "then refused SETs, GETs and DELs timed one at a time, and a FLUSHALL. Goal: refused writes answer -OOM " +
            "in <= 1 ms p99."
    })
public final class ComputeBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench compute";
    static final String THROUGHPUT = "throughput";
    static final String JOIN = "join";
    static final String SCALE = "scale";
    static final String MULTI = "multi";
    static final String COLLECTIONS = "collections";
    static final String ORDERED = "ordered";
    static final String LONG = "long";
    static final String POOL = "pool";
    static final String DURABILITY = "durability";
    static final String FULL = "full";
    static final String CLIENTS = "clients";
    /** The sizes of long's values, in 10^6 bytes. */
    static final int[] LONG_MEGABYTES = {4, 64, 256};

    @Spec
    private CommandSpec spec;

    @Option(names = "--only", split = ",", paramLabel = "PART",
        defaultValue = THROUGHPUT + "," + JOIN + "," + SCALE + "," + MULTI,
        description = "Parts to run: throughput, join, scale, multi, collections, ordered, long, pool, durability, " +
            "full " +
            "(default: ${DEFAULT-VALUE}; collections loads a hash of --hash-fields fields into both servers, ordered " +
            "a sorted set and a list of --ordered-members elements, minutes at 10^6; pool times PUBLISH and BLPOP " +
            "across two compute node processes; durability runs SET and GET at -c 50 and at -c 50 -P 16 under " +
            "appendfsync no, everysec and always, over a memory node keeping keys on disk, beside redis-server " +
            "with appendonly yes and the same appendfsync; full fills a 16 MiB heap and redis-server's maxmemory " +
            "and times refused SETs, GETs, DELs and a FLUSHALL there; clients times how soon a subscriber that never " +
            "reads is dropped, and PING beside it and beside 20,000-key MGETs).")
    private List<String> only;

    @Option(names = "--full-requests", defaultValue = "2000",
        description = "Timed requests of each kind of full, one at a time (default: ${DEFAULT-VALUE}).")
    private int fullRequests;

    @Option(names = "--clients-mgets", defaultValue = "100",
        description = "MGETs of 20,000 keys of clients, back to back (default: ${DEFAULT-VALUE}).")
    private int clientsMgets;

    @Option(names = "--pool-rounds", defaultValue = "2000",
        description = "Timed rounds of each measurement of pool, one at a time (default: ${DEFAULT-VALUE}).")
    private int poolRounds;

    @Option(names = "--long-rounds", defaultValue = "5",
        description = "SETs, each then read by a GET, of each size of long (default: ${DEFAULT-VALUE}).")
    private int longRounds;

    @Option(names = "--hash-fields", defaultValue = "1000000",
        description = "Fields of the large hash of collections (default: ${DEFAULT-VALUE}).")
    private int hashFields;

    @Option(names = "--hash-operations", defaultValue = "20000",
        description = "HSETs, then HGETs, timed on each hash of collections (default: ${DEFAULT-VALUE}).")
    private long hashOperations;

    @Option(names = "--ordered-members", defaultValue = "1000000",
        description = "Elements of the large sorted set and of the large list of ordered (default: ${DEFAULT-VALUE}).")
    private int orderedMembers;

    @Option(names = "--ordered-operations", defaultValue = "20000",
        description = "Requests of each timed operation on each sorted set and list of ordered (default: " +
            "${DEFAULT-VALUE}).")
    private long orderedOperations;

    @Option(names = "--scale-rate", defaultValue = "2000",
        description = "Requests a second of the scale step's clients, all together (default: ${DEFAULT-VALUE}).")
    private int scaleRate;

    @Option(names = "--scale-clients", defaultValue = "4",
        description = "Client threads of the scale step (default: ${DEFAULT-VALUE}).")
    private int scaleClients;

    @Option(names = "--scale-phase-ms", defaultValue = "10000",
        description = "Length of the scale step's steady and after phases, and of its settling time (default: " +
            "${DEFAULT-VALUE}).")
    private long scalePhaseMs;

    @Option(names = "--scale-steps", defaultValue = "1",
        description = "Scale-out steps to run, each in a cluster of its own; the table shows the median step, and " +
            "the p99 goal is judged by it: one step's ratio moves a lot from run to run (default: ${DEFAULT-VALUE}).")
    private int scaleSteps;

    @Option(names = "--scale-nodes", defaultValue = "own",
        description = "How the scale step's compute nodes reach RaaS: own (each starts a driver of its own) or " +
            "attached (each a node of its own behind the host's standalone driver, ./dkv compute-node --driver) " +
            "(default: ${DEFAULT-VALUE}).")
    private String scaleNodes;

    @Option(names = "--connection-life-ms", defaultValue = "200",
        description = "How long a scale step client keeps a connection before opening another (default: " +
            "${DEFAULT-VALUE}).")
    private long connectionLifeMs;

    @Option(names = "--requests", defaultValue = "50000",
        description = "Requests of each redis-benchmark run at -c 1; -c 50 makes 4x, -c 50 -P 16 makes 16x, so each " +
            "lasts seconds (default: ${DEFAULT-VALUE}).")
    private long requests;

    @Option(names = "--multi-requests", defaultValue = "5000",
        description = "MSETs of redis-benchmark's run at -c 1 in multi; -c 50 makes 4x (default: ${DEFAULT-VALUE}).")
    private long multiRequests;

    @Option(names = "--transfers", defaultValue = "5000",
        description = "WATCH/MULTI/EXEC transfers of each multi setting, all connections together (default: " +
            "${DEFAULT-VALUE}).")
    private long transfers;

    @Option(names = "--accounts", defaultValue = "10000",
        description = "Keys the multi transfers pick from; a hot setting picks from 16 (default: ${DEFAULT-VALUE}).")
    private int accounts;

    @Option(names = "--provider", defaultValue = "shm",
        description = "Software NIC of throughput's in-process store: shm or tcp (loopback) " +
            "(default: ${DEFAULT-VALUE}).")
    private String provider;

    @Option(names = "--async-commands", defaultValue = "auto",
        description = "The throughput compute node's asynchronous GETs and SETs: auto (on over tcp), on or off " +
            "(default: ${DEFAULT-VALUE}).")
    private String asyncCommands;

    @Option(names = "--tests", split = ",", defaultValue = "set,get", paramLabel = "TEST",
        description = "redis-benchmark tests of throughput (-t), each in turn: set, get, incr, lpush, rpush, lpop, " +
            "rpop, sadd, hset, spop, zadd, zpopmin, mset (default: ${DEFAULT-VALUE}).")
    private List<String> tests;

    @Option(names = "--keyspace", defaultValue = "100000",
        description = "Keys redis-benchmark picks from at random (-r) (default: ${DEFAULT-VALUE}).")
    private long keyspace;

    @Option(names = "--value-size", defaultValue = "3",
        description = "Bytes of each SET's value (-d; redis-benchmark's default) (default: ${DEFAULT-VALUE}).")
    private int valueSize;

    @Option(names = "--starts", defaultValue = "20",
        description = "Timed starts of each process for join, after one untimed (default: ${DEFAULT-VALUE}).")
    private int starts;

    @Option(names = "--aot", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Also time compute nodes started with a JDK AOT cache trained in the run (--no-aot: not).")
    private boolean aot;

    @Mixin
    private MarkdownOption markdown;

    @Mixin
    private HtmlOption html;

    public Integer call() throws Exception
    {
        final Set<String> parts = new LinkedHashSet<>(only);
        if (!Set.of(THROUGHPUT, JOIN, SCALE, MULTI, COLLECTIONS, ORDERED, LONG, POOL, DURABILITY, FULL,
            CLIENTS).containsAll(parts) || requests < 1 || fullRequests < 1 || clientsMgets < 1 || keyspace < 1 ||
            poolRounds < 1 ||
            hashFields < 11 || hashOperations < 1 || orderedMembers < 11 || orderedOperations < 1 || longRounds < 1 ||
            valueSize < 1 || starts < 1 || scaleRate < 1 || scaleClients < 1 || scalePhaseMs < 1 || scaleSteps < 1 ||
            connectionLifeMs < 1 || multiRequests < 1 || transfers < 1 || accounts < 17 ||
            !RedisBenchmarkTool.TESTS.containsAll(tests) || !List.of("shm", "tcp").contains(provider) ||
            !List.of("auto", "on", "off").contains(asyncCommands) || !List.of("own", "attached").contains(scaleNodes))
        {
            throw new ParameterException(spec.commandLine(), "--only " + only +
                " (parts: throughput, join, scale, multi, collections, ordered, long, pool, durability, full, " +
                "clients), --full-requests " + fullRequests + ", --clients-mgets " + clientsMgets + ", --pool-rounds " +
                poolRounds + ", --hash-fields " + hashFields +
                " (at least 11), --hash-operations " + hashOperations + ", --ordered-members " + orderedMembers +
                " (at least 11), --ordered-operations " + orderedOperations + ", --multi-requests " + multiRequests +
                ", --transfers " + transfers + ", --accounts " + accounts + " (at least 17), " +
                "--requests " + requests + ", --keyspace " + keyspace + ", --value-size " + valueSize + ", --starts " +
                starts + ", --scale-rate " + scaleRate + ", --scale-clients " + scaleClients + ", --scale-phase-ms " +
                scalePhaseMs + ", --scale-steps " + scaleSteps + ", --scale-nodes " + scaleNodes +
                " (own or attached), --connection-life-ms " + connectionLifeMs + ", --tests " + tests + " (of " +
                RedisBenchmarkTool.TESTS + "), --provider " + provider + " (shm or tcp), --async-commands " +
                asyncCommands + " (auto, on or off): parts and tests must be known and numbers positive");
        }
        html.validate(spec);
        final Optional<Path> redisServer = RedisServer.find();
        final Optional<Path> redisBenchmark = RedisBenchmarkTool.find();
        final boolean needsTool = parts.contains(THROUGHPUT) || parts.contains(MULTI) || parts.contains(COLLECTIONS) ||
            parts.contains(ORDERED) || parts.contains(DURABILITY);
        if (redisServer.isEmpty() || needsTool && redisBenchmark.isEmpty())
        {
            throw new IllegalStateException("needs " + RedisServer.BINARY + " (" + RedisServer.INSTALL_HINT + ")" +
                (needsTool ?
                    " and " + RedisBenchmarkTool.BINARY + " (" + RedisBenchmarkTool.INSTALL_HINT +
                ")" : "") + ": found " + redisServer.map(Path::toString).orElse("no redis-server") + ", " +
                redisBenchmark.map(Path::toString).orElse("no redis-benchmark"));
        }
        final double loadAtStart = MachineInfo.loadAverage();
        final List<String> method = new ArrayList<>();
        final List<ReportSection> sections = new ArrayList<>();
        final List<String> goals = new ArrayList<>();
        final List<Chart> charts = new ArrayList<>();
        if (parts.contains(THROUGHPUT))
        {
            final RedisBenchmarkTool tool = new RedisBenchmarkTool(redisBenchmark.orElseThrow());
            final ThroughputPart.Result result = new ThroughputPart(tool, redisServer.orElseThrow(), requests, keyspace,
                valueSize, spec.commandLine().getErr(), provider, asyncCommands, tests).run();
            method.add(String.format(Locale.ROOT, "throughput: %s, -t " + String.join(",", tests) + " (each over " +
                "random keys of -r in turn; a GET finds what the SET before it wrote), -r %,d, -d %d; %,d requests " +
                "at -c 1, 4x at -c 50, 16x at -c 50 -P 16; compute node first, then redis-server, at each setting",
                tool.version(), keyspace, valueSize, requests));
            method.add(String.format(Locale.ROOT, "compute node: in this JVM, %d event loops, %s, " +
                "over an in-process dkv store (one memory node and the client on the %s provider, in this JVM as " +
                "well); redis-server %s, no persistence; all on 127.0.0.1", result.ioThreads(),
                result.asyncCommands() ? "GET, SET, INCR, DEL, MSET and MSETNX asynchronous (MSET, MSETNX and " +
                "DEL of several keys transactions carried by completions), the collections' commands of one key " +
                "replayed transactions carried by completions, of several keys on store threads" :
                "every command on its event loop",
                result.provider(), result.redisVersion()));
            sections.add(ThroughputPart.section(result));
            goals.addAll(ThroughputPart.goals(result));
            charts.addAll(ComputeCharts.throughput(result));
        }
        if (parts.contains(JOIN))
        {
            final JoinPart.Result result =
                new JoinPart(redisServer.orElseThrow(), starts, aot, spec.commandLine().getErr())
                .run();
            method.add(String.format(Locale.ROOT, "join: a MetaServer, a memory node and a standalone driver, each a " +
                "process (shm provider); %d rounds, each execs java -version, redis-server, ./dkv compute-node " +
                "--port 0 (a JVM with the flags ./dkv gives roles, default heap; its own driver) and ./dkv " +
                "compute-node --driver NAME (a node of its own behind the standalone driver)%s, after one untimed " +
                "round", starts, result.find(JoinPart.COMPUTE_AOT) == null ? "" : ", each also with its AOT cache"));
            sections.addAll(JoinPart.sections(result));
            goals.addAll(JoinPart.goals(result));
            charts.addAll(ComputeCharts.join(result));
        }
        if (parts.contains(SCALE))
        {
            final Path directory = Files.createTempDirectory("dkv-bench-scale-");
            final boolean attached = "attached".equals(scaleNodes);
            final ScaleStepPart step = new ScaleStepPart(scaleRate, scaleClients, scalePhaseMs, connectionLifeMs,
                attached, spec.commandLine().getErr());
            final List<ScaleStepPart.Result> results = new ArrayList<>();
            for (int i = 0; i < scaleSteps; i++)
            {
                results.add(step.run(scaleSteps == 1 ? directory : Files.createDirectory(directory.resolve(
                    "step-" + (i + 1)))));
            }
            method.add(String.format(Locale.ROOT, "scale: a MetaServer, a memory node and a driver, each a process " +
                "(shm); compute node 1, then 2, each ./dkv compute-node --reuse-port (%s) on one loopback port; %d " +
                "client threads at %,d requests/s in all (80%% GET, 20%% SET of %,d keys), each opening a new " +
                "connection every %d ms; phases of %,d ms (logs in %s)", attached ? "--driver: behind the host's " +
                "driver" : "each with a driver of its own", scaleClients, scaleRate, 10_000, connectionLifeMs,
                scalePhaseMs, directory));
            sections.add(ScaleStepPart.section(results));
            goals.addAll(ScaleStepPart.goals(results));
            charts.addAll(ComputeCharts.scale(ScaleStepPart.median(results)));
        }
        if (parts.contains(MULTI))
        {
            final RedisBenchmarkTool tool = new RedisBenchmarkTool(redisBenchmark.orElseThrow());
            final MultiPart.Result result = new MultiPart(tool, redisServer.orElseThrow(), multiRequests, keyspace,
                valueSize, transfers, accounts, spec.commandLine().getErr()).run();
            method.add(String.format(Locale.ROOT, "multi: %s -t mset (10 keys over random keys), -r %,d, -d %d; " +
                "%,d requests at -c 1, 4x at -c 50; then %,d transfers a setting (1 and 8 connections over %,d " +
                "accounts, 8 over 16), each connection a thread of this process; compute node (%d event loops, " +
                "store as in throughput) first, then redis-server %s", tool.version(), keyspace, valueSize,
                multiRequests, transfers, accounts, result.ioThreads(), result.redisVersion()));
            sections.addAll(MultiPart.sections(result));
            goals.addAll(MultiPart.goals(result));
        }
        if (parts.contains(COLLECTIONS))
        {
            final RedisBenchmarkTool tool = new RedisBenchmarkTool(redisBenchmark.orElseThrow());
            final CollectionsPart.Result result = new CollectionsPart(tool, redisServer.orElseThrow(), requests / 5,
                keyspace, valueSize, hashFields, hashOperations, spec.commandLine().getErr()).run();
            method.add(String.format(Locale.ROOT, "collections: %s -t sadd,hset,spop, -r %,d; %,d requests at -c 1, " +
                "4x at -c 50, 16x at -c 50 -P 16; then a hash of %,d fields and one of 10 loaded into each server, " +
                "%,d HSET and %,d HGET of random fields from one connection; compute node (%d event loops, store as " +
                "in throughput) first, then redis-server %s", tool.version(), keyspace, requests / 5, hashFields,
                hashOperations, hashOperations, result.ioThreads(), result.redisVersion()));
            sections.addAll(CollectionsPart.sections(result));
            goals.addAll(CollectionsPart.goals(result));
        }
        if (parts.contains(ORDERED))
        {
            final RedisBenchmarkTool tool = new RedisBenchmarkTool(redisBenchmark.orElseThrow());
            final OrderedPart.Result result = new OrderedPart(tool, redisServer.orElseThrow(), requests / 5,
                keyspace, valueSize, orderedMembers, orderedOperations, spec.commandLine().getErr()).run();
            method.add(String.format(Locale.ROOT, "ordered: %s -t lpush, rpush, lpop, rpop, zadd, zpopmin, " +
                "lrange_100, one run each, -r %,d, -d %d; %,d requests at -c 1, 4x at -c 50, 16x at -c 50 -P 16; " +
                "then a sorted set and a list of %,d elements and ones of 10 loaded into each server, %,d of each " +
                "timed operation on each from one connection; compute node (%d event loops, store as in " +
                "throughput) first, then redis-server %s", tool.version(), keyspace, valueSize, requests / 5,
                orderedMembers, orderedOperations, result.ioThreads(), result.redisVersion()));
            sections.addAll(OrderedPart.sections(result));
        }
        if (parts.contains(LONG))
        {
            final LongStringsPart.Result result = new LongStringsPart(redisServer.orElseThrow(), LONG_MEGABYTES,
                longRounds, spec.commandLine().getErr()).run();
            method.add(String.format(Locale.ROOT, "long: %d rounds of SET then GET of one value of each of %s MB " +
                "from one connection, after an untimed one; compute node (%d event loops, store as in throughput) " +
                "first, then redis-server %s", longRounds, Arrays.toString(LONG_MEGABYTES), result.ioThreads(),
                result.redisVersion()));
            sections.addAll(LongStringsPart.sections(result));
        }
        if (parts.contains(POOL))
        {
            final PoolPart.Result result = new PoolPart(redisServer.orElseThrow(), poolRounds,
                spec.commandLine().getErr()).run();
            method.add(String.format(Locale.ROOT, "pool: %d rounds of each measurement, one at a time, after %d " +
                "untimed; two compute node processes (shm), then redis-server %s", poolRounds,
                Math.max(1, poolRounds / 10), result.redisVersion()));
            sections.add(PoolPart.section(result));
        }
        if (parts.contains(DURABILITY))
        {
            final RedisBenchmarkTool tool = new RedisBenchmarkTool(redisBenchmark.orElseThrow());
            for (final Setting setting : List.of(Setting.ALL.get(1), Setting.ALL.get(2)))
            {
                final DurabilityPart.Result result = new DurabilityPart(tool, redisServer.orElseThrow(), requests,
                    keyspace, valueSize, setting, spec.commandLine().getErr(), provider).run();
                method.add(String.format(Locale.ROOT, "durability %s: %s, -t set,get, -r %,d, -d %d, %,d requests; " +
                    "a compute node in this JVM over an in-process store whose memory node keeps keys in RocksDB in " +
                    "a temporary directory (%s), appendonly yes, appendfsync set by CONFIG SET before each; " +
                    "redis-server %s with appendonly yes and the same appendfsync; all on 127.0.0.1", setting.label(),
                    tool.version(), keyspace, valueSize, requests * setting.multiplier(), result.provider(),
                    result.redisVersion()));
                sections.add(DurabilityPart.section(result));
                goals.addAll(DurabilityPart.goals(result));
            }
        }
        if (parts.contains(FULL))
        {
            final FullPart.Result result = new FullPart(redisServer.orElseThrow(), fullRequests,
                spec.commandLine().getErr()).run();
            method.add(String.format(Locale.ROOT, "full: a compute node in this JVM over a memory node of 16 MiB " +
                "(shm), then redis-server %s with maxmemory 16 MiB and noeviction; %,d timed requests of each kind " +
                "at full, one at a time from one connection", result.redisVersion(), fullRequests));
            sections.add(FullPart.section(result));
            goals.addAll(FullPart.goals(result));
        }
        if (parts.contains(CLIENTS))
        {
            final ClientsPart.Result result = new ClientsPart(redisServer.orElseThrow(), clientsMgets,
                spec.commandLine().getErr()).run();
            method.add(String.format(Locale.ROOT, "clients: a compute node in this JVM over a memory node of 128 MiB " +
                "(shm), then redis-server %s, each with its default client-output-buffer-limit",
                result.redisVersion()));
            sections.add(ClientsPart.section(result));
            goals.addAll(ClientsPart.goals(result));
        }
        method.add(String.format(Locale.ROOT, "load average (1 min): %.2f at start, %.2f at end", loadAtStart,
            MachineInfo.loadAverage()));
        final SectionedReport report = new SectionedReport(TITLE, MachineInfo.current(), method, sections, goals);
        markdown.publish(report, spec.commandLine().getOut());
        html.publish(report, () -> charts);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
