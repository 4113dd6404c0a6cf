package io.dkv.load.check.harness;

import io.dkv.client.Durability;
import io.dkv.compute.ComputeNodeConfiguration;
import io.dkv.compute.autoscale.Autoscaler;
import io.dkv.compute.autoscale.AutoscalerContext;
import io.dkv.compute.autoscale.ProcessNodeLauncher;
import io.dkv.compute.autoscale.ScalingMetric;
import io.dkv.client.KvClientConfiguration;
import io.dkv.clock.ClockControl;
import io.dkv.load.check.nemesis.MemoryNodeKills;
import io.dkv.load.check.nemesis.MemoryTierChanges;
import io.dkv.load.check.nemesis.WritesInFlight;
import io.dkv.load.check.store.FaultyStores;
import io.dkv.memory.MemoryNodeConfiguration;
import io.dkv.meta.MetaServerConfiguration;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.meta.ClusterSecret;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The cluster {@code dkv check} tests, as processes: a MetaServer, memory nodes (each with a data
 * directory, so that a killed one comes back with what it acknowledged), the host's driver and the
 * client processes; or, through compute nodes, compute nodes in place of the driver (each writing
 * under durability sync, serving RESP on a port of its own that a restart takes again) and clients
 * that talk RESP to them, each preferring another. The MetaServer keeps the run's count of copies of
 * each key, and every client takes it from there. On test hosts the MetaServer, each memory node,
 * and the driver or compute nodes with the clients get a host each and talk over the tcp provider;
 * otherwise all run here on shm.
 * <p>
 * Where the nemesis adds and drains memory nodes, the clients and compute nodes are given no list of memory nodes:
 * they take the members of the moment from the membership the MetaServer keeps (which lists a member that is down too)
 * as they connect, and follow it from there; one restarted, or attached again, with the list the run began with would
 * name a drained node, which a client refuses at two copies or more.
 */
public final class CheckCluster implements AutoCloseable
{
    private static final Pattern CLIENT_READY = Pattern.compile(CheckClientCommand.READY);
    /** The MetaServer's role name, and how each memory node's begins (the node id follows). */
    public static final String META_SERVER = "MetaServer";
    public static final String MEMORY_NODE = "memory node ";
    /** The driver's role name, and how a compute node's and a client's begin. */
    public static final String DRIVER = "driver";
    public static final String COMPUTE_NODE = "compute node ";
    public static final String CLIENT = "client ";
    public static final long FIRST_MEMORY_NODE_ID = 101;
    /** Node ids the memory nodes of a run may take: a client reaches at most 64 memory nodes over its life. */
    private static final int MEMORY_NODE_IDS = 64;
    private static final long FIRST_DRAIN_NODE_ID = 301;
    /** The node ids of the processes that take over a change its driver left ({@code memory-node --drive}). */
    private static final long FIRST_DRIVE_NODE_ID = 401;
    private static final Pattern ANY_OUTPUT = Pattern.compile("\\S");
    private static final Pattern DRAIN_BEGUN = Pattern.compile("draining memory node \\d+|cannot be drained");
    private static final long FIRST_COMPUTE_NODE_ID = 201;
    private static final int META_PORT = 7400;
    /**
     * The driver's conductor parks after 100 yields rather than 1,000: between the clients' requests (2 ms apart at 500
     * operations per second) the default's yields took 40% of a core from the processes the clients wait on.
     */
    static final String DRIVER_CONDUCTOR_IDLE_STRATEGY = "backoff:100,100,1000,100000";
    private static final int FIRST_COMPUTE_PORT_ON_TEST_HOSTS = 6400;
    /** History processes of each client: process / PROCESSES_PER_CLIENT is the client's number. */
    public static final int PROCESSES_PER_CLIENT = 1_000_000;
    private static final int PROCESSES_PER_INCARNATION = 10_000;

    /**
     * What the client processes run.
     *
     * @param concurrency worker threads over all clients.
     * @param rate        operations per second over all clients.
     * @param inject      a deliberately faulty layer between the clients and the store, or "none".
     */
    record Clients(int count, String workload, int keys, int concurrency, double rate, long timeoutMs, String inject,
        long seed, boolean async, long finalReadsTimeoutMs, String appendFsync)
    {
        /** @return the compute nodes' client durability: sync under always, async under everysec. */
        Durability durability()
        {
            return "everysec".equals(appendFsync) ? Durability.ASYNC : Durability.SYNC;
        }
    }

    /**
     * Compute nodes run by an {@link Autoscaler} on the clients' host, all on one port, instead of a fixed number: it
     * decides every {@link #SYNC_PERIOD_MS} and scales down after {@link #DOWN_WINDOW_MS}; the nemesis moves its
     * target (the {@code scale} fault), so it adds and drains nodes while the clients run.
     */
    record Autoscale(int min, int max, Consumer<String> events)
    {
        static final long SYNC_PERIOD_MS = 500;
        static final long DOWN_WINDOW_MS = 2_000;
    }

    private final Path logs;
    private final Path data;
    private final Path histories;
    private final TestHosts hosts;
    private final int memoryNodes;
    private final int replicas;
    private final int computeNodes;
    private final Clients clients;
    private final long originNanos;
    private final String provider;
    private final String driverName = "dkv-check-" + ProcessHandle.current().pid();
    private final List<Role> cluster = Collections.synchronizedList(new ArrayList<>());
    private final Map<Role, Long> memoryNodeIds = new LinkedHashMap<>();
    private final List<Role> clientRoles = Collections.synchronizedList(new ArrayList<>());
    private final List<Path> historyFiles = Collections.synchronizedList(new ArrayList<>());
    /** Each client's incarnation of the moment's history file, by client number. */
    private final Map<Integer, Path> currentHistories = new ConcurrentHashMap<>();
    /** Where each client's incarnation of the moment reports its final reads, by client number. */
    private final Map<Integer, Path> finalReadsReports = new ConcurrentHashMap<>();
    private final Path finalReadsSignal;
    private final List<String> computeEndpoints = new ArrayList<>();
    private final Autoscale autoscale;
    private final boolean tierChanges;
    private boolean clockFaults;
    /**
     * The clock of each host a role runs on, when clock faults are asked for. Never unmapped: a nemesis may still
     * heal one while the cluster closes (from a shutdown hook too), and each is 64 bytes.
     */
    private final Map<String, ClockControl> clocks = new HashMap<>();
    private MemoryNodeKills memoryNodeKills;
    private String metaEndpoint;
    private Path secretFile;
    private int memoryRoles;
    private long drains;
    private long metaChanges;
    private long drives;
    private Autoscaler autoscaler;
    private AgentRunner autoscalerRunner;
    private MembershipProbe membership;

    /**
     * @param hosts        test hosts to run on, or null for this host.
     * @param replicas     copies of each key, the MetaServer's setting.
     * @param computeNodes compute nodes the clients talk RESP to, or 0: the clients attach to the driver.
     * @param originNanos  when the history began, for the clients' clocks.
     */
    CheckCluster(final Path results, final TestHosts hosts, final int memoryNodes, final int replicas,
        final int computeNodes, final Clients clients, final long originNanos)
        throws IOException
    {
        this(results, hosts, memoryNodes, replicas, computeNodes, null, false, clients, originNanos);
    }

    /**
     * @param autoscale   the autoscaler's bounds, with {@code computeNodes} 1 (the clients' one endpoint); or null.
     * @param tierChanges true when the nemesis adds and drains memory nodes: clients then follow the membership.
     */
    CheckCluster(final Path results, final TestHosts hosts, final int memoryNodes, final int replicas,
        final int computeNodes, final Autoscale autoscale, final boolean tierChanges, final Clients clients,
        final long originNanos)
        throws IOException
    {
        this.tierChanges = tierChanges;
        this.replicas = replicas;
        this.computeNodes = computeNodes;
        this.autoscale = autoscale;
        this.logs = Files.createDirectories(results.resolve("logs"));
        this.data = Files.createDirectories(results.resolve("data"));
        this.histories = Files.createDirectories(results.resolve("histories"));
        this.finalReadsSignal = histories.resolve("final-reads.signal");
        this.hosts = hosts;
        this.memoryNodes = memoryNodes;
        this.clients = clients;
        this.originNanos = originNanos;
        this.provider = hosts == null ? "shm" : "tcp";
    }


    /**
     * Give every role clocks a clock nemesis can shift and skew ({@link Role#withClock}); before {@link #start()}. The
     * driver and the clients attached to it share one: they are one host's processes, whose command-and-control
     * heartbeats compare one process's time with another's.
     *
     * @return this.
     */
    CheckCluster clockFaults(final boolean clockFaults)
    {
        this.clockFaults = clockFaults;
        return this;
    }

    private Role clocked(final Role role)
    {
        final boolean attached = computeNodes == 0 && (role.name().equals(DRIVER) || role.name().startsWith(CLIENT));
        return clocked(role, attached ? "driver-host" : role.name().replace(' ', '-'));
    }

    /** @param host the name of the clock file: roles given the same name share one clock. */
    private Role clocked(final Role role, final String host)
    {
        if (!clockFaults)
        {
            return role;
        }
        synchronized (clocks)
        {
            return role.withClock(
                clocks.computeIfAbsent(host, name -> ClockControl.create(logs.resolve(name + ".clock"))));
        }
    }

    /**
     * @return the memory nodes started at once, which found the store together: named, since with none named the
     * MetaServer lets the first alone found it and refuses the others (they would read as empty, keys placed on them).
     */
    private String founders()
    {
        final StringJoiner ids = new StringJoiner(",");
        for (int i = 0; i < memoryNodes; i++)
        {
            ids.add(Long.toString(FIRST_MEMORY_NODE_ID + i));
        }
        return ids.toString();
    }

    /** Start every role and wait until each says it is ready. */
    void start()
    {
        secretFile = data.resolve("cluster-secret");
        ClusterSecret.readOrGenerate(secretFile);
        final String secret = secretFile.toString();
        final List<String> metaArguments = new ArrayList<>(List.of("meta", "--node-id", "1", "--provider", provider,
            "--data-dir", data.resolve("meta").toString(), "--cluster-secret-file", secret,
            "--replicas", Integer.toString(replicas), "--founders", founders()));
        if (hosts != null)
        {
            // a fixed port: a restarted MetaServer must be found where the others know it
            metaArguments.addAll(List.of("--address", hosts.address(0) + ":" + META_PORT));
        }
        // the broken variant a pause-meta run must catch: no gap in its lease checks counts as its own stall
        final Map<String, String> metaProperties = FaultyStores.META_WITHOUT_STALL_CHECK.equals(clients.inject()) ?
            Map.of(MetaServerConfiguration.LEASE_STALL_MS_PROP_NAME, Integer.toString(Integer.MAX_VALUE)) : Map.of();
        final Role meta = clocked(new Role(META_SERVER, "256m", metaProperties, incarnation -> metaArguments,
            ReadyLines.META, logs, "meta", on(0))).start();
        cluster.add(meta);
        final String endpoint = meta.readyGroup(1);
        metaEndpoint = endpoint;
        membership = new MembershipProbe(endpoint, secretFile);
        final long[] nodeIds = new long[memoryNodes];
        for (int i = 0; i < memoryNodes; i++)
        {
            final long id = FIRST_MEMORY_NODE_ID + i;
            nodeIds[i] = id;
            final Role memoryNode = memoryNode(id, i + 1, false);
            synchronized (memoryNodeIds)
            {
                memoryNodeIds.put(memoryNode, id);
            }
            synchronized (cluster)
            {
                cluster.add(memoryNode.start());
                memoryRoles++;
            }
        }
        final String nodes = tierChanges ? "" :
            Arrays.stream(nodeIds).mapToObj(Long::toString).collect(Collectors.joining(","));
        if (computeNodes == 0)
        {
            cluster.add(clocked(new Role(DRIVER, "512m",
                Map.of(RaasConfiguration.CONDUCTOR_IDLE_STRATEGY_PROP_NAME, DRIVER_CONDUCTOR_IDLE_STRATEGY),
                incarnation -> List.of("driver", "--name", driverName, "--provider", provider, "--meta", endpoint,
                    "--cluster-secret-file", secret,
                    "--address", address(driverHost()) + ":0"),
                ReadyLines.DRIVER, logs, "driver", on(driverHost()))).start());
        }
        if (autoscale != null)
        {
            startAutoscaler(endpoint, secret, nodes);
        }
        else
        {
            for (int i = 0; i < computeNodes; i++)
            {
                cluster.add(computeNode(i, endpoint, secret, nodes).start());
            }
        }
        for (int i = 0; i < clients.count(); i++)
        {
            clientRoles.add(client(i, nodes).start());
        }
    }

    /**
     * A memory node on its host, keeping its keys in a data directory of its own.
     *
     * @param join true for one added to the memory tier by moving keys to it: its first incarnation asks to join, and
     *             drives its change with the clients' operation timeout, so that it waits for their operations to end;
     *             a later one (restarted after a kill) is a member already and comes back as any member does.
     */
    private Role memoryNode(final long id, final int host, final boolean join)
    {
        final Map<String, String> properties = new HashMap<>();
        if (join)
        {
            properties.put(KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Long.toString(clients.timeoutMs()));
        }
        // versions kept or not as the check itself was told (DKV_JAVA_OPTS): its nodes recover as it asked
        final String keepVersions = System.getProperty(MemoryNodeConfiguration.KEEP_VERSIONS_PROP_NAME);
        if (keepVersions != null)
        {
            properties.put(MemoryNodeConfiguration.KEEP_VERSIONS_PROP_NAME, keepVersions);
        }
        return clocked(new Role(MEMORY_NODE + id, "512m", properties,
            incarnation ->
            {
                final List<String> arguments = new ArrayList<>(List.of("memory-node", "--node-id", Long.toString(id),
                    "--provider", provider, "--meta", metaEndpoint, "--cluster-secret-file", secretFile.toString(),
                    "--address", address(host) + ":0", "--index-groups", "1024", "--heap-chunks", "32",
                    "--data-dir", data.resolve("memory-node-" + id).toString()));
                if (join && incarnation == 0)
                {
                    arguments.add("--join");
                }
                return arguments;
            },
            ReadyLines.MEMORY_NODE, logs, "memory-node-" + id, on(host)));
    }

    /**
     * Start a memory node that asks to join the memory tier, on this host (the nemesis adds none on test hosts, whose
     * MetaServer it cannot read), and return once it serves; it is stopped with the cluster.
     */
    private Role startJoiningMemoryNode(final long id)
    {
        final Role node = memoryNode(id, driverHost(), true);
        synchronized (cluster)
        {
            // among the memory nodes: the cluster stops them after the driver or compute nodes that use them
            cluster.add(1 + memoryRoles++, node);
        }
        return node.start();
    }

    /** Start {@code memory-node --drain ID} and return once it said whether the drain began. */
    private RoleProcess startDrain(final long id)
    {
        final long drainId;
        synchronized (this)
        {
            drainId = FIRST_DRAIN_NODE_ID + drains++;
        }
        return RoleProcess.start("drain of memory node " + id, "256m",
            Map.of(KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Long.toString(clients.timeoutMs())),
            List.of("memory-node", "--drain", Long.toString(id), "--meta", metaEndpoint,
                "--cluster-secret-file", secretFile.toString(), "--node-id", Long.toString(drainId),
                "--provider", provider, "--address", address(driverHost()) + ":0"),
            DRAIN_BEGUN, logs.resolve("drain-memory-node-" + id + ".log"), on(driverHost()));
    }

    /** Start {@code memory-node --drive}, which takes over a change its driver left, once it printed a line. */
    private RoleProcess startDrive()
    {
        final long call;
        synchronized (this)
        {
            call = drives++;
        }
        return RoleProcess.start("drive of the membership change", "256m",
            Map.of(KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Long.toString(clients.timeoutMs())),
            List.of("memory-node", "--drive", "--meta", metaEndpoint, "--cluster-secret-file", secretFile.toString(),
                "--node-id", Long.toString(FIRST_DRIVE_NODE_ID + call), "--provider", provider,
                "--address", address(driverHost()) + ":0"),
            ANY_OUTPUT, logs.resolve("drive-" + call + ".log"), on(driverHost()));
    }

    /** Start {@code meta change ARGUMENTS}, an operator's step on a change its driver left, once it printed a line. */
    private RoleProcess startMetaChange(final List<String> arguments)
    {
        final long call;
        synchronized (this)
        {
            call = metaChanges++;
        }
        final List<String> command = new ArrayList<>(List.of("meta", "change"));
        command.addAll(arguments);
        command.addAll(List.of("--meta", metaEndpoint, "--cluster-secret-file", secretFile.toString(),
            "--address", address(driverHost()) + ":0"));
        return RoleProcess.start("meta change " + String.join(" ", arguments), "256m", Map.of(), command,
            ANY_OUTPUT, logs.resolve("meta-change-" + call + ".log"), on(driverHost()));
    }

    /**
     * A compute node on the clients' host, its port chosen once, so that each incarnation serves where the clients
     * reconnect. Its embedded client writes under durability sync, as the clients through the driver do (async under
     * --appendfsync everysec), and is given
     * the memory nodes the run began with (none where the nemesis changes the memory tier: the membership names them
     * then), so that one restarted while a memory node is not registered still places keys on it.
     */
    private Role computeNode(final int index, final String meta, final String secret, final String nodes)
    {
        final long id = FIRST_COMPUTE_NODE_ID + index;
        final int port = hosts == null ? freePort() : FIRST_COMPUTE_PORT_ON_TEST_HOSTS + index;
        computeEndpoints.add(address(driverHost()) + ":" + port);
        // appendfsync always by default: the checkers allow no acknowledged write lost; under everysec (--appendfsync)
        // they excuse what a crash of every copy may lose of the last second's (EverysecLosses)
        final Map<String, String> properties = new HashMap<>(Map.of(
            KvClientConfiguration.DURABILITY_PROP_NAME, clients.durability().name().toLowerCase(Locale.ROOT),
            ComputeNodeConfiguration.APPENDONLY_PROP_NAME, "yes",
            ComputeNodeConfiguration.APPENDFSYNC_PROP_NAME, clients.appendFsync(),
            KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Long.toString(clients.timeoutMs())));
        if (!nodes.isEmpty())
        {
            properties.put(KvClientConfiguration.MEMORY_NODES_PROP_NAME, nodes);
        }
        if (clients.async())
        {
            // --through compute-async: the commands carried by completions and replayed, as over tcp or verbs
            properties.put(ComputeNodeConfiguration.ASYNC_COMMANDS_PROP_NAME, "on");
        }
        return clocked(new Role(COMPUTE_NODE + id, "384m", properties,
            incarnation -> List.of("compute-node", "--node-id", Long.toString(id), "--port", Integer.toString(port),
                "--bind", address(driverHost()), "--provider", provider, "--meta", meta,
                "--cluster-secret-file", secret, "--address", address(driverHost()) + ":0"),
            ReadyLines.COMPUTE_NODE, logs, "compute-node-" + id, on(driverHost())));
    }

    /**
     * The autoscaler in this JVM, its compute nodes processes on the clients' host with the settings {@link
     * #computeNode} gives one, all serving one port; returns once its minimum serves.
     */
    private void startAutoscaler(final String meta, final String secret, final String nodes)
    {
        final int port = hosts == null ? freePort() : FIRST_COMPUTE_PORT_ON_TEST_HOSTS;
        final String host = address(driverHost());
        computeEndpoints.add(host + ":" + port);
        final List<String> flags = new ArrayList<>(List.of(
            "-D" + KvClientConfiguration.DURABILITY_PROP_NAME + "=" +
                clients.durability().name().toLowerCase(Locale.ROOT),
            "-D" + ComputeNodeConfiguration.APPENDONLY_PROP_NAME + "=yes",
            "-D" + ComputeNodeConfiguration.APPENDFSYNC_PROP_NAME + "=" + clients.appendFsync(),
            "-D" + KvClientConfiguration.TIMEOUT_MS_PROP_NAME + "=" + clients.timeoutMs()));
        if (!nodes.isEmpty())
        {
            flags.add("-D" + KvClientConfiguration.MEMORY_NODES_PROP_NAME + "=" + nodes);
        }
        final ProcessNodeLauncher launcher = new ProcessNodeLauncher(on(driverHost()), flags,
            List.of("--port", Integer.toString(port), "--bind", host, "--reuse-port", "--metrics-port", "0",
                "--provider", provider, "--meta", meta, "--cluster-secret-file", secret, "--address", host + ":0"),
            "384m", logs.resolve("autoscaled"));
        autoscaler = new Autoscaler(new AutoscalerContext()
            .minNodes(autoscale.min())
            .maxNodes(autoscale.max())
            .metric(ScalingMetric.OPS)
            .target(calmTarget())
            .syncPeriodMs(Autoscale.SYNC_PERIOD_MS)
            .downWindowMs(Autoscale.DOWN_WINDOW_MS)
            .metricsHost(host)
            .launcher(launcher)
            .events(line -> autoscale.events().accept("autoscaler: " + line)));
        final long deadline = System.nanoTime() + 120_000_000_000L;
        while (autoscaler.serving() < autoscale.min())
        {
            if (System.nanoTime() > deadline)
            {
                autoscaler.close();
                throw new IllegalStateException("the autoscaler's " + autoscale.min() + " compute node(s) did not " +
                    "serve within 120 s; logs in " + logs.resolve("autoscaled"));
            }
            autoscaler.doWork();
            sleepMs(20);
        }
        autoscalerRunner = new AgentRunner(new SleepingMillisIdleStrategy(20), ex -> autoscale.events()
            .accept("autoscaler: error: " + ex), null, autoscaler);
        AgentRunner.startOnThread(autoscalerRunner);
    }

    /** @return a target per node no load of the run reaches: the autoscaler keeps its minimum. */
    double calmTarget()
    {
        return clients.rate() * 10;
    }

    /** @return a target per node far under the run's load: the autoscaler goes to its maximum. */
    double surgeTarget()
    {
        return Math.max(0.5, clients.rate() / (4.0 * autoscale.max()));
    }

    /** @return the autoscaler running the compute nodes, or null when their number is fixed. */
    Autoscaler autoscaler()
    {
        return autoscaler;
    }

    private static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the autoscaler's compute nodes started", ex);
        }
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket())
        {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no free port for a compute node: " + ex.getMessage(), ex);
        }
    }

    /** @return how client {@code client} reaches the store: the driver, or the compute nodes from its own on. */
    private List<String> storeArguments(final int client, final String nodes)
    {
        if (computeNodes == 0)
        {
            final List<String> arguments = new ArrayList<>(List.of("--driver", driverName));
            if (!nodes.isEmpty())
            {
                arguments.addAll(List.of("--memory-nodes", nodes));
            }
            if (clients.async())
            {
                arguments.add("--async");
            }
            return arguments;
        }
        final List<String> endpoints = new ArrayList<>();
        for (int i = 0; i < computeNodes; i++)
        {
            endpoints.add(computeEndpoints.get((client + i) % computeNodes));
        }
        return List.of("--compute", String.join(",", endpoints));
    }

    private Role client(final int client, final String nodes)
    {
        final int threads =
            clients.concurrency() / clients.count() + (client < clients.concurrency() % clients.count() ? 1 : 0);
        return clocked(new Role(CLIENT + client, "256m", incarnation ->
        {
            final Path history = histories.resolve("client-" + client + "." + incarnation + ".jsonl");
            historyFiles.add(history);
            currentHistories.put(client, history);
            final Path report = histories.resolve("client-" + client + "." + incarnation + ".final-reads");
            finalReadsReports.put(client, report);
            final List<String> arguments = new ArrayList<>(List.of("check-client"));
            arguments.addAll(storeArguments(client, nodes));
            arguments.addAll(List.of("--workload", clients.workload(),
                "--keys", Integer.toString(clients.keys()), "--threads", Integer.toString(threads),
                "--rate", Double.toString(clients.rate() * threads / clients.concurrency()),
                "--process-base",
                Integer.toString(client * PROCESSES_PER_CLIENT + incarnation * PROCESSES_PER_INCARNATION),
                "--origin-nanos", Long.toString(originNanos), "--history", history.toString(),
                "--timeout-ms", Long.toString(clients.timeoutMs()), "--inject", clients.inject(),
                "--final-reads-signal", finalReadsSignal.toString(), "--final-reads-report", report.toString(),
                "--final-reads-timeout-ms", Long.toString(clients.finalReadsTimeoutMs()),
                "--seed", Long.toString(clients.seed() * 7919 + client * 31L + incarnation)));
            return arguments;
        }, CLIENT_READY, logs, "client-" + client, on(driverHost())));
    }

    /** @return what the clients go through: the driver by name, or the compute nodes' endpoints. */
    String storeName()
    {
        return computeNodes == 0 ? "driver '" + driverName + "'" : autoscale != null ? "compute nodes autoscaled " +
            autoscale.min() + ".." + autoscale.max() + " on " + computeEndpoints.getFirst() :
            "compute nodes " + String.join(", ", computeEndpoints);
    }

    /** @return every role, the nemesis's targets. */
    List<Role> roles()
    {
        final List<Role> roles = new ArrayList<>(cluster);
        roles.addAll(clientRoles);
        return roles;
    }

    /**
     * @return the memory nodes and when the nemesis may kill one, by the membership read from this host; on test hosts
     * (which this host cannot reach) it cannot be read, so with several copies per key no memory node is killed.
     */
    synchronized MemoryNodeKills memoryNodeKills()
    {
        if (memoryNodeKills == null)
        {
            synchronized (memoryNodeIds)
            {
                memoryNodeKills = new MemoryNodeKills(memoryNodeIds, replicas, tierChanges, () ->
                {
                    if (hosts != null)
                    {
                        throw new IllegalStateException("the test hosts' MetaServer cannot be reached from this host");
                    }
                    return membership.read();
                });
            }
        }
        return memoryNodeKills;
    }

    /**
     * @return how the nemesis adds and drains memory nodes: up to 2 more than the run began with, each added one with
     * a node id never used; the memory nodes are those of {@link #memoryNodeKills()}.
     */
    MemoryTierChanges memoryTierChanges(final Consumer<String> log)
    {
        final MemoryTierChanges.Processes processes = new MemoryTierChanges.Processes()
        {
            public Role startJoining(final long nodeId)
            {
                return startJoiningMemoryNode(nodeId);
            }

            public RoleProcess startDrain(final long nodeId)
            {
                return CheckCluster.this.startDrain(nodeId);
            }

            public RoleProcess startMetaChange(final List<String> arguments)
            {
                return CheckCluster.this.startMetaChange(arguments);
            }

            public RoleProcess startDrive()
            {
                return CheckCluster.this.startDrive();
            }

            public long phaseGapMs()
            {
                return KvClientConfiguration.MEMBERSHIP_LEASE_MS_DEFAULT + clients.timeoutMs();
            }
        };
        return new MemoryTierChanges(memoryNodeKills(), memoryNodes + 2, processes,
            FIRST_MEMORY_NODE_ID + memoryNodes, FIRST_MEMORY_NODE_ID + MEMORY_NODE_IDS - 1, originNanos, log);
    }

    /** @return what runs on each test host, by host number. */
    List<String> hostNames()
    {
        final List<String> names = new ArrayList<>();
        for (int host = 0; host <= driverHost(); host++)
        {
            names.add(host == 0 ? "MetaServer" : host == driverHost() ?
                (computeNodes == 0 ? "driver" : "compute nodes") + " and clients" : cluster.get(host).name());
        }
        return names;
    }

    /**
     * Tell every client to stop its workload and read every key, and wait until each reported.
     *
     * @return the clients' reports, one line each, and a line for each client that did not report by the deadline.
     */
    List<String> finalReads(final long deadlineNanos)
    {
        try
        {
            Files.writeString(finalReadsSignal, "read every key\n");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot signal the final reads at " + finalReadsSignal, ex);
        }
        final List<String> reports = new ArrayList<>();
        for (int client = 0; client < clients.count(); client++)
        {
            final Path report = finalReadsReports.get(client);
            while (!Files.exists(report) && System.nanoTime() < deadlineNanos)
            {
                sleepMs(50);
            }
            try
            {
                reports.add("client " + client + ": " + (Files.exists(report) ?
                    Files.readString(report).strip() : "no report by the deadline (" + report + ")"));
            }
            catch (final IOException ex)
            {
                reports.add("client " + client + ": its report could not be read: " + ex.getMessage());
            }
        }
        return reports;
    }

    /** @return where kill-mid-write finds a client with a write in flight: the clients' live history files. */
    WritesInFlight writesInFlight()
    {
        return new WritesInFlight(() ->
        {
            final Map<Role, Path> files = new HashMap<>();
            final List<Role> clientsNow = roles(clientRoles);
            for (int i = 0; i < clientsNow.size(); i++)
            {
                final Path history = currentHistories.get(i);
                if (history != null)
                {
                    files.put(clientsNow.get(i), history);
                }
            }
            return files;
        });
    }

    /** @return the clients' history files, one per client incarnation, those written so far. */
    List<Path> historyFiles()
    {
        synchronized (historyFiles)
        {
            return historyFiles.stream().filter(Files::exists).toList();
        }
    }

    /** Stop the clients first (their last operations still find the cluster), then the cluster, then the hosts. */
    public void close()
    {
        for (final Role role : roles(clientRoles))
        {
            role.stop();
        }
        if (autoscalerRunner != null)
        {
            // drains every compute node (the agent's onClose), while the memory nodes and MetaServer still serve
            autoscalerRunner.close();
        }
        else if (autoscaler != null)
        {
            autoscaler.close();
        }
        if (membership != null)
        {
            membership.close();
        }
        final List<Role> roles = roles(cluster);
        for (int i = roles.size() - 1; i >= 0; i--)
        {
            roles.get(i).stop();
        }
        if (hosts != null)
        {
            hosts.close();
        }
    }

    private static List<Role> roles(final List<Role> roles)
    {
        synchronized (roles)
        {
            return List.copyOf(roles);
        }
    }

    // hosts: the MetaServer, each memory node, then the driver or the compute nodes with the clients
    private int driverHost()
    {
        return memoryNodes + 1;
    }

    private String address(final int host)
    {
        return hosts == null ? "127.0.0.1" : hosts.address(host);
    }

    private List<String> on(final int host)
    {
        return hosts == null ? List.of() : hosts.exec(host);
    }
}
