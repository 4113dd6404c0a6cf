package io.dkv.load.check.harness;

import io.dkv.checker.history.HistoryRecorder;
import io.dkv.load.check.store.CheckedStore;
import io.dkv.load.check.store.FaultyStores;
import io.dkv.load.check.store.KvCheckedStore;
import io.dkv.load.check.store.RespCheckedStore;
import io.dkv.load.check.workload.RegisterWorkload;
import io.dkv.load.check.workload.Workload;
import io.dkv.load.check.workload.WorkloadRunner;
import io.dkv.load.check.workload.Workloads;
import io.dkv.raas.command.DkvCommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code dkv check-client}: one client process of {@code dkv check}. It attaches to the host's
 * driver (or, with {@code --compute}, talks RESP to compute nodes), runs the workload until
 * SIGTERM or the final reads' signal, and writes every invocation and completion to its own
 * history file as it happens (a SIGKILL leaves the history up to that moment). Once the signal's file appears
 * (every fault healed), it reads every key and reports what it found.
 */
@Command(name = "check-client", hidden = true, mixinStandardHelpOptions = true,
    description = "A client process of dkv check (started by it): runs a workload and records its history.")
public final class CheckClientCommand implements Callable<Integer>
{
    static final String READY = "dkv check client ready";
    static final String FINAL_READS = "dkv check client final reads";
    private static final long SIGNAL_POLL_MS = 50;

    @Option(names = "--driver", description = "Name of the host's driver to attach to.")
    private String driverName;

    @Option(names = "--memory-nodes", split = ",",
        description = "Memory node ids, comma-separated (with --driver); without it, the members of the memory tier " +
            "as the client attaches.")
    private long[] memoryNodes;

    @Option(names = "--async", description = "With --driver: the client's asynchronous forms, each waited for.")
    private boolean async;

    @Option(names = "--compute", split = ",", paramLabel = "HOST:PORT",
        description = "Compute nodes to talk RESP to instead of a driver, the one to use first first.")
    private List<String> computeNodes;

    @Option(names = "--workload", defaultValue = RegisterWorkload.NAME,
        description = "register, list-append, txn-list-append, bank, redis-list-append or redis-queue.")
    private String workload;

    @Option(names = "--keys", defaultValue = "8", description = "Keys the workload uses.")
    private int keys;

    @Option(names = "--threads", defaultValue = "3", description = "Worker threads, each a process of the history.")
    private int threads;

    @Option(names = "--rate", defaultValue = "50", description = "Operations per second of this client.")
    private double rate;

    @Option(names = "--process-base", required = true, description = "First process number of the history.")
    private int processBase;

    @Option(names = "--origin-nanos", required = true, description = "System.nanoTime at which the history began.")
    private long originNanos;

    @Option(names = "--history", required = true, description = "JSON lines file for the events.")
    private Path history;

    @Option(names = "--timeout-ms", defaultValue = "2000", description = "Deadline of one operation.")
    private int timeoutMs;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the workload's randomness.")
    private long seed;

    @Option(names = "--inject", defaultValue = "none",
        description = "A fault between this client and the store: none, " +
        FaultyStores.NAMES + ".")
    private String inject;

    @Option(names = "--final-reads-signal", paramLabel = "FILE",
        description = "A file whose appearance ends the workload: the client then reads every key (a failed read " +
            "tried again until --final-reads-timeout-ms) and writes what it found to --final-reads-report.")
    private Path finalReadsSignal;

    @Option(names = "--final-reads-report", paramLabel = "FILE",
        description = "Where the final reads' outcome goes, one line (with --final-reads-signal).")
    private Path finalReadsReport;

    @Option(names = "--final-reads-timeout-ms", defaultValue = "30000",
        description = "How long the final reads may take in all (default: ${DEFAULT-VALUE}).")
    private long finalReadsTimeoutMs;

    public Integer call() throws InterruptedException, IOException
    {
        final Workload chosen = Workloads.of(workload, keys);
        final CheckedStore store = store();
        final HistoryRecorder recorder = new HistoryRecorder(history, originNanos);
        final WorkloadRunner runner = new WorkloadRunner(
            chosen, FaultyStores.inject(inject, store), recorder, threads, rate, processBase, timeoutMs, seed);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            runner.close();
            recorder.close();
            closeQuietly(store);
            stopped.countDown();
        }, "check-client-stop"));
        runner.start();
        System.out.println(READY + ": " + threads + " workers, " + chosen.name() + " over " + keys +
            " keys, history in " + history);
        System.out.flush();
        if (finalReadsSignal == null)
        {
            stopped.await();
            return 0;
        }
        while (!stopped.await(SIGNAL_POLL_MS, TimeUnit.MILLISECONDS))
        {
            if (Files.exists(finalReadsSignal))
            {
                runner.close();
                final WorkloadRunner.FinalReads reads = runner.finalReads(
                    TimeUnit.MILLISECONDS.toNanos(finalReadsTimeoutMs), TimeUnit.MILLISECONDS.toNanos(SIGNAL_POLL_MS));
                final Path partial = finalReadsReport.resolveSibling(finalReadsReport.getFileName() + ".part");
                Files.writeString(partial, reads.describe() + "\n", StandardCharsets.UTF_8);
                Files.move(partial, finalReadsReport, StandardCopyOption.ATOMIC_MOVE);
                System.out.println(FINAL_READS + ": " + reads.describe());
                System.out.flush();
                stopped.await();
                return 0;
            }
        }
        return 0;
    }

    private CheckedStore store()
    {
        if ((finalReadsSignal == null) != (finalReadsReport == null))
        {
            throw new IllegalArgumentException("--final-reads-signal " + finalReadsSignal + " and " +
                "--final-reads-report " + finalReadsReport + " go together");
        }
        if ((computeNodes == null) == (driverName == null) || (memoryNodes != null && driverName == null))
        {
            throw new IllegalArgumentException("either --driver (and --memory-nodes) or --compute, " +
                "not both or neither: driver " + driverName + ", compute nodes " + computeNodes);
        }
        return computeNodes != null ? new RespCheckedStore(computeNodes, timeoutMs) :
            new KvCheckedStore(driverName, memoryNodes == null ? new long[0] : memoryNodes, timeoutMs, async);
    }

    private static void closeQuietly(final CheckedStore store)
    {
        try
        {
            ((AutoCloseable)store).close();
        }
        catch (final Exception ex)
        {
            System.out.println("closing the store: " + ex);
        }
    }

    /**
     * What {@code dkv check} starts each client process with ({@code RoleProcess}): this command alone, as
     * {@code ./dkv check-client} runs it, without picocli's model of every other dkv command.
     */
    public static void main(final String[] args)
    {
        DkvCommandLine.run(new CheckClientCommand(), args);
    }
}
