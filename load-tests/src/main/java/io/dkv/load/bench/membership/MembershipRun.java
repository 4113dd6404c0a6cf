package io.dkv.load.bench.membership;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.process.RoleProcess;
import io.dkv.raas.Membership;
import io.dkv.raas.Raas;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One run of the benchmark: start the cluster, load the keys, then under a steady client load measure a window
 * before any change, a memory node's join, and its drain; read every key back at the end.
 */
final class MembershipRun
{
    static final String BEFORE = "before";
    static final String DURING_JOIN = "during the join";
    static final String DURING_DRAIN = "during the drain";
    private static final long POLL_MS = 20;

    /**
     * How the run is made.
     *
     * @param provider        the verbs provider of every process.
     * @param memoryNodes     founding memory nodes.
     * @param replicas        copies of each key.
     * @param keySpace        the keys loaded.
     * @param loaders         threads that load and verify the keys.
     * @param rate            the steady load's operations a second.
     * @param readers         threads of the steady load that read.
     * @param writers         threads of the steady load that update.
     * @param windowMs        length of the window before the change, and of the warm-up before it.
     * @param timeoutMs       every client's operation timeout.
     * @param drain           whether the joined node is drained again.
     * @param changeTimeoutMs how long a change may take before the run gives up.
     */
    record Settings(String provider, int memoryNodes, int replicas, KeySpace keySpace, int loaders, int rate,
        int readers, int writers, long windowMs, int timeoutMs, boolean drain, long changeTimeoutMs)
    {
    }

    /**
     * A membership change as the benchmark saw it and as its driver printed it.
     *
     * @param nodeId      the memory node added or drained.
     * @param wallNanos   from the exec of the process that drives it to the end the benchmark saw.
     * @param copiesMoved copies of keys placed on another memory node after it than before it (at one copy, keys).
     * @param log         what its driver printed.
     */
    record Change(long nodeId, long wallNanos, long copiesMoved, ChangeLog log)
    {
    }

    /**
     * What the run measured.
     *
     * @param heapBytes       each founding memory node's heap.
     * @param joinerHeapBytes the joining memory node's heap.
     * @param load      putting every key, before any change.
     * @param windows   the steady load's windows: before, during the join, during the drain (when run).
     * @param join      the join.
     * @param drain     the drain, or null when not run.
     * @param verify    reading every key back at the end.
     * @param logs      where the processes' logs are.
     */
    record Result(Settings settings, long heapBytes, long joinerHeapBytes, KeyLoader.Pass load, List<Window> windows,
        Change join, Change drain, KeyLoader.Pass verify, Path logs)
    {
        Window before()
        {
            return windows.getFirst();
        }
    }

    private final Settings settings;
    private final PrintWriter progress;

    MembershipRun(final Settings settings, final PrintWriter progress)
    {
        this.settings = settings;
        this.progress = progress;
    }

    Result run(final Path directory) throws Exception
    {
        final long joinerId = MembershipCluster.FIRST_MEMORY_NODE_ID + settings.memoryNodes();
        final KeySpace keySpace = settings.keySpace();
        print("starting a MetaServer (--replicas %d) and %d memory nodes on %s, logs in %s",
            settings.replicas(), settings.memoryNodes(), settings.provider(), directory);
        try (MembershipCluster cluster = MembershipCluster.start(directory, settings.provider(),
            settings.memoryNodes(), settings.replicas(), keySpace, settings.timeoutMs());
            Raas raas = cluster.clientRaas();
            KvClient client = KvClient.connect(raas, new KvClientContext().timeoutMs(settings.timeoutMs())))
        {
            print("memory nodes' heaps: %s MiB each, the joining one's %s MiB", ByteSize.mebibytes(cluster.heapBytes()),
                ByteSize.mebibytes(cluster.joinerHeapBytes()));
            final KeyLoader loader = new KeyLoader(client, keySpace, settings.loaders(), progress);
            final KeyLoader.Pass load = loader.load();
            final Placements beforeJoin = Placements.of(client, keySpace);
            final List<Window> windows = new ArrayList<>();
            final Change join;
            Change drain = null;
            final RoleProcess joiner;
            try (ClientLoad clients = new ClientLoad(client, keySpace, settings.rate(), settings.readers(),
                settings.writers()))
            {
                print("steady load: %,d operations/s on %d reader and %d writer threads; warm-up and window before " +
                    "the change, %,d ms each", settings.rate(), settings.readers(), settings.writers(),
                    settings.windowMs());
                Thread.sleep(settings.windowMs());
                clients.begin(BEFORE);
                Thread.sleep(settings.windowMs());
                windows.add(clients.end());

                print("joining memory node %d (./dkv memory-node --join)", joinerId);
                clients.begin(DURING_JOIN);
                final long joinStarted = System.nanoTime();
                joiner = cluster.join(joinerId);
                awaitMembership(raas, joiner, m -> m.phase() == Membership.STEADY &&
                    m.placement(joinerId) == Membership.PLACED, "memory node " + joinerId + " added");
                final long joinNanos = System.nanoTime() - joinStarted;
                windows.add(clients.end());
                final Placements afterJoin = placements(raas);
                join = new Change(joinerId, joinNanos, beforeJoin.copiesMovedTo(afterJoin), awaitLog(joiner));
                print("memory node %d joined in %,d ms: %,d copies moved, %,d of them copied by its fill", joinerId,
                    TimeUnit.NANOSECONDS.toMillis(joinNanos), join.copiesMoved(), join.log().keysCopied());

                if (settings.drain())
                {
                    print("draining memory node %d (./dkv memory-node --drain %d)", joinerId, joinerId);
                    clients.begin(DURING_DRAIN);
                    final long drainStarted = System.nanoTime();
                    final RoleProcess drainer = cluster.drain(joinerId);
                    final int exit = awaitExit(drainer);
                    final long drainNanos = System.nanoTime() - drainStarted;
                    windows.add(clients.end());
                    if (exit != 0)
                    {
                        throw new IllegalStateException(drainer.name() + " exited with " + exit + ":\n" +
                            drainer.logTail());
                    }
                    drain = new Change(joinerId, drainNanos, afterJoin.copiesMovedTo(placements(raas)),
                        awaitLog(drainer));
                    print("memory node %d drained in %,d ms: %,d copies moved, %,d of them copied by its fill",
                        joinerId, TimeUnit.NANOSECONDS.toMillis(drainNanos), drain.copiesMoved(),
                        drain.log().keysCopied());
                }
            }
            if (drain != null)
            {
                // it has left the memory tier: every key read now is read from the nodes it was drained to
                joiner.close();
            }
            final KeyLoader.Pass verify = loader.verify();
            return new Result(settings, cluster.heapBytes(), cluster.joinerHeapBytes(), load, windows, join, drain,
                verify, directory);
        }
    }

    /** @return the keys' placement now: a client connected now reads the membership as it is. */
    private Placements placements(final Raas raas)
    {
        try (KvClient fresh = KvClient.connect(raas, new KvClientContext().timeoutMs(settings.timeoutMs())))
        {
            return Placements.of(fresh, settings.keySpace());
        }
    }

    private void awaitMembership(final Raas raas, final RoleProcess driver, final Predicate<Membership> done,
        final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.changeTimeoutMs());
        Membership membership = raas.membership();
        while (!done.test(membership))
        {
            // an aborted or failed change says so in its driver's output
            ChangeLog.parse(read(driver));
            if (!driver.isAlive())
            {
                throw new IllegalStateException(driver.name() + " exited before " + what + ":\n" + driver.logTail());
            }
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException(what + " not within " + settings.changeTimeoutMs() + " ms: " +
                    membership + "\n" + driver.logTail());
            }
            Thread.sleep(POLL_MS);
            membership = raas.membership();
        }
    }

    private int awaitExit(final RoleProcess driver) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.changeTimeoutMs());
        while (driver.isAlive())
        {
            if (System.nanoTime() > deadline)
            {
                driver.close();
                throw new IllegalStateException(driver.name() + " did not end within " + settings.changeTimeoutMs() +
                    " ms:\n" + driver.logTail());
            }
            Thread.sleep(POLL_MS);
        }
        return driver.stop(RoleProcess.EXIT_TIMEOUT_MS);
    }

    /** The driver prints the change's end just after the MetaServer has it: wait for that line. */
    private ChangeLog awaitLog(final RoleProcess driver) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RoleProcess.EXIT_TIMEOUT_MS);
        ChangeLog log = ChangeLog.parse(read(driver));
        while (log == null)
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException(driver.name() + " printed no end of the membership change within " +
                    RoleProcess.EXIT_TIMEOUT_MS + " ms:\n" + driver.logTail());
            }
            Thread.sleep(POLL_MS);
            log = ChangeLog.parse(read(driver));
        }
        return log;
    }

    private static String read(final RoleProcess process)
    {
        try
        {
            return Files.readString(process.log());
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read " + process.name() + "'s log " + process.log(), ex);
        }
    }

    private void print(final String format, final Object... args)
    {
        progress.printf(Locale.ROOT, format + "%n", args);
        progress.flush();
    }
}
