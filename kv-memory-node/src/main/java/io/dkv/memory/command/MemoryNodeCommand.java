package io.dkv.memory.command;

import io.dkv.agent.CountersFile;
import io.dkv.agent.CountersFileDescriptor;
import io.dkv.agent.CountersStat;
import io.dkv.agent.ErrorFile;
import io.dkv.client.KvClientContext;
import io.dkv.format.HeapLayout;
import io.dkv.format.IndexLayout;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeConfiguration;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.memory.PersistStats;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.command.ClusterOptions;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.command.NodeOptions;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import io.dkv.raas.meta.NodeTokenFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a memory node until interrupted: its driver registers the node with the MetaServer, and
 * the index and heap are published there for clients to find.
 */
@Command(
    name = "memory-node",
    mixinStandardHelpOptions = true,
    description = {
        "Run a memory node: the hash index and the KV heap in registered memory, published through the MetaServer. " +
            "Clients read and write them with one-sided requests; this process only hands out heap chunks.",
        "Stop it with Ctrl-C."
    })
public final class MemoryNodeCommand implements Callable<Integer>
{
    private static final long REPORT_INTERVAL_NANOS = 10_000_000_000L;
    /** How soon a member's ask to restart is acted on. */
    private static final long RESTART_POLL_MS = 100;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Mixin
    private NodeOptions node;

    @Option(names = "--errors",
        description = "Print the errors the memory nodes of this host recorded (each distinct one with how often and " +
            "when it was seen), those running and those that stopped after recording some, or with --node-id that " +
            "node's only, and exit; the nodes run on undisturbed.")
    private boolean errors;

    @Option(names = "--counters",
        description = "Print the counters of the memory nodes running on this host (requests served by kind, " +
            "errors, keys written to disk, ..., and those of the driver each embeds), or with --node-id that node's " +
            "only, one line each: id, label, value; read from their counters files, and exit; the nodes run on " +
            "undisturbed.")
    private boolean counters;

    @Option(names = "--index-groups", defaultValue = "" + MemoryNodeConfiguration.INDEX_GROUPS_DEFAULT,
        description = "Bucket groups of the index, a power of two; each holds 21 keys (default: ${DEFAULT-VALUE}).")
    private int indexGroups;

    @Option(names = "--chunk-bytes", defaultValue = "" + MemoryNodeConfiguration.CHUNK_BYTES_DEFAULT,
        description = "Bytes of each heap chunk a client writes into (default: ${DEFAULT-VALUE}).")
    private int chunkBytes;

    @Option(names = "--data-dir", paramLabel = "DIR",
        description =
            "Where keys are kept on disk (RocksDB) for clients that ask for durability async or sync, and loaded " +
            "back from when the node starts; without it the node keeps keys in memory only.")
    private Path dataDir;

    @Option(names = "--heap-chunks", defaultValue = "" + MemoryNodeConfiguration.HEAP_CHUNKS_DEFAULT,
        description = "Chunks in the heap (default: ${DEFAULT-VALUE}).")
    private int heapChunks;

    @Option(names = "--join",
        description = "Ask to be added to the memory tier by moving keys to this node (placed after only, the " +
            "membership change in fill) rather than found it as a live member at once; asked once the node serves " +
            "its index and heap. Refused while another change runs: the node is registered but no member; " +
            "./dkv meta change --add asks again. Once added, the node drives the change itself: it copies the keys " +
            "that move to it and takes the change through its phases, printing each. Without it a node that is no " +
            "member starts only as a founder of a store not founded yet (./dkv meta --founders); otherwise the " +
            "MetaServer refuses it and the node exits with status 1, printing why.")
    private boolean join;

    /**
     * The node is joining again with no refill running: its lease lapsed while it lived on (a pause, a stalled host),
     * it registered again and the MetaServer lists it joining; or a refill gave up. Nobody reads it until a refill
     * ends, so one starts, rather than leaving its keys a copy short until a restart.
     *
     * @return the refill running now, or the one given.
     */
    private static Thread rejoinAgainIfNeeded(final Rejoin rejoin, final Thread refill)
    {
        if (refill != null && refill.isAlive())
        {
            return refill;
        }
        try
        {
            if (!rejoin.needed())
            {
                return refill;
            }
        }
        catch (final RaasException ex)
        {
            // the MetaServer does not answer: asked again on the next turn
            return refill;
        }
        return Thread.ofPlatform().daemon().name("dkv-memory-node-rejoin").start(rejoin);
    }

    /**
     * Registered as no member, the node asks to be added only now that it serves its index and heap: clients force the
     * writes of the keys that move onto it from the change's first phase on.
     *
     * @return the membership after the ask; the node is no member when it was refused (another change runs).
     */
    private static Membership askToBeAdded(final MetaDirectory directory, final long self)
    {
        final Membership now = directory.membership();
        if (now.state(self) != 0)
        {
            // a member already: restarted during its own add, or added by an operator meanwhile
            return now;
        }
        try
        {
            return directory.beginAdd(self);
        }
        catch (final MetaRpcException ex)
        {
            if (ex.status() != MetaRpcDescriptor.STATUS_CONFLICT)
            {
                throw ex;
            }
            System.out.println("dkv memory node " + self + " is registered but not added: " + ex.getMessage() +
                "; ./dkv meta change --add " + self + " asks again");
            return directory.membership();
        }
    }

    @Option(names = "--drain", paramLabel = "ID",
        description = "Start no memory node: drain memory node ID instead (its keys move to the members that take " +
            "its place while clients run), drive that change through its phases printing each, and exit 0 once the " +
            "node has left the memory tier and can be stopped, 1 when the change was refused or aborted.")
    private long drain;

    @Option(names = "--drive",
        description = "Start no memory node: drive the membership change in progress to its end, from the phase it " +
            "is in, printing each (a change whose driver stopped; from handover on a change can only complete), and " +
            "exit 0 once it is steady, 1 when it was aborted or failed.")
    private boolean drive;

    private int drive(final RaasContext context, final MetaDirectory directory)
    {
        try (Raas raas = RaasDriver.start(context, directory))
        {
            return new MembershipChangeDriver(raas, directory, new KvClientContext(), System.out).run() ? 0 : 1;
        }
    }

    private int drain(final RaasContext context, final MetaDirectory directory)
    {
        try (Raas raas = RaasDriver.start(context, directory))
        {
            final Membership begun;
            try
            {
                begun = directory.beginDrain(drain);
            }
            catch (final RaasException ex)
            {
                System.out.printf("memory node %d cannot be drained: %s%n", drain, ex.getMessage());
                return 1;
            }
            System.out.printf("draining memory node %d: %s%n", drain, begun);
            System.out.flush();
            final boolean done =
                new MembershipChangeDriver(raas, directory, new KvClientContext(), System.out).run();
            if (done)
            {
                System.out.printf("memory node %d has left the memory tier: stop it%n", drain);
            }
            return done ? 0 : 1;
        }
    }

    public Integer call() throws InterruptedException
    {
        final RaasContext context = node.raasContext()
            .role(NodeRecord.ROLE_MEMORY);
        final Path errorDirectory = ErrorFile.hostDirectory(context.verbs().shmDirectory());
        if (errors)
        {
            System.out.print(context.nodeId() == 0 ? ErrorFile.reportAll(errorDirectory, MemoryNode.ERROR_FILE_PREFIX) :
                ErrorFile.report(ErrorFile.fileOf(errorDirectory, MemoryNode.errorFileName(context.nodeId()))));
            return 0;
        }
        final Path countersDirectory = CountersFile.hostDirectory(context.verbs().shmDirectory());
        if (counters)
        {
            spec.commandLine().getOut()
                .print(CountersStat.reportOf(countersDirectory, MemoryNode.ERROR_FILE_PREFIX, context.nodeId()));
            spec.commandLine().getOut().flush();
            return 0;
        }
        cluster.requireMeta(spec.commandLine(), "the MetaServer endpoint(s) the node publishes its index and heap " +
            "through");
        cluster.requireSecretFile(spec.commandLine(), "the file with the cluster secret the MetaServer authenticates " +
            "RPCs with");
        // with a data directory the node keeps its token there: restarted after a crash, it takes its record back at
        // once
        final MetaDirectoryContext directoryContext = cluster.directoryContext()
            .join(join)
            .nodeToken(dataDir != null ? NodeTokenFile.readOrCreate(dataDir) : null)
            .clocksOf(context.conclude());
        final byte[] secret = ClusterSecret.read(cluster.secretFile());
        if (dataDir != null && drain == 0 && !drive)
        {
            if (!checkDataDir(directoryContext, dataDir, context.nodeId(), secret, "start"))
            {
                return 1;
            }
        }
        final MetaDirectory directory = new MetaDirectory(directoryContext);
        // the driver registers the node as it starts: the directory carries the intent the node's context names
        final MemoryNodeContext nodeContext = new MemoryNodeContext()
            .epochClock(context.epochClock())
            .nanoClock(context.nanoClock())
            .indexGroups(indexGroups)
            .chunkBytes(chunkBytes)
            .heapChunks(heapChunks)
            .dataDir(dataDir)
            .clusterSecret(secret)
            .errorDirectory(errorDirectory)
            .join(join)
            // its refill runs the pool's cut (PoolCut) and ends the node's recovery once it is live
            .awaitPoolCut(true);
        if (drain != 0)
        {
            return drain(context.role(NodeRecord.ROLE_CLIENT), directory);
        }
        if (drive)
        {
            return drive(context.role(NodeRecord.ROLE_CLIENT), directory);
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        final Incarnation.Lifecycle lifecycle = new Incarnation.Lifecycle();
        final AtomicLong restartAskedBy = new AtomicLong();
        if (dataDir != null)
        {
            nodeContext.restartFromDisk(restartAskedBy::set);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            lifecycle.stop();
            stopped.countDown();
        }, "dkv-memory-node-stop"));
        MetaDirectory incarnationDirectory = directory;
        while (true)
        {
            final Incarnation incarnation = start(context, incarnationDirectory, nodeContext, countersDirectory,
                dataDir);
            if (incarnation == null)
            {
                return 1;
            }
            if (!lifecycle.serve(incarnation))
            {
                return 0;
            }
            final long asker = serve(incarnation, incarnationDirectory, dataDir, stopped, restartAskedBy);
            if (asker == 0 || !lifecycle.retire(incarnation))
            {
                return 0;
            }
            System.out.printf("memory node %d restarts from its disk: memory node %d found every copy of some keys " +
                "lost while this node served, and the pool comes back at one cut (kv-memory-node/README.md)%n",
                context.nodeId(), asker);
            System.out.flush();
            restartAskedBy.set(0);
            if (!checkDataDir(directoryContext, dataDir, context.nodeId(), secret, "start again"))
            {
                return 1;
            }
            incarnationDirectory = new MetaDirectory(directoryContext);
        }
    }

    /**
     * Before registering: a directory of another node or cluster is refused, and one that held this node's keys makes
     * it a member back with its memory (its disk's), not an empty one.
     *
     * @return false when the directory is refused (said on stderr).
     */
    private boolean checkDataDir(final MetaDirectoryContext directoryContext, final Path dataDir, final long nodeId,
        final byte[] secret, final String what)
    {
        try
        {
            directoryContext.restored(MemoryNode.holdsKeysOf(dataDir, nodeId, secret));
            return true;
        }
        catch (final IllegalStateException ex)
        {
            spec.commandLine().getErr().println("dkv memory-node: memory node " + nodeId + " cannot " + what + ": " +
                ex.getMessage());
            spec.commandLine().getErr().flush();
            return false;
        }
    }

    /**
     * Register the node (its driver) and start it on its data directory.
     *
     * @return the incarnation, or null when the MetaServer refused it (said on stderr).
     */
    private Incarnation start(final RaasContext context, final MetaDirectory directory,
        final MemoryNodeContext nodeContext, final Path countersDirectory, final Path dataDir)
    {
        // one file for the incarnation: the driver's counters and the node's, which ./dkv memory-node --counters reads
        final CountersFile countersFile = CountersFile.create(CountersFile.fileOf(countersDirectory,
            MemoryNode.errorFileName(context.nodeId())), CountersFileDescriptor.MAX_COUNTERS_DEFAULT,
            context.epochClock());
        final Raas raas;
        final MemoryNode node;
        try
        {
            raas = RaasDriver.start(context.countersManager(countersFile.manager()), directory);
        }
        catch (final MetaRpcException ex)
        {
            countersFile.close();
            if (ex.status() != MetaRpcDescriptor.STATUS_CONFLICT)
            {
                throw ex;
            }
            // no member of a founded store, and not asked to join: founding it would serve its keys as absent
            spec.commandLine().getErr().println("dkv memory-node: memory node " + context.nodeId() +
                " cannot start: " + ex.getMessage());
            spec.commandLine().getErr().flush();
            return null;
        }
        catch (final RuntimeException ex)
        {
            countersFile.close();
            throw ex;
        }
        // listed from here on (joining, if it comes back to a store that keeps several copies) while it loads its keys
        final long registeredIncarnation = raas.self().epoch();
        final long registeredAtNanos = System.nanoTime();
        try
        {
            node = MemoryNode.start(raas, nodeContext.countersManager(countersFile.manager()));
        }
        catch (final RuntimeException ex)
        {
            raas.close();
            countersFile.close();
            throw ex;
        }
        System.out.printf("dkv memory node %d serving index '%s' (%,d slots) and heap '%s' (%,d MiB) at %s; %s%n",
            node.nodeId(), HeapLayout.indexRegionName(node.nodeId()),
            (long)indexGroups * 3 * IndexLayout.SLOTS_PER_BUCKET,
            HeapLayout.heapRegionName(node.nodeId()), ((long)chunkBytes * heapChunks) >> 20, raas.self().address(),
            dataDir == null ? "keys in memory only" :
            String.format("keys on disk in %s, %,d loaded", dataDir, node.keysRecovered()));
        System.out.flush();
        return new Incarnation(raas, node, countersFile, registeredIncarnation, registeredAtNanos);
    }

    /**
     * Serve as the incarnation until the process stops or a member asks it to restart from its disk.
     *
     * @return the asking member's id, or 0 when the process stops.
     */
    private long serve(final Incarnation incarnation, final MetaDirectory directory, final Path dataDir,
        final CountDownLatch stopped, final AtomicLong restartAskedBy) throws InterruptedException
    {
        final Raas raas = incarnation.raas();
        final MemoryNode node = incarnation.node();
        final Rejoin rejoin = new Rejoin(raas, node, directory, dataDir != null, System.out,
            incarnation.registeredIncarnation(), incarnation.registeredAtNanos());
        Thread refill = null;
        final Membership membership = join ? askToBeAdded(directory, raas.self().id()) : directory.membership();
        if (join && membership.phase() == Membership.FILL &&
            membership.placement(raas.self().id()) == Membership.PLACED_AFTER)
        {
            // added by moving keys: this node drives its own change, while it serves the writes forced onto it
            Thread.ofPlatform().daemon().name("dkv-memory-node-join").start(
                () -> new MembershipChangeDriver(raas, directory, new KvClientContext(), System.out).run());
        }
        else if (rejoin.needed())
        {
            // its copies are refilled while it serves the ones already right: nobody reads it until it is live
            refill = Thread.ofPlatform().daemon().name("dkv-memory-node-rejoin").start(rejoin);
        }
        if (refill == null)
        {
            // serving as a member from the start: no cut will roll its keys back (kv-memory-node/README.md)
            node.endRecovery();
        }
        long reported = 0;
        long nextReportNanos = System.nanoTime() + REPORT_INTERVAL_NANOS;
        while (!stopped.await(RESTART_POLL_MS, TimeUnit.MILLISECONDS))
        {
            final long asker = restartAskedBy.get();
            if (asker != 0)
            {
                if (refill != null)
                {
                    // its refill reads a pool that is coming back at a cut: it starts again with the next incarnation
                    refill.interrupt();
                }
                return asker;
            }
            if (System.nanoTime() - nextReportNanos < 0)
            {
                continue;
            }
            nextReportNanos = System.nanoTime() + REPORT_INTERVAL_NANOS;
            refill = rejoinAgainIfNeeded(rejoin, refill);
            final PersistStats stats = node.persistStats();
            if (stats.keysPersisted() != reported)
            {
                reported = stats.keysPersisted();
                System.out.printf("persisted %,d key writes in %,d batches; the last %.1f ms behind its requests, at " +
                    "most %.1f ms; %,d heap chunks handed out, %,d came back%n", reported, stats.batches(),
                    stats.lastLagNanos() / 1e6,
                    stats.maxLagNanos() / 1e6, node.chunksAllocated(), node.chunksReclaimed());
                System.out.flush();
            }
        }
        return 0;
    }

    /**
     * The memory node's own main, as Aeron's {@code MediaDriver} has one: {@code java -cp ... MemoryNodeCommand ARGS}
     * runs what {@code ./dkv memory-node ARGS} runs, without the rest of the dkv command line.
     */
    public static void main(final String[] args)
    {
        DkvCommandLine.run(new MemoryNodeCommand(), args);
    }
}
