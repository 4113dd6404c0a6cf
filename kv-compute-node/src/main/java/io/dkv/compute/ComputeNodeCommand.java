package io.dkv.compute;

import io.dkv.process.AotTraining;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.RaasContext;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code ./dkv compute-node}: joins the cluster through the MetaServer as role compute, serves RESP until interrupted,
 * then drains and deregisters.
 */
@Command(
    name = "compute-node",
    mixinStandardHelpOptions = true,
    description = {
        "Run a compute node: a stateless RESP server that redis-cli, redis-benchmark, Jedis and Lettuce use " +
            "unchanged, serving the cluster's memory nodes through the KV client. It registers with the MetaServer " +
            "as role compute.",
        "Stop it with Ctrl-C or SIGTERM: it stops accepting, answers what it has read, closes and deregisters."
    })
public final class ComputeNodeCommand implements Callable<Integer>
{
    /**
     * When true, the node prints, before its ready line, the {@code System.nanoTime} at which each phase of its start
     * ended: {@code dkv bench compute} times a join with it (the clock is the host's monotonic one, so a parent's
     * reading at exec is comparable).
     */
    public static final String PRINT_STARTUP_PROP_NAME = "dkv.compute.print.startup";
    static final String NETTY_JFR_PROP_NAME = "io.netty.jfr.enabled";
    /** Set by the launcher on the run that trains the AOT cache: a file this run writes once it serves. */
    static final String AOT_SERVED_MARKER_PROP_NAME = "dkv.compute.aot.served.marker";

    private static final String NAME = "dkv compute-node";
    private static final String REUSE_PORT = "--reuse-port";

    @Mixin
    private ComputeNodeOptions options = new ComputeNodeOptions();

    @Option(names = "--address", defaultValue = "127.0.0.1:0",
        description = "For tcp, the ip:port the NIC engine listens on (default: ${DEFAULT-VALUE}).")
    private String address;

    @Option(names = "--node-id", defaultValue = "0",
        description = "This node's id; 0 draws one (default: ${DEFAULT-VALUE}).")
    private long nodeId;

    @Option(names = "--reuse-port",
        description = "Bind the RESP port with SO_REUSEPORT: compute nodes of this host that are each given it " +
            "listen on the same --port and the kernel spreads new connections among them.")
    private boolean reusePort;

    @Option(names = "--metrics-port",
        defaultValue = "${sys:" + ComputeNodeConfiguration.METRICS_PORT_PROP_NAME + ":-" +
            ComputeNodeConfiguration.METRICS_PORT_DEFAULT + "}",
        description = "Port of a Prometheus endpoint (GET /metrics) on the --bind address; 0 takes a free one, -1 " +
            "serves none (default: ${DEFAULT-VALUE}).")
    private int metricsPort;

    @Option(names = "--max-clients",
        defaultValue = "${sys:" + ComputeNodeConfiguration.MAX_CLIENTS_PROP_NAME + ":-" +
            ComputeNodeConfiguration.MAX_CLIENTS_DEFAULT + "}",
        description = "Connections served at once (default: ${DEFAULT-VALUE}).")
    private int maxClients;

    @Option(names = "--client-output-limit", paramLabel = "BYTES",
        defaultValue = "${sys:" + ComputeNodeConfiguration.OUTPUT_LIMIT_PROP_NAME + ":-" +
            ComputeNodeConfiguration.OUTPUT_LIMIT_DEFAULT + "}",
        description = "Reply bytes a connection may have pending at most (redis's client-output-buffer-limit " +
            "normal); one past it is closed (default: ${DEFAULT-VALUE}).")
    private long clientOutputLimit;

    @Option(names = "--drain-timeout-ms",
        defaultValue = "${sys:" + ComputeNodeConfiguration.DRAIN_TIMEOUT_PROP_NAME + ":-" +
            ComputeNodeConfiguration.DRAIN_TIMEOUT_DEFAULT + "}",
        description = "On SIGTERM, how long connections may take to answer what they have read before they are " +
            "closed whatever their peers do (default: ${DEFAULT-VALUE}).")
    private long drainTimeoutMs;

    public Integer call() throws InterruptedException
    {
        final long calledNs = System.nanoTime();
        options.requireCluster();
        options.requireDurability();
        // Netty's buffer events for JDK Flight Recorder make their event classes at first allocation: 100-200 ms of a
        // join on 2 cores, for events no recording asks for by default; -Dio.netty.jfr.enabled=true keeps them
        if (System.getProperty(NETTY_JFR_PROP_NAME) == null)
        {
            System.setProperty(NETTY_JFR_PROP_NAME, "false");
        }
        // the RESP server's classes and native transport load on another core while this one attaches to RaaS
        ComputeNode.preload(metricsPort >= 0);
        // concluded here for its clocks, which the directory and the node take too: one setting governs the process
        final RaasContext raasContext = new RaasContext()
            .verbs(new VerbsContext().provider(options.provider()).tcpAddress(address))
            .nodeId(nodeId)
            .role(NodeRecord.ROLE_COMPUTE)
            .conclude();
        final Raas raas;
        final String driver = options.driver();
        if (driver != null)
        {
            // a node of its own (the id given or drawn), which the driver registers with its MetaServer; it gives a
            // live driver longer than a short-lived client does, unless told: a driver given up fails every request
            // in flight until the next one is attached and the mesh and endpoint region are made there again
            if (System.getProperty(RaasConfiguration.DRIVER_TIMEOUT_MS_PROP_NAME) == null)
            {
                raasContext.driverTimeoutMs(ComputeNodeConfiguration.ATTACHED_DRIVER_TIMEOUT_MS);
            }
            raas = AttachedRaas.attach(raasContext.driverName(driver).attachAs(raasContext.nodeId()));
        }
        else
        {
            raas = RaasDriver.start(raasContext, options.metaDirectory(raasContext));
        }
        final long raasNs = System.nanoTime();
        final ComputeNode node;
        try
        {
            node = ComputeNode.start(options.durability(new ComputeNodeContext())
                .epochClock(raasContext.epochClock())
                .nanoClock(raasContext.nanoClock())
                .port(options.port())
                .bindAddress(options.bind())
                .maxClients(maxClients)
                .outputLimitBytes(clientOutputLimit)
                .drainTimeoutMs(drainTimeoutMs)
                .reusePort(reusePort)
                .metricsPort(metricsPort)
                .requirePass(options.requirePass())
                .raas(raas, true));
        }
        catch (final RuntimeException ex)
        {
            raas.close();
            throw ex;
        }
        if (Boolean.getBoolean(PRINT_STARTUP_PROP_NAME))
        {
            System.out.println("dkv compute node startup nanoTime: called=" + calledNs + " raas=" + raasNs + " " +
                node.startPhases() + " serving=" + System.nanoTime());
        }
        // once serving, not before: a command that fails to start leaves its JVM's signals as they were
        final StopSignals signals = StopSignals.install();
        // any other way out of the JVM (SIGHUP, System.exit) drains as well
        final Thread drainOnExit = new Thread(node::close, "dkv-compute-node-stop");
        Runtime.getRuntime().addShutdownHook(drainOnExit);
        final long id = node.nodeId();
        System.out.println(readyLine(id, options.bind(), node.port(), ComputeNode.epoll() ? "epoll" : "nio",
            raas.nodes(NodeRecord.ROLE_MEMORY).size(), options.requirePass() != null, node.metricsPort()));
        System.out.flush();
        AotTraining.markServed(AOT_SERVED_MARKER_PROP_NAME);
        signals.await();
        System.out.printf("dkv compute node %d: %s, draining %d connection(s)%n", id, signals.received(),
            node.connections());
        System.out.flush();
        node.close();
        System.out.printf("dkv compute node %d stopped and deregistered%n", id);
        System.out.flush();
        return 0;
    }


    /**
     * The line that says the node serves. Scripts and dkv's own launchers match its start ({@code dkv compute node ID
     * serving RESP on HOST:PORT }), so what is added goes at its end.
     *
     * @param metricsPort the metrics endpoint's port, or -1 when it serves none.
     */
    static String readyLine(final long id, final String bind, final int port, final String transport,
        final int memoryNodes, final boolean authRequired, final int metricsPort)
    {
        // concatenated, not formatted: a Formatter's first %d loads the locale's number data, 15-20 ms of a join
        return "dkv compute node " + id + " serving RESP on " + bind + ":" + port + " (" + transport + ") over " +
            memoryNodes + " memory node(s)" + (authRequired ? "; AUTH required" : "") +
            (metricsPort < 0 ? "" : "; metrics on http://" + (bind.indexOf(':') >= 0 ? "[" + bind + "]" : bind) + ":" +
                metricsPort + "/metrics");
    }

    /**
     * Parse the common case without picocli: building its model of this command (reflection over the options and their
     * annotations, whose proxies the JDK generates at run time) took about 180 ms of a compute node's start. Only
     * {@code --name value} and {@code --name=value} of the options below (this command's and its
     * {@link ComputeNodeOptions}), and the flag {@code --reuse-port} alone, each once ({@code --meta} as often as
     * wanted), with values that parse: anything else (help, a typo, a missing or repeated option, a flag given a value,
     * a new option not added here) gives null, and the caller parses with picocli, which says what is wrong as it
     * always did.
     *
     * @return the command, or null when picocli must parse these arguments.
     */
    public static ComputeNodeCommand parseSimple(final String[] args)
    {
        final ComputeNodeCommand command = new ComputeNodeCommand();
        command.options.port = ComputeNodeConfiguration.PORT_DEFAULT;
        command.options.bind = ComputeNodeConfiguration.BIND_DEFAULT;
        command.options.provider = ComputeNodeOptions.PROVIDER_DEFAULT;
        command.address = "127.0.0.1:0";
        // the options' defaults are the properties, when set, as picocli's ${sys:...} defaults read them
        command.maxClients = Integer.getInteger(ComputeNodeConfiguration.MAX_CLIENTS_PROP_NAME,
            ComputeNodeConfiguration.MAX_CLIENTS_DEFAULT);
        command.metricsPort = Integer.getInteger(ComputeNodeConfiguration.METRICS_PORT_PROP_NAME,
            ComputeNodeConfiguration.METRICS_PORT_DEFAULT);
        command.clientOutputLimit = Long.getLong(ComputeNodeConfiguration.OUTPUT_LIMIT_PROP_NAME,
            ComputeNodeConfiguration.OUTPUT_LIMIT_DEFAULT);
        command.drainTimeoutMs = Long.getLong(ComputeNodeConfiguration.DRAIN_TIMEOUT_PROP_NAME,
            ComputeNodeConfiguration.DRAIN_TIMEOUT_DEFAULT);
        final Set<String> seen = new HashSet<>();
        final List<String> meta = new ArrayList<>();
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                if (REUSE_PORT.equals(args[i]))
                {
                    if (!seen.add(REUSE_PORT))
                    {
                        return null;
                    }
                    command.reusePort = true;
                    continue;
                }
                final int equals = args[i].indexOf('=');
                final String name = equals < 0 ? args[i] : args[i].substring(0, equals);
                final String value;
                if (equals >= 0)
                {
                    value = args[i].substring(equals + 1);
                }
                else if (i + 1 < args.length && !args[i + 1].startsWith("-"))
                {
                    value = args[++i];
                }
                else
                {
                    return null;
                }
                if (!seen.add(name) && !"--meta".equals(name))
                {
                    return null;
                }
                switch (name)
                {
                    case "--port" -> command.options.port = Integer.parseInt(decimal(value));
                    case "--bind" -> command.options.bind = value;
                    case "--meta" -> meta.addAll(List.of(value.split(",")));
                    case "--cluster-secret-file" -> command.options.cluster.secretFile(Path.of(value));
                    case "--requirepass" -> command.options.requirePass = value;
                    case "--provider" -> command.options.provider = value;
                    case "--address" -> command.address = value;
                    case "--driver" -> command.options.driver = value;
                    case "--node-id" -> command.nodeId = Long.parseLong(decimal(value));
                    case "--max-clients" -> command.maxClients = Integer.parseInt(decimal(value));
                    case "--metrics-port" -> command.metricsPort = Integer.parseInt(decimal(value));
                    case "--client-output-limit" -> command.clientOutputLimit = Long.parseLong(decimal(value));
                    case "--drain-timeout-ms" -> command.drainTimeoutMs = Long.parseLong(decimal(value));
                    // any text, as picocli takes it: call() says what is wrong with a value either way
                    case "--appendonly" -> command.options.appendOnly = value;
                    case "--appendfsync" -> command.options.appendFsync = value;
                    case "--maxmemory" -> command.options.maxMemory = value;
                    default ->
                    {
                        return null;
                    }
                }
            }
        }
        catch (final RuntimeException ex)
        {
            // a value that does not parse: picocli's message names the option
            return null;
        }
        if (command.options.driver == null && (meta.isEmpty() || command.options.cluster.secretFile() == null))
        {
            return null;
        }
        if (!meta.isEmpty())
        {
            command.options.cluster.meta(meta);
        }
        return command;
    }

    /** Plain decimal only: picocli reads other forms (hex, octal, signs) its own way, and so it parses those. */
    private static String decimal(final String value)
    {
        if (!value.matches("0|[1-9][0-9]{0,17}"))
        {
            throw new NumberFormatException(value);
        }
        return value;
    }

    /**
     * The command line of {@code dkv compute-node} alone, with dkv's rules: what {@link #main} parses with when
     * {@link #parseSimple} cannot. {@code ./dkv compute-node} runs that main rather than {@code ./dkv}'s command line:
     * picocli reflects over every subcommand's options, and loads their classes, when it builds one, about 350 ms
     * before any command runs, most of a compute node's join time.
     */
    public static CommandLine commandLine()
    {
        return DkvCommandLine.of(new ComputeNodeCommand());
    }

    /**
     * The compute node's own main, as Aeron's {@code MediaDriver} has one, and what {@code ./dkv compute-node}, the
     * autoscaler and {@code ./dkv up} run: the hand parser when it can, else picocli; a failure is one line naming what
     * was wrong, its stack trace only with DKV_DEBUG set.
     */
    public static void main(final String[] args)
    {
        final ComputeNodeCommand simple = parseSimple(args);
        System.exit(simple == null ? commandLine().execute(args) : callSimple(simple));
    }

    /** As picocli's execute calls a command: its exit status, or one line saying why it failed and 1. */
    private static int callSimple(final ComputeNodeCommand command)
    {
        try
        {
            return command.call();
        }
        catch (final Exception ex)
        {
            return DkvCommandLine.reportFailure(NAME, ex, new PrintWriter(System.err, true));
        }
    }
}
