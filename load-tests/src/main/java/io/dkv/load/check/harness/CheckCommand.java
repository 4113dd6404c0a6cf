package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.client.KvClientConfiguration;
import io.dkv.load.check.nemesis.ClockFault;
import io.dkv.load.check.nemesis.ClusterShape;
import io.dkv.load.check.nemesis.FaultKind;
import io.dkv.load.check.nemesis.FaultKinds;
import io.dkv.load.check.nemesis.FlappingPartitionFault;
import io.dkv.load.check.nemesis.LongPauseFault;
import io.dkv.load.check.nemesis.MemoryPauseFault;
import io.dkv.load.check.nemesis.MetaPauseFault;
import io.dkv.load.check.nemesis.MemoryTierChanges;
import io.dkv.load.check.nemesis.NemesisEvent;
import io.dkv.load.check.nemesis.NemesisTargets;
import io.dkv.load.check.nemesis.Nemeses;
import io.dkv.load.check.store.FaultyStores;
import io.dkv.load.check.workload.RedisQueueWorkload;
import io.dkv.load.check.workload.RegisterWorkload;
import io.dkv.load.check.workload.ScriptBankWorkload;
import io.dkv.load.check.workload.Workload;
import io.dkv.load.check.workload.Workloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
            "(Elle) checker, a queue for elements lost or delivered twice. With --through compute the clients talk " +
            "RESP to compute node processes, which the nemesis strikes too. With --replicas R each key is kept on R " +
            "memory nodes, and the kill-memory nemesis takes one down past its lease; add-memory and drain-memory " +
            "grow and shrink the memory tier.",
        "Writes to --dir: history.jsonl (every invocation and completion), verdict.txt, timeline.html (operations " +
            "over time, faults shaded, the witnesses of a violation red), nemesis.log and the processes' logs.",
        "When --time ends the nemesis heals every fault, waits for every role to be back, and every client reads " +
            "every key: a run whose final reads fail is UNRECOVERED.",
        "Exit code: 0 valid, 3 invalid (a violation found), 4 unknown (the checker ran out of time), 5 unrecovered, " +
            "1 the test could not run, 2 a usage error."
    })
public final class CheckCommand implements Callable<Integer>
{
    private static final String DRIVER = "driver";
    private static final String COMPUTE = "compute";
    private static final String DRIVER_ASYNC = "driver-async";
    private static final String COMPUTE_ASYNC = "compute-async";
    private static final int COMPUTE_NODES_DEFAULT = 2;
    /** How many times --time a run may go on past it for --min-ok. */
    private static final int MIN_OK_GRACE = 4;

    @Option(names = "--time", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
        description = "How long the clients run under the nemesis, e.g. 30s, 2m (default: ${DEFAULT-VALUE}).")
    private Duration time;

    @Option(names = "--nemesis", paramLabel = "KIND", defaultValue = "kill,pause", split = ",",
        description =
            "Faults: kill, pause, partition, scale (with --autoscale), kill-memory (with --replicas 2 or more), or " +
            "none; partitions put the roles on test hosts in network namespaces (tcp provider) and need root, else " +
            "they are skipped with the reason. kill-memory: SIGKILL of one memory node, left dead for its lease " +
            "(so the MetaServer declares it down and clients use the other copies) and 1-3 s more, then restarted: " +
            "it comes back joining, refills its copies and is live again. With --replicas 2 or more no memory node " +
            "is killed (kill or kill-memory) while any is down or joining; the strike is skipped and logged. " +
            "add-memory: a memory node started with --join (a new node id) moves its keys to itself through the " +
            "change's phases (some 15 s); the memory tier grows to --memory-nodes + 2 at most. drain-memory: " +
            "memory-node --drain moves a member's keys to the others, and the node is stopped once it has left; " +
            "never fewer members than --replicas (at least one). Asked both, the nemesis adds and drains in turn. " +
            "No change starts while another runs or a member is down or joining, and no memory node is killed " +
            "while a change runs; a change left unfinished (its driver failed) is aborted, or its cleanup ended, as " +
            "an operator would. The clients follow the membership rather than a list of memory nodes. long-pause: " +
            "SIGSTOP of a client process, the driver or a compute node for " + LongPauseFault.PAUSE_MS / 1000 +
            " s, past the memory nodes' grace period, with what it had in flight. kill-mid-write: SIGKILL, the " +
            "moment a client has a write or compare-and-set (an enqueue or a blocking dequeue) in flight, of that " +
            "client or of the driver or compute node it goes through, restarted after the hold. one-way-partition: " +
            "one group of test hosts cannot send to the other, which still reaches it. flapping-partition: cut and " +
            "healed every " +
            FlappingPartitionFault.FLAP_MS + "-" + 2 * FlappingPartitionFault.FLAP_MS + " ms, between other groups " +
            "each time, for the hold. clock: one role's wall clock stepped by 0.5-" + ClockFault.STEP_MS / 1000 +
            " s either way, or its clocks run " + ClockFault.SLOW + "-0.75x or 1.5-" + ClockFault.FAST + "x true " +
            "time, for " + ClockFault.HOLD_MS / 1000 + "-" + (ClockFault.HOLD_MS + 6_000) / 1000 + " s, then set " +
            "right (every role's clocks then read a control file; the history keeps true time). pause-meta: SIGSTOP " +
            "of the MetaServer for " + MetaPauseFault.PAUSE_MS / 1000 + " s, past its lease and the window in which " +
            "it takes a frame as fresh; pause-memory: SIGSTOP of every memory node at once for " +
            MemoryPauseFault.PAUSE_MS / 1000 + " s and the hold, past their leases, while every one is live. " +
            "kill-all-memory: SIGKILL of every memory node at once, each restarted on its data directory, in a drawn " +
            "order, within its lease or after it (every other strike): every in-memory copy lost, the disks the " +
            "only truth. kill-refilling: SIGKILL of one memory node, restarted, then of another while the first " +
            "refills, restarted after the hold (needs --replicas 2). kill-cluster: SIGKILL of every role but the " +
            "clients (MetaServer, memory nodes, driver, compute nodes) at once, each started again after the hold; " +
            "restart-cluster: the same with a clean stop (SIGTERM, compute nodes first) (default: ${DEFAULT-VALUE}).")
    private List<String> nemesis;

    @Option(names = "--workload", paramLabel = "NAME", defaultValue = RegisterWorkload.NAME,
        description = "register (read, write, compare-and-set; linearizability), list-append (appends by " +
            "compare-and-set loops and reads; Elle), txn-list-append (transactions of reads and appends over " +
            "several keys; Elle), bank (transfers and snapshots in transactions; no money made or lost) or " +
            "redis-list-append (transactions of RPUSH and LRANGE over real lists, MULTI/EXEC through compute " +
            "nodes; Elle) or redis-queue (RPUSH of unique elements and BLPOP with half the --timeout, then a drain " +
            "by LRANGE; no element lost, delivered twice or from nowhere; --through compute only, a few --keys) or " +
            "redis-bank-script (the bank's transfers and snapshots as EVAL and EVAL_RO scripts; no money made or " +
            "lost; --through compute only) (default: ${DEFAULT-VALUE}).")
    private String workload;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "2",
        description = "Client processes (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "12",
        description = "Worker threads over all clients, each a process of the history (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--rate", paramLabel = "OPS", defaultValue = "700",
        description = "Operations per second over all clients (default: ${DEFAULT-VALUE}).")
    private double rate;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "8",
        description = "Keys the workload uses (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--memory-nodes", paramLabel = "N", defaultValue = "2",
        description = "Memory nodes (default: ${DEFAULT-VALUE}).")
    private int memoryNodes;

    @Option(names = "--replicas", paramLabel = "R", defaultValue = "1",
        description = "Copies of each key, the MetaServer's setting (1.." + KvClientConfiguration.MAX_REPLICAS +
            ", at most --memory-nodes); every client takes it from the directory, through the driver or a compute " +
            "node (default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--through", paramLabel = "PATH", defaultValue = DRIVER,
        description = "What the clients use: driver (a KvClient attached to the host's driver), driver-async (the " +
            "same, through its asynchronous forms, which completions carry), compute (RESP to " +
            "compute node processes: GET, SET, SET IFEQ; the nemesis kills and pauses them too) or compute-async " +
            "(the same, the compute nodes' commands carried by completions and replayed, as over tcp or verbs) " +
            "(default: ${DEFAULT-VALUE}).")
    private String through;

    @Option(names = "--appendfsync", paramLabel = "always|everysec", defaultValue = "always",
        description = "With --through compute: the compute nodes' appendfsync. Under always no acknowledged write " +
            "may be lost; under everysec a crash of every copy (kill-all-memory, kill-cluster, kill-refilling) may " +
            "lose what was acknowledged within --loss-window before it, and the checkers take each such operation " +
            "as of unknown outcome, counted in the verdict (default: ${DEFAULT-VALUE}).")
    private String appendFsync;

    @Option(names = "--loss-window", paramLabel = "DURATION", defaultValue = "1500ms",
        converter = DurationConverter.class,
        description = "Under --appendfsync everysec: how long before a crash of every copy an acknowledged write may " +
            "be lost: the memory nodes' fsync interval (1 s) and a PERSIST's trip, with a margin; an operation in " +
            "flight at the crash may be lost too, and under kill-refilling one acknowledged until the pool came " +
            "back at its cut (the members that served restart from their disks). 0 excuses only those: the " +
            "checkers then show what everysec lost (default: ${DEFAULT-VALUE}).")
    private Duration lossWindow;

    @Option(names = "--compute-nodes", paramLabel = "N",
        description = "Compute nodes with --through compute, the clients spread over them (default: 2).")
    private Integer computeNodes;

    @Option(names = "--autoscale", paramLabel = "MIN..MAX",
        description =
            "With --through compute: the compute nodes are run by an autoscaler between MIN and MAX, all on one " +
            "port, instead of --compute-nodes; the nemesis kills and pauses the nodes it runs, and its scale fault " +
            "makes it add and drain nodes.")
    private String autoscale;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "6s", converter = DurationConverter.class,
        description = "Mean quiet time between faults (default: ${DEFAULT-VALUE}).")
    private Duration interval;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "2s", converter = DurationConverter.class,
        description = "Deadline of one client operation (default: ${DEFAULT-VALUE}).")
    private Duration timeout;

    @Option(names = "--check-budget", paramLabel = "DURATION", defaultValue = "60s",
        converter = DurationConverter.class,
        description = "Time the checker may take before it answers unknown (default: ${DEFAULT-VALUE}).")
    private Duration budget;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
        description = "Seed of the workload and the nemesis (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Result directory (default: <tmp>/dkv-check/<date-time>).")
    private Path dir;

    @Option(names = "--inject", paramLabel = "FAULT", defaultValue = "none",
        description =
            "To test the harness itself: a deliberately faulty layer in every client between it and the store, " +
            FaultyStores.NAMES + "; the verdict must then be invalid (default: ${DEFAULT-VALUE}).")
    private String inject;

    @Option(names = "--recovery", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
        description = "When --time ends the nemesis heals every fault; the recovery phase then waits this long at " +
            "most for every role to be back (memory nodes live, no membership change running), and as long again " +
            "for every client to read every key (a failed read tried again). A run whose final reads did not all " +
            "succeed is UNRECOVERED (default: ${DEFAULT-VALUE}).")
    private Duration recovery;

    @Option(names = "--min-ok", paramLabel = "N", defaultValue = "0",
        description = "Past --time, keep the clients and the nemesis going until the histories hold N operations " +
            "completed ok, for at most " + MIN_OK_GRACE + " x --time more (a run that cannot reach them says so and " +
            "goes on to recovery): a slow or loaded machine then still gives the checker something to check " +
            "(default: ${DEFAULT-VALUE}, none).")
    private long minOk;

    @Option(names = "--faults-at-once", paramLabel = "N", defaultValue = "1",
        description = "Nemeses striking side by side (1 to 4), each at --interval with a seed of its own, so that " +
            "faults overlap: a pause during a partition, two kills at once. The first causes every kind asked for; " +
            "the others those that hold one role each (kill, pause, kill-memory, long-pause, kill-mid-write, " +
            "clock). No role is struck by two faults together, and with several copies per key no memory node while " +
            "another is (default: ${DEFAULT-VALUE}).")
    private int faultsAtOnce;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "1",
        description = "Run N times back to back, with seeds --seed, --seed + 1, ..., each in a directory of its own " +
            "(seed-S under --dir), and write a summary table of them (summary.txt): seed, nemesis, operations ok, " +
            "failed and of unknown outcome, faults, recovery, verdict, checker time. The exit code is the worst " +
            "run's (default: ${DEFAULT-VALUE}).")
    private int runs;

    public Integer call() throws Exception
    {
        validate();
        final Path results = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"), "dkv-check",
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        final PrintStream out = System.out;
        if (runs == 1)
        {
            return runOnce(out, results, seed).exitCode();
        }
        final RunSummaries summaries = new RunSummaries(results.resolve(RunSummaries.FILE));
        for (int run = 0; run < runs; run++)
        {
            final long runSeed = seed + run;
            out.printf("dkv check: run %d of %d, seed %d%n", run + 1, runs, runSeed);
            RunSummaries.Run summary;
            try
            {
                summary = runOnce(out, results.resolve("seed-" + runSeed), runSeed);
            }
            catch (final InterruptedException ex)
            {
                throw ex;
            }
            catch (final Exception ex)
            {
                out.println("dkv check: run of seed " + runSeed + " could not be made: " + ex);
                summary = RunSummaries.Run.error(runSeed, nemesisText(), ex);
            }
            summaries.add(summary);
            out.println(summaries.line(summary));
        }
        out.println(summaries.table());
        out.println("dkv check: summary of " + runs + " runs in " + results.resolve(RunSummaries.FILE));
        return summaries.exitCode();
    }

    private RunSummaries.Run runOnce(final PrintStream out, final Path results, final long seed) throws Exception
    {
        Files.createDirectories(results);
        final List<String> nemesisLog = Collections.synchronizedList(new ArrayList<>());
        final Consumer<String> log = line ->
        {
            nemesisLog.add(line);
            out.println(line);
        };
        final List<FaultKind> kinds = faultKinds();
        final TestHosts hosts =
            kinds.stream().anyMatch(FaultKind::needsTestHosts) ? testHosts(out, nemesisLog, kinds) : null;
        final long origin = System.nanoTime();
        final int computes = throughCompute() ? computeNodes == null ? COMPUTE_NODES_DEFAULT : computeNodes : 0;
        final int[] bounds = autoscaleBounds();
        final boolean tierChanges = kinds.stream().anyMatch(FaultKind::changesMemoryTier);
        final CheckCluster cluster = new CheckCluster(results, hosts, memoryNodes, replicas,
            bounds == null ? computes : 1,
            bounds == null ? null : new CheckCluster.Autoscale(bounds[0], bounds[1], log), tierChanges,
            new CheckCluster.Clients(clients, workload, keys, concurrency, rate, timeout.toMillis(), inject, seed,
                DRIVER_ASYNC.equals(through) || COMPUTE_ASYNC.equals(through), recovery.toMillis(), appendFsync),
            origin);
        final Thread stopOnExit = new Thread(cluster::close, "dkv-check-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        final List<NemesisEvent> faults;
        final FinalReadsCheck.Phases phases;
        try
        {
            out.printf("dkv check: %s workload through %s, %d client processes x %d workers, %.0f ops/s over %d " +
                "keys, %s, nemesis %s, seed %d, %s; results in %s%n", workload, through, clients,
                concurrency / clients, rate, keys, format(time), FaultKinds.text(kinds),
                seed, hosts == null ? "all on this host (shm)" :
                    hosts.size() + " test hosts in network namespaces (tcp)", results);
            cluster.clockFaults(kinds.stream().anyMatch(FaultKind::skewsClocks)).start();
            out.printf("dkv check: cluster up (MetaServer, %d memory nodes keeping %d cop%s of each key, %s) and %d " +
                "clients; running %s%n", memoryNodes, replicas, replicas == 1 ? "y" : "ies", cluster.storeName(),
                clients, format(time));

            final MemoryTierChanges tier = tierChanges ? cluster.memoryTierChanges(log) : MemoryTierChanges.none();
            final NemesisTargets targets = new NemesisTargets(cluster.roles(), hosts, cluster.hostNames(), origin,
                cluster.autoscaler(), bounds == null ? 0 : cluster.calmTarget(),
                bounds == null ? 0 : cluster.surgeTarget(), cluster.memoryNodeKills(), tier, cluster.writesInFlight());
            final Nemeses nemeses = Nemeses.start(kinds, faultsAtOnce, targets, interval.toMillis(), seed, log);
            sleepShowingProgress(out, time);
            awaitOk(out, log, cluster);
            final long healFrom = System.nanoTime() - origin;
            log.accept("recovery: the nemesis stops and heals every fault");
            nemeses.stop();
            faults = nemeses.events();
            final String notBack = nemeses.awaitEveryRoleBack(System.nanoTime() + recovery.toNanos());
            log.accept(notBack == null ? String.format(Locale.ROOT, "recovery: every role is back after %.3f s",
                (System.nanoTime() - origin - healFrom) / 1e9) :
                "recovery: not every role came back within " + format(recovery) + ": " + notBack);
            final long readsFrom = System.nanoTime() - origin;
            log.accept("recovery: every client reads every key");
            // the clients' own deadline, and time for one whose read was under way at it to answer
            for (final String report : cluster.finalReads(System.nanoTime() + recovery.toNanos() +
                timeout.toNanos() + 2_000_000_000L))
            {
                log.accept("recovery: final reads of " + report);
            }
            phases = new FinalReadsCheck.Phases(healFrom, readsFrom, System.nanoTime() - origin);
        }
        finally
        {
            cluster.close();
            removeHook(stopOnExit);
        }

        final History recorded = HistoryMerger.merge(cluster.historyFiles());
        final EverysecLosses.Adjusted adjusted = "everysec".equals(appendFsync) ?
            EverysecLosses.apply(recorded, faults, lossWindow.toNanos()) : new EverysecLosses.Adjusted(recorded, 0);
        final History history = adjusted.history();
        if ("everysec".equals(appendFsync))
        {
            final String excused = String.format(Locale.ROOT, "appendfsync everysec: %,d operations acknowledged " +
                "within %s of a crash of every copy (or, under kill-refilling, from then until the pool came back " +
                "at its cut) taken as of unknown outcome (they may be lost)", adjusted.excused(), format(lossWindow));
            out.println("dkv check: " + excused);
            log.accept(excused);
        }
        out.printf("dkv check: %,d operations recorded; checking (budget %s)%n", history.operations().size(),
            format(budget));
        final List<String> keyNames = new ArrayList<>();
        for (final Workload.Invocation read : Workloads.of(workload, keys).finalReads())
        {
            keyNames.add(read.target());
        }
        final FinalReadsCheck.Recovery recovered =
            FinalReadsCheck.judge(recorded, clients, CheckCluster.PROCESSES_PER_CLIENT, keyNames, phases);
        final long checkStart = System.nanoTime();
        final CheckResult result = ResultDirectory.checkAndWrite(results,
            "dkv check: " + workload + " through " + through + (replicas == 1 ? "" : ", " + replicas + " copies") +
                ", nemesis " + nemesisText() + ", seed " + seed, workload, history, faults, nemesisLog, budget,
            recovered);
        final long checkNanos = System.nanoTime() - checkStart;
        out.println(result.text());
        out.printf("dkv check: %s (%s): %,d operations, %d faults; history, verdict and timeline in %s%n",
            result.verdict(), result.checker(), history.operations().size(), faults.size(), results);
        return RunSummaries.Run.of(seed, nemesisText(), history, faults.size(), recovered, result.verdict(),
            checkNanos);
    }

    private String nemesisText()
    {
        return FaultKinds.text(faultKinds());
    }

    private void validate()
    {
        if (minOk < 0)
        {
            throw new IllegalArgumentException("--min-ok " + minOk + " is negative: operations ok to wait for");
        }
        if (clients < 1 || concurrency < clients)
        {
            throw new IllegalArgumentException("--clients " + clients + " and --concurrency " + concurrency +
                ": at least one client and a worker per client");
        }
        if (memoryNodes < 1 || memoryNodes > 8)
        {
            throw new IllegalArgumentException("--memory-nodes " + memoryNodes + " is not in [1, 8]");
        }
        if (replicas < 1 || replicas > KvClientConfiguration.MAX_REPLICAS || replicas > memoryNodes)
        {
            throw new IllegalArgumentException("--replicas " + replicas + " is not in [1, " +
                KvClientConfiguration.MAX_REPLICAS + "] or exceeds --memory-nodes " + memoryNodes +
                ": each copy of a key is on a memory node of its own");
        }
        if (!"always".equals(appendFsync) && !"everysec".equals(appendFsync))
        {
            throw new IllegalArgumentException("--appendfsync " + appendFsync + " is neither always nor everysec");
        }
        if ("everysec".equals(appendFsync) && !throughCompute())
        {
            throw new IllegalArgumentException("--appendfsync everysec is the compute nodes' setting: use it with " +
                "--through compute or compute-async (the driver's clients write under durability sync)");
        }
        if (lossWindow.isNegative())
        {
            throw new IllegalArgumentException("--loss-window " + format(lossWindow) + " is negative");
        }
        final ClusterShape cluster = new ClusterShape(memoryNodes, replicas, autoscale != null);
        final String refused = FaultKinds.refusal(faultKinds(), cluster);
        if (refused != null)
        {
            throw new IllegalArgumentException(refused);
        }
        if (faultsAtOnce < 1 || faultsAtOnce > 4)
        {
            throw new IllegalArgumentException("--faults-at-once " + faultsAtOnce + " is not in [1, 4]");
        }
        if (faultsAtOnce > 1 && FaultKinds.overlapping(faultKinds()).isEmpty())
        {
            throw new IllegalArgumentException("--faults-at-once " + faultsAtOnce + " needs a nemesis that holds one " +
                "role at a time beside the others (" + FaultKinds.text(FaultKinds.overlapping(FaultKinds.all()), ", ") +
                "), not " + nemesisText());
        }
        if (runs < 1 || recovery.isNegative() || recovery.isZero())
        {
            throw new IllegalArgumentException("--runs " + runs + " and --recovery " + format(recovery) +
                " must be positive");
        }
        if (rate <= 0 || keys < 1)
        {
            throw new IllegalArgumentException("--rate " + rate + " and --keys " + keys + " must be positive");
        }
        if (!DRIVER.equals(through) && !throughCompute() && !DRIVER_ASYNC.equals(through))
        {
            throw new IllegalArgumentException("unknown --through '" + through +
                "': expected driver, driver-async, compute or compute-async");
        }
        if (computeNodes != null && (!throughCompute() || computeNodes < 1 || computeNodes > 8))
        {
            throw new IllegalArgumentException("--compute-nodes " + computeNodes +
                " needs --through compute and is in [1, 8]");
        }
        if (autoscale != null && (!throughCompute() || computeNodes != null))
        {
            throw new IllegalArgumentException("--autoscale " + autoscale + " needs --through compute and takes the " +
                "place of --compute-nodes");
        }
        autoscaleBounds();
        Workloads.of(workload, keys);
        FaultyStores.requireKnown(inject);
        refuseQueueMismatch();
    }

    /**
     * A client of the driver has no blocking pop and runs no script, and the faulty layers other than duplicate-pops
     * pass no blocking pops, those other than split-scripts no scripts.
     */
    private void refuseQueueMismatch()
    {
        final boolean scripts = ScriptBankWorkload.NAME.equals(workload);
        if (scripts && !throughCompute())
        {
            throw new IllegalArgumentException("--workload " + workload + " needs --through compute: its transfers " +
                "and snapshots are EVAL scripts, which compute nodes run and a client of the driver has no form of; " +
                "--through " + through);
        }
        if (scripts && !FaultyStores.passesScripts(inject))
        {
            throw new IllegalArgumentException("--inject " + inject + " runs no scripts: with --workload " +
                workload + " inject none, " + FaultyStores.SPLIT_SCRIPTS + " or " +
                FaultyStores.META_WITHOUT_STALL_CHECK);
        }
        if (!scripts && FaultyStores.SPLIT_SCRIPTS.equals(inject))
        {
            throw new IllegalArgumentException("--inject " + inject + " breaks scripts, which only --workload " +
                ScriptBankWorkload.NAME + " runs, not --workload " + workload);
        }
        final boolean queue = RedisQueueWorkload.NAME.equals(workload);
        if (queue && !throughCompute())
        {
            throw new IllegalArgumentException("--workload " + workload + " needs --through compute: its dequeues " +
                "are BLPOPs, which compute nodes serve and a client of the driver has no form of; --through " +
                through);
        }
        if (queue && !FaultyStores.passesBlockingPops(inject))
        {
            throw new IllegalArgumentException("--inject " + inject + " serves no blocking pops: with --workload " +
                workload + " inject none, " + FaultyStores.DUPLICATE_POPS + " or " +
                FaultyStores.META_WITHOUT_STALL_CHECK);
        }
        if (!queue && FaultyStores.DUPLICATE_POPS.equals(inject))
        {
            throw new IllegalArgumentException("--inject " + inject + " breaks blocking pops, which only --workload " +
                RedisQueueWorkload.NAME + " makes, not --workload " + workload);
        }
    }

    /**
     * @return {MIN, MAX} of --autoscale, or null without it; an error naming the value when it is not 1 <= MIN <= MAX
     * <= 8.
     */
    private int[] autoscaleBounds()
    {
        if (autoscale == null)
        {
            return null;
        }
        final Matcher range = Pattern.compile("(\\d{1,2})\\.\\.(\\d{1,2})")
            .matcher(autoscale.strip());
        final int min = range.matches() ? Integer.parseInt(range.group(1)) : -1;
        final int max = range.matches() ? Integer.parseInt(range.group(2)) : -1;
        if (min < 1 || max < min || max > 8)
        {
            throw new IllegalArgumentException("--autoscale " + autoscale +
                " is not MIN..MAX with 1 <= MIN <= MAX <= 8");
        }
        return new int[]{min, max};
    }

    /** @return the kinds --nemesis names, each once, in a list of the caller's own. */
    private List<FaultKind> faultKinds()
    {
        return FaultKinds.parse(nemesis);
    }

    /**
     * @return test hosts for the roles, or null (partitions then left out of {@code kinds}) with the reason printed.
     */
    private TestHosts testHosts(final PrintStream out, final List<String> nemesisLog, final List<FaultKind> kinds)
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
        final String skipped =
            "nemesis: partitions skipped: test hosts in network namespaces cannot be made here (" + reason +
            "); the cluster runs on this host with the shm provider";
        out.println(skipped);
        nemesisLog.add(skipped);
        kinds.removeIf(FaultKind::needsTestHosts);
        return null;
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
                out.printf("dkv check: %d s of %d s%n", time.toSeconds() - (end - System.nanoTime()) / 1_000_000_000L,
                    time.toSeconds());
                nextReport += 10_000_000_000L;
            }
        }
    }

    /** Past --time: on until the histories hold --min-ok operations completed ok, or the grace is over. */
    private void awaitOk(final PrintStream out, final Consumer<String> log, final CheckCluster cluster)
        throws InterruptedException
    {
        if (minOk <= 0)
        {
            return;
        }
        final long end = System.nanoTime() + MIN_OK_GRACE * time.toNanos();
        long ok = OkOperations.count(cluster.historyFiles());
        if (ok < minOk)
        {
            out.printf("dkv check: %,d operations ok of the %,d --min-ok asks; running on (at most %s more)%n", ok,
                minOk, format(time.multipliedBy(MIN_OK_GRACE)));
        }
        while (ok < minOk && System.nanoTime() < end)
        {
            Thread.sleep(200);
            ok = OkOperations.count(cluster.historyFiles());
        }
        log.accept(ok >= minOk ? String.format(Locale.ROOT, "workload: %,d operations ok (--min-ok %,d)", ok, minOk) :
            String.format(Locale.ROOT, "workload: only %,d operations ok of --min-ok %,d within %s past --time", ok,
                minOk, format(time.multipliedBy(MIN_OK_GRACE))));
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

    /** @return true where the clients talk RESP to compute nodes (--through compute or compute-async). */
    private boolean throughCompute()
    {
        return COMPUTE.equals(through) || COMPUTE_ASYNC.equals(through);
    }
}
