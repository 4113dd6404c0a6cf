package io.dkv.compute.autoscale;

import io.dkv.compute.ComputeNodeOptions;
import io.dkv.compute.StopSignals;
import io.dkv.raas.command.DkvCommandLine;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * {@code ./dkv autoscale}: runs this host's compute nodes, between a minimum and a maximum, all on one RESP port
 * (SO_REUSEPORT: the kernel spreads new connections over them), starting and draining them as their load asks, until
 * interrupted; then it drains them all.
 */
@Command(
    name = "autoscale",
    mixinStandardHelpOptions = true,
    resourceBundle = "io.dkv.compute.autoscale.AutoscaleCommand",
    description = {
        "Run this host's compute nodes between --min and --max, all serving one RESP port (SO_REUSEPORT), and scale " +
            "them by their load as Kubernetes' HorizontalPodAutoscaler does: every --sync-period it reads each " +
            "node's metrics endpoint and wants ceil(nodes x mean/target) nodes, doing nothing within --tolerance of " +
            "the target, scaling down only to the highest recommendation of the --scale-down-window.",
        "Stop it with Ctrl-C or SIGTERM: it drains every node (each stops accepting, answers what it read, " +
            "deregisters)."
    })
public final class AutoscaleCommand implements Callable<Integer>
{
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    @Option(names = "--min", defaultValue = "" + AutoscalerConfiguration.MIN_NODES_DEFAULT,
        description = "Fewest compute nodes (default: ${DEFAULT-VALUE}).")
    private int min;

    @Option(names = "--max", defaultValue = "" + AutoscalerConfiguration.MAX_NODES_DEFAULT,
        description = "Most compute nodes (default: ${DEFAULT-VALUE}).")
    private int max;

    @Option(names = "--metric", defaultValue = "ops",
        description = "What each node is held to: ops (commands/s), cpu (0..1 of the host), connections, or p99 " +
            "(seconds) (default: ${DEFAULT-VALUE}).")
    private String metric;

    @Option(names = "--target", paramLabel = "VALUE",
        description = "The figure wanted per node (default: 20000 ops, 0.5 cpu, 1000 connections, 0.001 p99).")
    private Double target;

    @Option(names = "--tolerance", defaultValue = "" + AutoscalerConfiguration.TOLERANCE_DEFAULT,
        description = "No change while mean/target is within 1 +- this (default: ${DEFAULT-VALUE}).")
    private double tolerance;

    @Option(names = "--sync-period", defaultValue = "15s", paramLabel = "DURATION",
        description = "How often the load is read and a decision made (default: ${DEFAULT-VALUE}).")
    private String syncPeriod;

    @Option(names = "--scale-up-window", defaultValue = "0s", paramLabel = "DURATION",
        description = "Scale up only as far as the lowest recommendation within this window (default: " +
            "${DEFAULT-VALUE}).")
    private String upWindow;

    @Option(names = "--scale-down-window", defaultValue = "300s", paramLabel = "DURATION",
        description = "Scale down only as far as the highest recommendation within this window (default: " +
            "${DEFAULT-VALUE}).")
    private String downWindow;

    /** Given to every node; their help, worded for the nodes this runs, is in this command's resource bundle. */
    @Mixin
    private ComputeNodeOptions node;

    @Option(names = "--node-heap", defaultValue = "256m", description = "Each node's -Xmx (default: ${DEFAULT-VALUE}).")
    private String nodeHeap;

    @Option(names = "--node-jvm-option", paramLabel = "OPTION",
        description = "An option for each node's JVM, e.g. -Ddkv.compute.max.clients=20000; may be repeated.")
    private List<String> nodeJvmOptions = new ArrayList<>();

    @Option(names = "--log-dir", paramLabel = "DIR",
        description = "Where each node's log goes (default: a new directory under the system's temporary one).")
    private Path logDir;

    public Integer call() throws InterruptedException
    {
        node.requireCluster();
        // a bad value fails here, once, not in every node it would start
        node.requireDurability();
        final String bind = node.bind();
        final int servedPort = node.port() == 0 ? freePort(bind) : node.port();
        final Path logs = logDir != null ? logDir : temporaryLogDir();
        final List<String> arguments = node.arguments(servedPort);
        arguments.addAll(List.of("--reuse-port", "--metrics-port", "0"));
        if ("tcp".equals(node.provider()) && node.driver() == null)
        {
            arguments.addAll(List.of("--address", bind + ":0"));
        }
        final AutoscalerContext context = new AutoscalerContext()
            .minNodes(min)
            .maxNodes(max)
            .metric(ScalingMetric.parse(metric))
            .target(target == null ? Double.NaN : target)
            .tolerance(tolerance)
            .syncPeriodMs(Durations.parseMillis("--sync-period", syncPeriod))
            .upWindowMs(Durations.parseMillis("--scale-up-window", upWindow))
            .downWindowMs(Durations.parseMillis("--scale-down-window", downWindow))
            .metricsHost(bind.equals("0.0.0.0") || bind.equals("::") ? "127.0.0.1" : bind)
            .launcher(new ProcessNodeLauncher(List.of(), nodeJvmOptions, arguments, nodeHeap, logs));
        // stamped by the autoscaler's clock: its context's, filled in once the autoscaler concluded it
        final Consumer<String> out = line -> print(context.epochClock(), line);
        context.events(out);
        final StopSignals signals = StopSignals.install();
        final IdleStrategy idle = new SleepingMillisIdleStrategy(20);
        try (Autoscaler autoscaler = new Autoscaler(context))
        {
            while (autoscaler.serving() < min && signals.received() == null)
            {
                idle.idle(autoscaler.doWork());
            }
            // the nodes' metrics endpoints last, for ./dkv up's table; a node added later gives its own on its
            // "serving after" line
            out.accept(String.format("serving RESP on %s:%d through %d compute node(s) (between %d and %d; metric " +
                "%s, target %s per node; logs in %s); metrics on %s", bind, servedPort, autoscaler.serving(), min, max,
                context.metric(), Autoscaler.figure(context.target()), logs,
                String.join(", ", autoscaler.servingNodes().stream().map(autoscaler::metricsUrl).toList())));
            while (signals.received() == null)
            {
                idle.idle(autoscaler.doWork());
            }
            out.accept(signals.received() + ": draining " + autoscaler.running() + " compute node(s)");
        }
        out.accept("stopped");
        return 0;
    }

    private static void print(final EpochClock clock, final String line)
    {
        final LocalTime time = LocalTime.ofInstant(Instant.ofEpochMilli(clock.time()), ZoneId.systemDefault());
        System.out.println("dkv autoscale " + time.format(TIME) + ": " + line);
        System.out.flush();
    }

    private static int freePort(final String bind)
    {
        try (ServerSocket socket = new ServerSocket())
        {
            socket.bind(new InetSocketAddress(InetAddress.getByName(bind), 0));
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot find a free port on " + bind + ": " + ex.getMessage(), ex);
        }
    }

    private static Path temporaryLogDir()
    {
        try
        {
            return Files.createTempDirectory("dkv-autoscale-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make a directory for the nodes' logs: " + ex.getMessage(), ex);
        }
    }

    /**
     * The autoscaler's own main, as Aeron's {@code MediaDriver} has one: {@code java -cp ... AutoscaleCommand ARGS}
     * runs what {@code ./dkv autoscale ARGS} runs, with the same rules (a failure is one line), without the rest of the
     * dkv command line.
     */
    public static void main(final String[] args)
    {
        DkvCommandLine.run(new AutoscaleCommand(), args);
    }
}
