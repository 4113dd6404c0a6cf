package io.dkv.cli.cluster;

import io.dkv.compute.StopSignals;
import io.dkv.process.ReadyLines;
import io.dkv.process.ParentWatch;
import io.dkv.process.RoleProcess;
import io.dkv.meta.MetaServerConfiguration;
import io.dkv.raas.meta.ClusterSecret;
import org.agrona.concurrent.SystemEpochClock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * {@code dkv up}: a local cluster, each role a process of this host, stopped together on Ctrl-C.
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {
        "Start a local cluster: a MetaServer, memory nodes, a standalone driver and a compute node, each a process " +
            "of this host, and say how to use it (./dkv put, get, del attach to its driver; redis-cli -p PORT talks " +
            "to the compute node). Ctrl-C stops them all, the compute nodes first (they drain and deregister).",
        "--replicas R keeps each key on R memory nodes (at most one copy per node: with fewer nodes, fewer copies).",
        "A role that dies is said (role, pid, exit status) with the command that starts it again for this cluster; " +
            "with --restart up starts it again itself.",
        "Logs, the MetaServer's data and the memory nodes' keys go to --dir, which is kept: started again on it, the " +
            "cluster comes back with every key it acknowledged under the compute nodes' --appendfsync (always: " +
            "all; everysec, the default: all but at most the last second's after a crash; a clean stop, Ctrl-C or " +
            "SIGTERM, loses nothing). --fresh empties it first. The cluster secret, which every MetaServer RPC is " +
            "authenticated with, is generated beside the cluster file on the first start (" + UpCommand.SECRET_FILE +
            ", mode 0600) and kept."
    })
public final class UpCommand implements Callable<Integer>
{
    static final long FIRST_MEMORY_NODE_ID = 101;
    static final long FIRST_COMPUTE_NODE_ID = 201;
    /** The driver's name with the default --dir; another --dir names its own, so that two clusters can run. */
    static final String DRIVER_NAME = "dkv-up";
    static final String SECRET_FILE = "cluster-secret";
    /** Its port (group 1), its nodes (group 2) and, at its end, their metrics endpoints (group 3). */
    private static final Pattern AUTOSCALER_READY = Pattern.compile(
        "dkv autoscale \\S+: serving RESP on \\S+:(\\d+) through (\\d+) compute node[^\\n]*?" +
            "(?:; metrics on ([^\\n]+))?$", Pattern.MULTILINE);
    /** A compute node's ready line ({@link ReadyLines#COMPUTE_NODE}'s groups) with its metrics endpoint (group 4). */
    private static final Pattern COMPUTE_READY = Pattern.compile(
        "dkv compute node (\\d+) serving RESP on (\\S+):(\\d+) .*; metrics on (http://\\S+/metrics)");
    /** How often the main thread looks at the roles: a death is said within this. */
    private static final long WATCH_PERIOD_MS = 250;
    private static final Pattern COMPUTE_RANGE = Pattern.compile("(\\d{1,3})(?:\\.\\.(\\d{1,3}))?");

    @Option(names = "--memory-nodes", defaultValue = "2",
        description = "Memory nodes to start (default: ${DEFAULT-VALUE}).")
    private int memoryNodes;

    @Option(names = "--replicas", paramLabel = "R",
        description = "Copies of each key the memory nodes keep, 1 to " + MetaServerConfiguration.REPLICAS_MAX +
            ", passed to the MetaServer; a key lives on min(R, memory nodes) of them (default: the MetaServer's, " +
            MetaServerConfiguration.REPLICAS_DEFAULT + ").")
    private Integer replicas;

    @Option(names = "--provider", defaultValue = "shm",
        description = "Verbs provider: shm (processes of one host), tcp (over loopback), verbs (this host's RNIC) " +
            "or auto (verbs where an RNIC is usable, else shm) (default: ${DEFAULT-VALUE}).")
    private String provider;

    @Option(names = "--dir", description = "Where logs, the MetaServer's data and the memory nodes' keys go, kept " +
        "from one start to the next (default: <tmp>/dkv-up/run). A directory of its own runs a cluster beside the " +
        "default one: its driver is named after the directory.")
    private Path dir;

    @Option(names = "--fresh", description = "Empty --dir before starting: a new cluster, every key of the one " +
        "that ran there before gone.")
    private boolean fresh;

    @Option(names = "--index-groups", defaultValue = "16384",
        description = "Bucket groups of each memory node's index; each holds 21 keys (default: ${DEFAULT-VALUE}).")
    private int indexGroups;

    @Mixin
    private ClusterFileOption cluster;

    @Option(names = "--heap-chunks", defaultValue = "128",
        description = "2 MiB heap chunks of each memory node (default: ${DEFAULT-VALUE}).")
    private int heapChunks;

    @Option(names = "--compute", defaultValue = "1", paramLabel = "N|MIN..MAX",
        description = "Compute nodes (RESP servers) to start; 0 for none; MIN..MAX runs ./dkv autoscale, which keeps " +
            "between MIN and MAX of them on one port and scales them by their load (--metric, --target) " +
            "(default: ${DEFAULT-VALUE}).")
    private String compute;

    private int computeNodes;
    private int computeMax;

    @Option(names = "--metric", paramLabel = "ops|cpu|connections|p99",
        description = "With --compute MIN..MAX: what the autoscaler holds each compute node to, passed to ./dkv " +
            "autoscale: ops (commands/s), cpu (0..1 of the host), connections, or p99 (seconds) (default: ops).")
    private String metric;

    @Option(names = "--target", paramLabel = "VALUE",
        description = "With --compute MIN..MAX: the figure of --metric wanted per compute node, passed to ./dkv " +
            "autoscale (default: 20000 ops, 0.5 cpu, 1000 connections, 0.001 p99).")
    private Double target;

    @Option(names = "--restart",
        description = "Start a role that dies again, with the arguments it first had (each says so in a line), " +
            "until it dies " + RestartBudget.DEATHS + " times within " + RestartBudget.WINDOW_MS / 1_000 +
            " s. Without it, up says which role died and the command that starts it again.")
    private boolean restart;

    @Option(names = "--appendonly", paramLabel = "yes|no",
        description = "Passed to each compute node: yes (its default) keeps each write on the memory nodes' disks " +
            "as --appendfsync says; no keeps them in memory only, which a restart of every copy loses.")
    private String appendOnly;

    @Option(names = "--appendfsync", paramLabel = "always|everysec|no",
        description = "Passed to each compute node: always answers a write once its memory nodes have it on disk; " +
            "everysec (its default) once it is in their memory, each node fsyncing within a second, so a crash of " +
            "every copy loses at most about the last second; no as --appendonly no. CONFIG SET changes it at run " +
            "time across the compute nodes.")
    private String appendFsync;

    @Option(names = "--maxmemory", paramLabel = "bytes",
        description = "Passed to each compute node: the pool's maxmemory as redis writes it (100mb, 2gb; 0: none). " +
            "Each memory node hands out at most its share, by capacity; a write past it answers OOM, reads and " +
            "deletes go on (maxmemory-policy noeviction). CONFIG SET maxmemory changes it at run time.")
    private String maxMemory;

    @Option(names = "--compute-port", defaultValue = "6379",
        description = "Loopback port of the first compute node, or the next free one when it is taken; each further " +
            "node takes the next free port after it. 0 takes any free ports (default: ${DEFAULT-VALUE}).")
    private int computePort;

    public Integer call() throws Exception
    {
        if (memoryNodes < 1 || memoryNodes > 16)
        {
            throw new IllegalArgumentException("--memory-nodes " + memoryNodes + " is not in [1, 16]");
        }
        final String replicasNote = replicasNote(replicas, memoryNodes);
        if (appendOnly != null && !List.of("yes", "no").contains(appendOnly))
        {
            throw new IllegalArgumentException("--appendonly " + appendOnly + ": expected yes or no");
        }
        if (appendFsync != null && !List.of("always", "everysec", "no").contains(appendFsync))
        {
            throw new IllegalArgumentException("--appendfsync " + appendFsync + ": expected one of always, everysec, " +
                "no");
        }
        parseCompute();
        final UpAutoscale autoscale = new UpAutoscale(computeNodes, computeMax, metric, target);
        if (computePort < 0 || computePort > 65_535)
        {
            throw new IllegalArgumentException("--compute-port " + computePort + " is not in [0, 65535]");
        }
        final Path clusterPath = cluster.path();
        if (Files.exists(clusterPath))
        {
            final ClusterFile running = ClusterFile.read(clusterPath);
            if (running.isLive())
            {
                System.err.println("dkv up: a local cluster already runs (dkv up is process " + running.upPid() +
                    "); stop it with Ctrl-C there, or kill " + running.upPid());
                return 1;
            }
            Files.delete(clusterPath);
        }
        // absolute: the commands up prints to start a role again must work from any directory
        final Path runDir = (dir != null ? dir : ClusterFile.defaultPath().getParent().resolve("run")).toAbsolutePath();
        // emptied before the secret is read or made: a cluster file kept inside --dir keeps its secret beside it
        final String startNote = RunDirectory.prepare(runDir, fresh);
        final Path secretFile = clusterPath.toAbsolutePath().getParent().resolve(SECRET_FILE);
        try
        {
            ClusterSecret.readOrGenerate(secretFile);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("dkv up: " + ex.getMessage());
            return 1;
        }
        final String secret = secretFile.toString();

        final List<RoleProcess> started = Collections.synchronizedList(new ArrayList<>());
        final RoleWatch watch = new RoleWatch(System.out, restart, SystemEpochClock.INSTANCE, started);
        final Thread stopAll = new Thread(() -> stop(started, clusterPath), "dkv-up-stop");
        Runtime.getRuntime().addShutdownHook(stopAll);
        try
        {
            if (replicasNote != null)
            {
                System.out.println(replicasNote);
            }
            System.out.println(startNote);
            System.out.println("dkv up: starting a MetaServer, " + memoryNodes + " memory node" +
                (memoryNodes == 1 ? "" : "s") +
                ", a driver and " + (computeMax < 0 ? computeNodes + " compute node" + (computeNodes == 1 ? "" : "s") :
                computeNodes + ".." + computeMax + " compute nodes (autoscaled)") + " (" + provider + ")...");
            final List<String> metaArguments = new ArrayList<>(List.of("meta", "--node-id", "1", "--provider", provider,
                "--data-dir", runDir.resolve("meta-data").toString(), "--cluster-secret-file", secret));
            if (replicas != null)
            {
                metaArguments.addAll(List.of("--replicas", replicas.toString()));
            }
            // the memory nodes started together found the store when it is new; on a kept directory they are its
            // members back with their disks; any started later must join with --join, which moves keys to it
            final long[] nodeIds = new long[memoryNodes];
            final StringJoiner founders = new StringJoiner(",");
            for (int i = 0; i < memoryNodes; i++)
            {
                nodeIds[i] = FIRST_MEMORY_NODE_ID + i;
                founders.add(Long.toString(nodeIds[i]));
            }
            metaArguments.addAll(List.of("--founders", founders.toString()));
            final RoleProcess meta = RoleProcess.start("MetaServer", "256m", ParentWatch.thisJvm(), metaArguments,
                ReadyLines.META, runDir.resolve("meta.log"));
            started.add(meta);
            watch.watch("MetaServer", meta, "256m", metaArguments, ReadyLines.META, runDir, false);
            final String endpoint = meta.readyGroup(1);
            final List<RoleProcess> nodes = new ArrayList<>();
            for (int i = 0; i < memoryNodes; i++)
            {
                final List<String> nodeArguments = List.of("memory-node", "--node-id", Long.toString(nodeIds[i]),
                    "--provider", provider, "--meta", endpoint, "--cluster-secret-file", secret,
                    "--index-groups", Integer.toString(indexGroups), "--heap-chunks", Integer.toString(heapChunks),
                    "--data-dir", runDir.resolve("memory-node-" + nodeIds[i] + "-data").toString());
                final RoleProcess node = RoleProcess.start("memory node " + nodeIds[i], "512m", ParentWatch.thisJvm(),
                    nodeArguments, ReadyLines.MEMORY_NODE, runDir.resolve("memory-node-" + nodeIds[i] + ".log"));
                started.add(node);
                watch.watch("memory node " + nodeIds[i], node, "512m", nodeArguments, ReadyLines.MEMORY_NODE, runDir,
                    false);
                nodes.add(node);
            }
            final String driverName = driverName(dir);
            final List<String> driverArguments = List.of("driver", "--name", driverName, "--provider", provider,
                "--meta", endpoint, "--cluster-secret-file", secret);
            final RoleProcess driver = RoleProcess.start("driver", "512m", ParentWatch.thisJvm(), driverArguments,
                ReadyLines.DRIVER, runDir.resolve("driver.log"));
            started.add(driver);
            watch.watch("driver", driver, "512m", driverArguments, ReadyLines.DRIVER, runDir, false);
            final List<ComputeNodeProcess> computes = autoscale.enabled() ?
                List.of(startAutoscaler(autoscale, endpoint, secret, runDir, started, watch)) :
                startComputeNodes(endpoint, secret, runDir, started, watch);
            new ClusterFile(ProcessHandle.current().pid(), provider, driverName, endpoint, secret,
                computes.stream().mapToInt(ComputeNodeProcess::port).toArray()).write(clusterPath);
            describe(System.out, meta, endpoint, nodes, driver, driverName, computes, runDir, clusterPath);
        }
        catch (final RuntimeException ex)
        {
            System.err.println("dkv up: " + ex.getMessage());
            Runtime.getRuntime().removeShutdownHook(stopAll);
            stop(started, clusterPath);
            return 1;
        }
        // Ctrl-C now stops the roles in order, compute nodes first, while their MetaServer still takes deregistrations
        // and their memory nodes still answer the requests they drain; the exit hooks would signal them all at once
        // until then, the main thread watches the roles: one that dies is said (and with --restart started again)
        final StopSignals signals = StopSignals.install();
        while (!signals.await(WATCH_PERIOD_MS))
        {
            watch.poll();
        }
        stop(started, clusterPath);
        return 0;
    }

    /**
     * @param replicas    the copies asked for, or null for the MetaServer's default.
     * @param memoryNodes the memory nodes started.
     * @return what to tell the user before starting, or null: more copies than memory nodes are kept as one per node.
     * @throws IllegalArgumentException naming the count when no MetaServer keeps it.
     */
    static String replicasNote(final Integer replicas, final int memoryNodes)
    {
        if (replicas == null)
        {
            return null;
        }
        if (replicas < 1 || replicas > MetaServerConfiguration.REPLICAS_MAX)
        {
            throw new IllegalArgumentException("--replicas " + replicas + " is not in [1, " +
                MetaServerConfiguration.REPLICAS_MAX + "]: a key needs at least one copy");
        }
        if (replicas > memoryNodes)
        {
            return "dkv up: note: --replicas " + replicas + " with " + memoryNodes + " memory node" +
                (memoryNodes == 1 ? "" : "s") + ": each key is kept on min(" + replicas + ", members) = " +
                memoryNodes + " of them until more memory nodes join";
        }
        return null;
    }

    /** {@code N} or {@code MIN..MAX}, each in [0, 16] (MIN at least 1 in a range), else an error naming the value. */
    private void parseCompute()
    {
        final Matcher range = COMPUTE_RANGE.matcher(compute.strip());
        if (!range.matches())
        {
            throw new IllegalArgumentException("--compute " + compute + " is neither a number of nodes nor MIN..MAX");
        }
        computeNodes = Integer.parseInt(range.group(1));
        computeMax = range.group(2) == null ? -1 : Integer.parseInt(range.group(2));
        if (computeNodes > 16 || computeMax > 16 ||
            (computeMax >= 0 && (computeNodes < 1 || computeMax < computeNodes)))
        {
            throw new IllegalArgumentException("--compute " + compute + ": nodes must be in [0, 16], and a range " +
                "MIN..MAX needs 1 <= MIN <= MAX");
        }
    }

    /**
     * Start {@code ./dkv autoscale} with MIN..MAX compute nodes on one port (SO_REUSEPORT) and wait until it serves.
     */
    private ComputeNodeProcess startAutoscaler(
        final UpAutoscale autoscale,
        final String endpoint,
        final String secret,
        final Path runDir,
        final List<RoleProcess> started,
        final RoleWatch watch) throws InterruptedException
    {
        final int port = computePort == 0 ? 0 : LocalPorts.firstFree(computePort);
        final RoleProcess process = RoleProcess.start("autoscaler", "128m", ParentWatch.thisJvm(),
            withDurability(autoscale.arguments(port, provider, endpoint, secret, runDir.resolve("autoscale"))),
            AUTOSCALER_READY, runDir.resolve("autoscale.log"));
        started.add(process);
        final int served = Integer.parseInt(process.readyGroup(1));
        RespPing.await(served, RoleProcess.START_TIMEOUT_MS);
        // started again on the port it took, where the cluster file and the "try it" lines say it serves; its syncs
        // are repeated on up's output
        watch.watch("autoscaler", process, "128m",
            withDurability(autoscale.arguments(served, provider, endpoint, secret, runDir.resolve("autoscale"))),
            AUTOSCALER_READY,
            runDir, true);
        if (computePort != 0 && served != computePort)
        {
            System.out.println("dkv up: port " + computePort + " is taken; the compute nodes serve on " + served);
        }
        return new ComputeNodeProcess(process, served);
    }

    /**
     * Start the compute nodes, each registered with the MetaServer with the cluster secret and embedding a driver of
     * its own (its node is the one clients see registered as compute), and wait until each answers PING.
     */
    private List<ComputeNodeProcess> startComputeNodes(
        final String endpoint,
        final String secret,
        final Path runDir,
        final List<RoleProcess> started,
        final RoleWatch watch) throws InterruptedException
    {
        final List<ComputeNodeProcess> computes = new ArrayList<>();
        int nextPort = computePort;
        for (int i = 0; i < computeNodes; i++)
        {
            final long nodeId = FIRST_COMPUTE_NODE_ID + i;
            final int port = computePort == 0 ? 0 : LocalPorts.firstFree(nextPort);
            final RoleProcess process = RoleProcess.start("compute node " + nodeId, "256m", ParentWatch.thisJvm(),
                computeNodeArguments(nodeId, port, endpoint, secret), COMPUTE_READY,
                runDir.resolve("compute-node-" + nodeId + ".log"));
            started.add(process);
            final int served = Integer.parseInt(process.readyGroup(3));
            RespPing.await(served, RoleProcess.START_TIMEOUT_MS);
            // started again on the port it took, where the cluster file and the "try it" lines say it serves
            watch.watch("compute node " + nodeId, process, "256m", computeNodeArguments(nodeId, served, endpoint,
                secret), COMPUTE_READY, runDir, false);
            if (computePort != 0 && served != nextPort)
            {
                System.out.println("dkv up: port " + nextPort + " is taken; compute node " + nodeId + " serves on " +
                    served);
            }
            computes.add(new ComputeNodeProcess(process, served));
            nextPort = served + 1;
        }
        return computes;
    }

    private List<String> computeNodeArguments(
        final long nodeId,
        final int port,
        final String endpoint,
        final String secret)
    {
        final List<String> arguments = new ArrayList<>(List.of("compute-node", "--node-id", Long.toString(nodeId),
            "--port", Integer.toString(port), "--provider", provider, "--meta", endpoint, "--cluster-secret-file",
            secret, "--metrics-port", "0"));
        arguments.addAll(durabilityArguments());
        return arguments;
    }

    private List<String> withDurability(final List<String> arguments)
    {
        arguments.addAll(durabilityArguments());
        return arguments;
    }

    /**
     * @return --appendonly, --appendfsync and --maxmemory as given to up, for each compute node; none when not given.
     */
    private List<String> durabilityArguments()
    {
        final List<String> arguments = new ArrayList<>();
        if (appendOnly != null)
        {
            arguments.addAll(List.of("--appendonly", appendOnly));
        }
        if (appendFsync != null)
        {
            arguments.addAll(List.of("--appendfsync", appendFsync));
        }
        if (maxMemory != null)
        {
            arguments.addAll(List.of("--maxmemory", maxMemory));
        }
        return arguments;
    }

    /**
     * @param dir the --dir given, or null for the default.
     * @return the name of the cluster's driver: a driver's name is one per host, so a cluster run in a directory of its
     * own (a test's, or a second cluster) takes a name made from that directory's path, and the default one "dkv-up".
     */
    static String driverName(final Path dir)
    {
        if (dir == null)
        {
            return DRIVER_NAME;
        }
        final CRC32C crc = new CRC32C();
        crc.update(dir.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8));
        return DRIVER_NAME + "-" + String.format("%08x", crc.getValue());
    }

    private static void describe(
        final PrintStream out,
        final RoleProcess meta,
        final String endpoint,
        final List<RoleProcess> nodes,
        final RoleProcess driver,
        final String driverName,
        final List<ComputeNodeProcess> computes,
        final Path runDir,
        final Path clusterPath)
    {
        final List<UpTable.Row> rows = new ArrayList<>();
        rows.add(new UpTable.Row("MetaServer", meta.pid(), UpTable.shorten(endpoint),
            meta.log().getFileName().toString(), UpTable.metaCounters("1")));
        for (final RoleProcess node : nodes)
        {
            rows.add(new UpTable.Row("memory node", node.pid(), "node " + node.readyGroup(1) + " at " +
                node.readyGroup(2), node.log().getFileName().toString(),
                UpTable.memoryNodeCounters(node.readyGroup(1))));
        }
        rows.add(new UpTable.Row("driver", driver.pid(), "attach as '" + driverName + "', node " +
            driver.readyGroup(1), driver.log().getFileName().toString(), UpTable.driverCounters(driverName)));
        for (final ComputeNodeProcess compute : computes)
        {
            final RoleProcess process = compute.process();
            final String log = process.log().getFileName().toString();
            if (process.name().equals("autoscaler"))
            {
                rows.add(new UpTable.Row("autoscaler", process.pid(), process.readyGroup(2) +
                    " compute node(s), RESP on 127.0.0.1:" + compute.port(), log,
                    UpTable.autoscalerMetrics(process.readyGroup(3))));
                continue;
            }
            rows.add(new UpTable.Row("compute node", process.pid(), "node " + process.readyGroup(1) +
                ", RESP on 127.0.0.1:" + compute.port(), log, UpTable.computeMetrics(process.readyGroup(4))));
        }
        out.println();
        UpTable.lines(rows).forEach(out::println);
        out.println();
        out.println("logs in " + runDir + "; cluster described in " + clusterPath);
        out.println("try it (in another terminal):");
        final int respPort = computes.isEmpty() ? -1 : computes.getFirst().port();
        tryIt(clusterPath, respPort).forEach(line -> out.println("  " + line));
        out.println("Ctrl-C stops the cluster.");
        out.flush();
    }

    /**
     * @param clusterPath the cluster file up wrote: named on each line unless it is the one every command reads
     *                    when given none, so that each line works as printed.
     * @param respPort    the first compute node's RESP port, or -1 for none.
     * @return the commands that try the cluster.
     */
    static List<String> tryIt(final Path clusterPath, final int respPort)
    {
        final String cluster = clusterPath.toAbsolutePath().normalize()
            .equals(ClusterFile.defaultPath().toAbsolutePath().normalize()) ? "" : " --cluster " + clusterPath;
        final List<String> lines = new ArrayList<>(List.of("./dkv put" + cluster + " greeting hello",
            "./dkv get" + cluster + " greeting", "./dkv del" + cluster + " greeting"));
        if (respPort >= 0)
        {
            lines.add("redis-cli -p " + respPort + " set greeting hello");
            lines.add("redis-cli -p " + respPort + " get greeting");
        }
        return lines;
    }

    /** A compute node and the port it serves RESP on. */
    private record ComputeNodeProcess(RoleProcess process, int port)
    {
    }

    private static void stop(final List<RoleProcess> started, final Path clusterPath)
    {
        try
        {
            Files.deleteIfExists(clusterPath);
        }
        catch (final java.io.IOException ignore)
        {
            // the next dkv up finds its process gone and removes it
        }
        final List<RoleProcess> reversed;
        synchronized (started)
        {
            reversed = new ArrayList<>(started);
            started.clear();
        }
        Collections.reverse(reversed);
        for (final RoleProcess process : reversed)
        {
            process.close();
        }
        if (!reversed.isEmpty())
        {
            System.out.println("dkv up: stopped " + reversed.size() + " processes");
        }
    }
}
