package io.dkv.load.check.harness;

import io.dkv.load.check.history.History;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code dkv check}: a Jepsen-style test of the store. It starts a cluster as processes (a
 * MetaServer, memory nodes keeping their keys on disk, the host's driver) and client processes
 * that run a workload, lets a nemesis kill, pause and partition them while they run, then joins
 * the clients' histories, checks them and writes a result directory.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {
        "Test the store the Jepsen way: a cluster of processes (MetaServer, memory nodes with data directories, the " +
            "host's driver) and client processes running a workload under faults (SIGKILL and restart, SIGSTOP and " +
            "SIGCONT, partitions), then the history checked: registers for linearizability, lists by the list-append " +
            "(Elle) checker.",
        "Writes to --dir: history.jsonl (every invocation and completion), verdict.txt, timeline.html (operations " +
            "over time, faults shaded, the witnesses of a violation red), nemesis.log and the processes' logs.",
        "Exit code: 0 valid, 3 invalid (a violation found), 4 unknown (the checker ran out of time), 1 the test could not run, " +
            "2 a usage error."
    })
public final class CheckCommand implements Callable<Integer>
{
    private static final Pattern META_READY = Pattern.compile("(?m)^(meta:\\S+)\\s*$");
    private static final Pattern MEMORY_NODE_READY = Pattern.compile("dkv memory node (\\d+) serving");
    private static final Pattern DRIVER_READY = Pattern.compile("serving node (\\d+) at (\\S+);");
    private static final Pattern CLIENT_READY = Pattern.compile(CheckClientCommand.READY);
    private static final long FIRST_MEMORY_NODE_ID = 101;
    private static final int META_PORT = 7400;
    private static final int PROCESSES_PER_CLIENT = 1_000_000;
    private static final int PROCESSES_PER_INCARNATION = 10_000;

    @Option(names = "--time", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
        description = "How long the clients run under the nemesis, e.g. 30s, 2m (default: ${DEFAULT-VALUE}).")
    private Duration time;

    @Option(names = "--nemesis", paramLabel = "KIND", defaultValue = "kill,pause", split = ",",
        description = "Faults: kill, pause, partition, or none; partitions put the roles on test hosts in network " +
            "namespaces (tcp provider) and need root, else they are skipped with the reason (default: ${DEFAULT-VALUE}).")
    private List<String> nemesis;

    @Option(names = "--workload", paramLabel = "NAME", defaultValue = RegisterWorkload.NAME,
        description = "register (read, write, compare-and-set; linearizability) or list-append (appends by " +
            "compare-and-set loops and reads; Elle) (default: ${DEFAULT-VALUE}).")
    private String workload;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "2",
        description = "Client processes (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "6",
        description = "Worker threads over all clients, each a process of the history (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--rate", paramLabel = "OPS", defaultValue = "100",
        description = "Operations per second over all clients (default: ${DEFAULT-VALUE}).")
    private double rate;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "8",
        description = "Keys the workload uses (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--memory-nodes", paramLabel = "N", defaultValue = "2",
        description = "Memory nodes (default: ${DEFAULT-VALUE}).")
    private int memoryNodes;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "6s", converter = DurationConverter.class,
        description = "Mean quiet time between faults (default: ${DEFAULT-VALUE}).")
    private Duration interval;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "2s", converter = DurationConverter.class,
        description = "Deadline of one client operation (default: ${DEFAULT-VALUE}).")
    private Duration timeout;

    @Option(names = "--check-budget", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
        description = "Time the checker may take before it answers unknown (default: ${DEFAULT-VALUE}).")
    private Duration budget;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
        description = "Seed of the workload and the nemesis (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--dir", paramLabel = "DIR", description = "Result directory (default: <tmp>/dkv-check/<date-time>).")
    private Path dir;

    @Option(names = "--inject", paramLabel = "FAULT", defaultValue = "none",
        description = "To test the harness itself: a deliberately faulty layer in every client between it and the store, " +
            FaultyStores.NAMES + "; the verdict must then be invalid (default: ${DEFAULT-VALUE}).")
    private String inject;

    public Integer call() throws Exception
    {
        validate();
        final Path results = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"), "dkv-check",
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        Files.createDirectories(results);
        final Path logs = Files.createDirectories(results.resolve("logs"));
        final Path data = Files.createDirectories(results.resolve("data"));
        final Path histories = Files.createDirectories(results.resolve("histories"));
        final PrintStream out = System.out;
        final List<String> nemesisLog = Collections.synchronizedList(new ArrayList<>());
        final List<String> kinds = faultKinds();
        final TestHosts hosts = kinds.contains(Nemesis.PARTITION) ? testHosts(out, nemesisLog, kinds) : null;
        final String provider = hosts == null ? "shm" : "tcp";
        // hosts: the MetaServer, each memory node, then the driver with the clients
        final int driverHost = memoryNodes + 1;

        final long origin = System.nanoTime();
        final List<Role> cluster = new ArrayList<>();
        final List<Role> clientRoles = new ArrayList<>();
        final List<Path> historyFiles = Collections.synchronizedList(new ArrayList<>());
        final Thread stopOnExit = new Thread(() -> stopAll(clientRoles, cluster, hosts), "dkv-check-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        final List<NemesisEvent> faults;
        try
        {
            out.printf("dkv check: %s workload, %d client processes x %d workers, %.0f ops/s over %d keys, %s, nemesis %s, " +
                "%s; results in %s%n", workload, clients, concurrency / clients, rate, keys, format(time),
                kinds.isEmpty() ? "none" : String.join(",", kinds),
                hosts == null ? "all on this host (shm)" : hosts.size() + " test hosts in network namespaces (tcp)", results);
            final String driverName = "dkv-check-" + ProcessHandle.current().pid();
            final List<String> metaArguments = new ArrayList<>(List.of("meta", "--node-id", "1", "--provider", provider,
                "--data-dir", data.resolve("meta").toString()));
            if (hosts != null)
            {
                // a fixed port: a restarted MetaServer must be found where the others know it
                metaArguments.addAll(List.of("--address", hosts.address(0) + ":" + META_PORT));
            }
            final Role meta = new Role("MetaServer", "256m", incarnation -> metaArguments, META_READY, logs, "meta", on(hosts, 0))
                .start();
            cluster.add(meta);
            final String endpoint = meta.readyGroup(1);
            final long[] nodeIds = new long[memoryNodes];
            for (int i = 0; i < memoryNodes; i++)
            {
                final long id = FIRST_MEMORY_NODE_ID + i;
                final int host = i + 1;
                nodeIds[i] = id;
                cluster.add(new Role("memory node " + id, "512m",
                    incarnation -> List.of("memory-node", "--node-id", Long.toString(id), "--provider", provider, "--meta", endpoint,
                        "--address", (hosts == null ? "127.0.0.1" : hosts.address(host)) + ":0",
                        "--index-groups", "1024", "--heap-chunks", "32", "--data-dir", data.resolve("memory-node-" + id).toString()),
                    MEMORY_NODE_READY, logs, "memory-node-" + id, on(hosts, host)).start());
            }
            cluster.add(new Role("driver", "512m",
                incarnation -> List.of("driver", "--name", driverName, "--provider", provider, "--meta", endpoint,
                    "--address", (hosts == null ? "127.0.0.1" : hosts.address(driverHost)) + ":0"),
                DRIVER_READY, logs, "driver", on(hosts, driverHost)).start());
            final String nodes = Arrays.stream(nodeIds).mapToObj(Long::toString).collect(Collectors.joining(","));
            for (int i = 0; i < clients; i++)
            {
                final int client = i;
                final int threads = concurrency / clients + (i < concurrency % clients ? 1 : 0);
                final Role role = new Role("client " + i, "256m", incarnation ->
                {
                    final Path history = histories.resolve("client-" + client + "." + incarnation + ".jsonl");
                    historyFiles.add(history);
                    return List.of("check-client", "--driver", driverName, "--memory-nodes", nodes, "--workload", workload,
                        "--keys", Integer.toString(keys), "--threads", Integer.toString(threads),
                        "--rate", Double.toString(rate * threads / concurrency),
                        "--process-base", Integer.toString(client * PROCESSES_PER_CLIENT + incarnation * PROCESSES_PER_INCARNATION),
                        "--origin-nanos", Long.toString(origin), "--history", history.toString(),
                        "--timeout-ms", Long.toString(timeout.toMillis()), "--inject", inject,
                        "--seed", Long.toString(seed * 7919 + client * 31L + incarnation));
                }, CLIENT_READY, logs, "client-" + i, on(hosts, driverHost));
                clientRoles.add(role.start());
            }
            out.printf("dkv check: cluster up (MetaServer, %d memory nodes, driver '%s') and %d clients; running %s%n",
                memoryNodes, driverName, clients, format(time));

            final List<Role> targets = new ArrayList<>(cluster);
            targets.addAll(clientRoles);
            final List<String> hostNames = new ArrayList<>();
            for (int host = 0; host <= driverHost; host++)
            {
                hostNames.add(host == 0 ? "MetaServer" : host == driverHost ? "driver and clients" : cluster.get(host).name());
            }
            final Nemesis strikes = new Nemesis(kinds, targets, hosts, hostNames, origin, interval.toMillis(), seed, line ->
            {
                nemesisLog.add(line);
                out.println(line);
            });
            final Thread nemesisThread = new Thread(strikes, "dkv-check-nemesis");
            nemesisThread.start();
            sleepShowingProgress(out, time);
            strikes.stop(nemesisThread);
            faults = strikes.events();
            // a quiet end: operations after every fault is healed show the store came back
            Thread.sleep(Math.min(3_000, timeout.toMillis() + 1_000));
        }
        finally
        {
            stopAll(clientRoles, cluster, hosts);
            removeHook(stopOnExit);
        }

        final History history = HistoryMerger.merge(historyFiles.stream().filter(Files::exists).toList());
        out.printf("dkv check: %,d operations recorded; checking (budget %s)%n", history.operations().size(), format(budget));
        final CheckResult result = ResultDirectory.checkAndWrite(results,
            "dkv check: " + workload + ", nemesis " + (kinds.isEmpty() ? "none" : String.join(",", kinds)), workload, history,
            faults, nemesisLog, budget);
        out.println(result.text());
        out.printf("dkv check: %s (%s): %,d operations, %d faults; history, verdict and timeline in %s%n",
            result.verdict(), result.checker(), history.operations().size(), faults.size(), results);
        return result.verdict().exitCode();
    }

    private void validate()
    {
        if (clients < 1 || concurrency < clients)
        {
            throw new IllegalArgumentException("--clients " + clients + " and --concurrency " + concurrency +
                ": at least one client and a worker per client");
        }
        if (memoryNodes < 1 || memoryNodes > 8)
        {
            throw new IllegalArgumentException("--memory-nodes " + memoryNodes + " is not in [1, 8]");
        }
        if (rate <= 0 || keys < 1)
        {
            throw new IllegalArgumentException("--rate " + rate + " and --keys " + keys + " must be positive");
        }
        Workloads.of(workload, keys);
        FaultyStores.requireKnown(inject);
        for (final String kind : nemesis)
        {
            if (!"none".equals(kind) && !Nemesis.KINDS.contains(kind))
            {
                throw new IllegalArgumentException("unknown nemesis '" + kind + "': expected kill, pause, partition or none");
            }
        }
    }

    private List<String> faultKinds()
    {
        final List<String> kinds = new ArrayList<>();
        for (final String kind : nemesis)
        {
            if (!"none".equals(kind) && !kinds.contains(kind))
            {
                kinds.add(kind);
            }
        }
        return kinds;
    }

    /**
     * @return test hosts for the roles, or null (partitions then left out of {@code kinds}) with the reason printed.
     */
    private TestHosts testHosts(final PrintStream out, final List<String> nemesisLog, final List<String> kinds)
    {
        String reason = TestHosts.unavailableReason();
        if (reason == null)
        {
            try
            {
                return TestHosts.create(memoryNodes + 2);
            }
            catch (final RuntimeException ex)
            {
                reason = ex.getMessage();
            }
        }
        final String skipped = "nemesis: partition skipped: test hosts in network namespaces cannot be made here (" + reason +
            "); the cluster runs on this host with the shm provider";
        out.println(skipped);
        nemesisLog.add(skipped);
        kinds.remove(Nemesis.PARTITION);
        return null;
    }

    private static List<String> on(final TestHosts hosts, final int host)
    {
        return hosts == null ? List.of() : hosts.exec(host);
    }

    private static void sleepShowingProgress(final PrintStream out, final Duration time) throws InterruptedException
    {
        final long end = System.nanoTime() + time.toNanos();
        long nextReport = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < end)
        {
            Thread.sleep(Math.min(200, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
            if (System.nanoTime() > nextReport && System.nanoTime() < end)
            {
                out.printf("dkv check: %d s of %d s%n", time.toSeconds() - (end - System.nanoTime()) / 1_000_000_000L, time.toSeconds());
                nextReport += 10_000_000_000L;
            }
        }
    }

    private static void stopAll(final List<Role> clients, final List<Role> cluster, final TestHosts hosts)
    {
        // clients first, so their last operations still find the cluster
        for (final Role role : clients)
        {
            role.stop();
        }
        for (int i = cluster.size() - 1; i >= 0; i--)
        {
            cluster.get(i).stop();
        }
        if (hosts != null)
        {
            hosts.close();
        }
    }

    private static void removeHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the hook runs anyway
        }
    }

    private static String format(final Duration duration)
    {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }
}
