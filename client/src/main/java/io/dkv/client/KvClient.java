package io.dkv.client;

import io.dkv.client.async.AsyncGet;
import io.dkv.client.async.AsyncGets;
import io.dkv.client.async.AsyncSlowPath;
import io.dkv.client.async.AsyncWrite;
import io.dkv.client.async.CompletionPolling;
import io.dkv.client.index.BatchRead;
import io.dkv.client.keyspace.KeyPattern;
import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.client.node.MemoryNodeDisk;
import io.dkv.client.node.HeapLimits;
import io.dkv.client.node.MemoryNodeHeap;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.client.ordered.OrderedKeyspace;
import io.dkv.client.replication.ChainRest;
import io.dkv.client.replication.ChangeLedger;
import io.dkv.client.replication.PersistRequests;
import io.dkv.client.replication.ReplicaChain;
import io.dkv.client.replication.ReplicaCopier;
import io.dkv.client.txn.AsyncTransactionBody;
import io.dkv.client.txn.CommitKeys;
import io.dkv.client.txn.ConflictRetry;
import io.dkv.client.txn.IntentResolver;
import io.dkv.client.txn.PreparedSwap;
import io.dkv.client.txn.RawKeys;
import io.dkv.client.txn.ReadsNeeded;
import io.dkv.client.txn.ReplayedTransaction;
import io.dkv.client.txn.Resolutions;
import io.dkv.client.txn.Transaction;
import io.dkv.client.txn.TransactionBody;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.client.txn.TxnServices;
import io.dkv.format.HeapLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.verbs.PortAddress;
import org.agrona.concurrent.EpochClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The KV store's client: keys of 1 B to 64 KiB, values of 0 B to 1 MiB, spread over memory nodes by
 * rendezvous hashing and read and written with one-sided requests through RaaS. Operations on one
 * key are linearizable. Thread-safe: each thread has its own logical connections, buffers and heap
 * chunks. The asynchronous forms are carried by their requests' completions, so one thread can keep many GETs and
 * writes in flight; what completions cannot carry runs synchronously on the client's own threads
 * ({@code dkv.client.async.threads}).
 *
 * <p>Expiry: a write may give its value an expiry time, in epoch milliseconds ({@code expireAtMillis},
 * {@link #NO_EXPIRY} for none), kept in the value's block. From then on the key has no value for
 * every read and write, as redis's expired keys, judged by the context's {@code epochClock}. A write
 * that gives no expiry writes a value without one (redis's SET); to keep the key's expiry (KEEPTTL,
 * INCR) pass {@link Versioned#expireAtMillis()} of the version read to
 * {@link #compareAndSetVersion(byte[], Versioned, byte[], long)}.
 *
 * <p>Past the usual length because it is the store's whole public API, each operation in its blocking,
 * {@code MemorySegment} and asynchronous forms with its contract: every method checks its arguments and hands the work
 * to this thread's {@link KvSession} and the packages below it.
 */
public final class KvClient implements AutoCloseable
{
    /** The expiry time of a value that never expires. */
    public static final long NO_EXPIRY = KvBlockLayout.NEVER;
    /** What {@link #multiGetMarking} answers for a key that holds a collection: compared by identity. */
    public static final byte[] COLLECTION = BatchRead.COLLECTION;
    /** What {@link #multiGetMarking} answers for a string in pieces (io.dkv.client.pieces), by identity. */
    public static final byte[] PIECES = BatchRead.PIECES;
    /** Keys a step of {@link #countKeys} and {@link #flush} asks for. */
    private static final int FLUSH_STEP = 1024;
    /**
     * The longest pause between runs of a transaction in conflict: it doubles from 2 us per run, so that transactions
     * that take long (durability sync, several keys) stop meeting each other.
     */
    private static final long MAX_BACKOFF_NANOS = 10_000_000;

    private final Raas[] lanes;
    /** Whether a lane's requests wait on a wire or a NIC: its provider, fixed at connect (kept across restarts). */
    private final boolean requestsWaitOnWire;
    private final KvClientContext context;
    /**
     * The memory nodes as each lane looked them up (null: not read yet): a lane's connections use regions it looked
     * up itself.
     */
    private final MemoryNodeView[][] nodesByLane;
    private final MemoryNodeAvailability availability;
    private final MembershipView membership;
    private final AtomicInteger nextLane = new AtomicInteger();
    private final List<KvSession> sessions = new ArrayList<>();
    /** Every thread's slot that was given a session, emptied on close (guarded by {@link #sessions}). */
    private final List<SessionSlot> slots = new ArrayList<>();
    /**
     * A thread's session, held through a slot the client empties on close: a thread's map keeps its value strongly
     * for as long as the thread lives, and a session reaches back to this client (and its driver's connections and
     * mappings), so a value that were the session itself would keep every closed client of a long-lived thread.
     */
    private final ThreadLocal<SessionSlot> session = ThreadLocal.withInitial(SessionSlot::new);
    private final ExecutorService asyncExecutor;
    private static final long CLUSTER_DURABLE_PERIOD_NANOS = 1_000_000_000L;
    private final Thread clusterDurableThread;
    private volatile long clusterDurable = -1;
    /**
     * Where a transaction's raw swap that completions cannot carry runs: never behind the reads on
     * {@link #asyncExecutor} that wait for that transaction's intents to be decided.
     */
    private final ExecutorService swapExecutor;
    /** The executor's threads: a close from one of them cannot wait for them all. */
    private final Set<Thread> asyncThreads = ConcurrentHashMap.newKeySet();
    private final SlowPath slowPath = new SlowPath();
    private final PersistRequests persistRequests;
    private final CompletionPolling completionPolling;
    /** What the last fill pass of a membership change noted, for the switch pass after it; null when none. */
    private ChangeLedger changeLedger;
    /** GETs of a multiGetAsync wave: what one thread's {@link AsyncGets} keeps in flight, at least one. */
    private final int getWave;
    private volatile boolean polled;
    private volatile boolean closed;
    /** The store's single-key operations as the transaction protocol uses them: intents as they are. */
    private final CommitKeys rawKeys = new SessionKeys();
    /** The intent rules over {@link #rawKeys}: for transactions, whichever thread runs them. */
    private final IntentResolver intents;
    private final TxnServices txnServices;
    private final Resolutions resolutions;
    private final ConcurrentHashMap<String, OrderedKeyspace> orderedKeyspaces = new ConcurrentHashMap<>();

    private KvClient(final Raas[] lanes, final KvClientContext context)
    {
        this.lanes = lanes;
        this.requestsWaitOnWire = anyLaneOnAWire(lanes);
        this.context = context;
        this.intents = new IntentResolver(rawKeys, context.txnPushMs() * 1_000_000L);

        final long[] ids = context.memoryNodes().length > 0 ? context.memoryNodes() : membership(lanes[0]);
        this.availability = new MemoryNodeAvailability(ids, context);
        this.membership = new MembershipView(lanes[0], availability, MembershipView.readAtConnect(lanes[0], context),
            context);
        // a node that cannot be read now is unavailable, not fatal: the keys of the others are served; members added
        // later take the free places, read by each thread at its first use
        this.nodesByLane = new MemoryNodeView[lanes.length][MemoryNodeAvailability.CAPACITY];
        final int known = availability.count();
        for (int i = 0; i < known; i++)
        {
            for (int lane = 0; lane < lanes.length; lane++)
            {
                nodesByLane[lane][i] = availability.readAtConnect(lanes[lane], i);
                if (nodesByLane[lane][i] == null)
                {
                    break;
                }
            }
        }
        // made whatever the durability now: it may be changed while the client runs (durability(Durability))
        this.persistRequests = new PersistRequests(lanes[0], context);
        this.completionPolling = new CompletionPolling(lanes, persistRequests);
        this.getWave = Math.max(1, AsyncGets.inFlight(lanes[0].connectionCredits()));
        this.polled = !completionPolling.isNeeded();
        this.asyncExecutor = clientThreads("dkv-client-async-");
        this.swapExecutor = clientThreads("dkv-client-swaps-");
        this.resolutions = new Resolutions(context.txnResolutionsQueued());
        this.txnServices = new TxnServices(this, rawKeys, intents, context.maxRetries(), asyncExecutor,
            resolutions, context.txnStageInFlight() != null ? context.txnStageInFlight() : requestsWaitOnWire());
        this.clusterDurableThread = Thread.ofPlatform().daemon().name("dkv-cluster-durable")
            .start(this::publishClusterDurable);
    }

    /**
     * Once a second while this client's threads tell nodes of their writes (they hold persist rings), the cluster's
     * durable epoch into every member ({@link ClusterDurableEpoch}): on a thread of its own, as a member that does not
     * answer may hold a read for the client's timeout, and neither a write nor a mark waits on that.
     */
    private void publishClusterDurable()
    {
        final ClusterDurableEpoch epoch = new ClusterDurableEpoch();
        while (!closed)
        {
            LockSupport.parkNanos(CLUSTER_DURABLE_PERIOD_NANOS);
            if (closed || Thread.currentThread().isInterrupted())
            {
                return;
            }
            if (context.ringMarks().rings() == 0)
            {
                continue;
            }
            try
            {
                membership.refreshIfDue();
                clusterDurable = epoch.publish(session().listing(), membership.placement());
            }
            catch (final RuntimeException ex)
            {
                // closed under it, or a view that could not be read: the next second tries again
            }
        }
    }

    /** @return the cluster's durable epoch this client last wrote into the members, -1 before the first. */
    public long clusterDurableEpoch()
    {
        return clusterDurable;
    }

    /**
     * @return the memory nodes registered in the directory (the MetaServer), by id; where the driver cannot list
     * nodes (a client attached to a standalone driver), the members of the memory tier's membership, which the
     * driver reads for it: the nodes that hold keys, whichever joined or were drained since any list was written.
     */
    private static long[] membership(final Raas raas)
    {
        long[] ids;
        try
        {
            ids = raas.nodes(NodeRecord.ROLE_MEMORY).stream().mapToLong(NodeRecord::id).sorted().toArray();
        }
        catch (final RaasException listing)
        {
            try
            {
                ids = Arrays.stream(raas.membership().memberIds()).sorted().toArray();
            }
            catch (final RaasException ex)
            {
                ex.addSuppressed(listing);
                throw new KvException("no memory nodes given, and neither the directory's nodes (" +
                    listing.getMessage() + ") nor the memory tier's membership (" + ex.getMessage() +
                    ") can be read", ex);
            }
        }
        if (ids.length == 0)
        {
            throw new KvException("no memory node is registered in the directory (start one with ./dkv memory-node)");
        }
        return ids;
    }

    /**
     * Reach the memory nodes the context names (or, when it names none, those the directory lists:
     * the MetaServer's membership) through {@code raas} (which stays the caller's).
     *
     * A node whose view cannot be read now (it is down) is unavailable: operations on its keys fail naming it,
     * the others' keys are served, and its view is read again as operations on its keys come
     * ({@link KvClientContext#unavailableRetryMs(int)}), so that its keys are served once it is back.
     *
     * @throws KvException when the membership cannot be read, or a node that was read cannot serve this client
     * (its grace period is not longer than the client's timeout, or it keeps nothing on disk and durability is asked).
     */
    public static KvClient connect(final Raas raas, final KvClientContext context)
    {
        return connect(List.of(raas), context);
    }

    /**
     * As {@link #connect(Raas, KvClientContext)}, spreading the client's threads over several RaaS
     * handles ("lanes", e.g. an embedded driver per core, as a queue pair pool per CPU): each thread
     * keeps to the lane it was given, so threads of different lanes share no queue pair, completion
     * queue or request slot. Threads of one lane share them as RaaS connections do.
     *
     * @param lanes the handles, which stay the caller's; the first also answers for membership.
     */
    public static KvClient connect(final List<Raas> lanes, final KvClientContext context)
    {
        if (lanes.isEmpty())
        {
            throw new IllegalArgumentException("a client needs at least one RaaS handle");
        }
        return new KvClient(lanes.toArray(Raas[]::new), context.conclude());
    }

    /**
     * @return the memory nodes that hold the key's copies, in placement order: the first (the head) serves its reads
     * while it is live. As many as the client keeps copies ({@link KvClientContext#replicas(int)}, else the
     * directory's count), whichever of them are up.
     */
    public long[] replicasOf(final byte[] key)
    {
        final MembershipView.Placement placement = membership.placement();
        final long[] ids = availability.nodeIds();
        final int[] placed = new int[membership.replicas()];
        final int count = placement.after(KeyHash.hash(key), placed.length, placed);
        final long[] replicas = new long[count];
        for (int p = 0; p < count; p++)
        {
            replicas[p] = ids[placed[p]];
        }
        return replicas;
    }

    /**
     * Copy onto a joining memory node every key it should hold (the MetaServer lists it as joining: it came back
     * from a failure, empty or with what its disk kept), each up to the write its serving replicas have settled on,
     * while this and other clients read and write. Writes made meanwhile reach the joiner by themselves. Run by the
     * joining node itself before it asks the MetaServer to make it live again; it blocks the calling thread. It
     * starts after the membership refresh period and the operation timeout have passed, so that every client knows
     * of the joiner and puts its writes there (clients of one store are taken to share these settings).
     *
     * @return what it did; {@link RefillReport#complete()} is false when some key had a write in flight that long
     * or no serving replica, and the refill should run again.
     * @throws KvException when the node is not one of this client's memory nodes, or not joining.
     */
    public RefillReport refill(final long nodeId)
    {
        return refill(nodeId, 0);
    }

    /** A copier over the session's reads, noting what a pass finds in place in {@code ledger} (or null). */
    private ReplicaCopier copier(final KvSession session, final ChangeLedger ledger)
    {
        return new ReplicaCopier(session.listing(), session.refillBatch(), membership, availability.nodeIds(),
            context.nanoClock(), ledger);
    }

    /**
     * A refill's first pass made during its wait, and a second after it that reads again only what changed since
     * (client/README.md, "Refill around its wait"): the wait ends every write that skips the joiner, and the first
     * pass notes each key it finds in place with its words, so that the second finds what such a write changed or
     * deleted meanwhile. Either pass alone, as before, when the membership moved on between them or the notes outgrew
     * their budget.
     */
    private RefillReport refillAroundWait(final KvSession session, final long nodeId, final int joiner,
        final long settleMs, final Runnable afterFirstPass)
    {
        final long waitEnds = context.nanoClock().nanoTime() + settleMs * 1_000_000L;
        final long[] ids = availability.nodeIds();
        final long epoch = membership.epoch();
        // a third of the heap at most, as a membership change's fill: past that the second pass reads every key
        final ChangeLedger ledger = new ChangeLedger(epoch, ids.length, Runtime.getRuntime().maxMemory() / 3);
        final ReplicaCopier copier = copier(session, ledger);
        final RefillReport first = copier.refill(joiner);
        if (afterFirstPass != null)
        {
            afterFirstPass.run();
        }
        try
        {
            final long leftNs = waitEnds - context.nanoClock().nanoTime();
            if (leftNs > 0)
            {
                TimeUnit.NANOSECONDS.sleep(leftNs);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new KvException("refilling memory node " + nodeId + " was interrupted", ex);
        }
        membership.refreshNow();
        final RefillReport second = ledger.abandoned() || membership.epoch() != epoch ?
            copier(session, null).refill(joiner) : copier.refillAgain(joiner);
        return new RefillReport(second.keysSeen(), second.refilled(), second.inPlace(), second.unsettled(),
            first.passes() + second.passes(), first.millis() + second.millis(), second.alone(), second.swept());
    }

    /**
     * {@link #refill(long)} for a node known to have been listed as joining for a while already: a node back from a
     * restart registers (and is listed joining) before it loads its keys from disk, so the wait for writes that skip
     * it runs beside the load rather than after it.
     *
     * @param joiningForMs how long, at least, the MetaServer has listed the node as joining, in true time (the
     *                     registration that made it joining ended that long ago).
     * @return what it did, as {@link #refill(long)}.
     */
    public RefillReport refill(final long nodeId, final long joiningForMs)
    {
        return refill(nodeId, joiningForMs, null);
    }

    /**
     * {@link #refill(long, long)}, running {@code afterFirstPass} once the pass made during the wait has ended and
     * before the rest of the wait: for tests, which put there the writes of a writer that does not know the joiner yet.
     *
     * @param afterFirstPass run on the calling thread between the passes, or null; not run when there is no wait.
     * @return what it did, as {@link #refill(long)}.
     */
    public RefillReport refill(final long nodeId, final long joiningForMs, final Runnable afterFirstPass)
    {
        final long[] ids = availability.nodeIds();
        int joiner = -1;
        for (int i = 0; i < ids.length; i++)
        {
            joiner = ids[i] == nodeId ? i : joiner;
        }
        if (joiner < 0)
        {
            throw new KvException("memory node " + nodeId + " is none of this client's memory nodes " +
                Arrays.toString(ids));
        }
        membership.refreshNow();
        if (membership.state(joiner) != Membership.JOINING || membership.replicas() < 2)
        {
            throw new KvException("memory node " + nodeId + " is not being refilled: " + membership.describe(joiner) +
                ", " + membership.replicas() + " cop" + (membership.replicas() == 1 ? "y" : "ies") + " of each key");
        }
        // a client learns of the joiner within its membership refresh period, and a write it started before may run
        // for an operation's timeout: writes that skip the joiner have ended by then (all clients of a store are
        // taken to use this client's settings)
        final long settleMs = (long)context.membershipRefreshMs() + context.timeoutMs() - Math.max(0, joiningForMs);
        final KvSession session = session();
        final RefillReport report = settleMs > 0 ? refillAroundWait(session, nodeId, joiner, settleMs, afterFirstPass) :
            copier(session, null).refill(joiner);
        if (report.complete())
        {
            // the copies were told under this client's durability: on the joiner's disk before anyone reads it, so
            // that it may be the replica serving last when every other copy is lost
            session.chunks().sync(joiner);
        }
        return report;
    }

    /**
     * One pass of a membership change (client/README.md, "Membership change"): in its fill phase, copy every key the
     * change moves onto the members entering its placement, each up to the write its replicas before the change
     * settled on; in its handover phase, seal each (client/README.md, "The handover"), rolling forward first any write
     * left unsettled by a writer that died. Writes made meanwhile reach the entering members by themselves. The driver
     * of the change runs it once every client is in the phase: {@link #membershipPhaseGapMs()} after the phase began.
     * It blocks the calling thread.
     * <p>
     * A fill pass that finds every moving key in place notes what it found ({@code ChangeLedger}), and the first
     * handover pass after it (two epochs on, the switch between) then seals the keys no write touched since from the
     * words it noted, reading again only the keys written since; any other handover pass reads every moving key
     * again. One thread drives a change.
     *
     * @return what it did; {@link RefillReport#complete()} is false when some key was left unsettled or had no
     * serving replica, and the pass should run again.
     * @throws KvException when no change is in its fill or handover phase.
     */
    public RefillReport fillMembershipChange()
    {
        membership.refreshNow();
        final int phase = membership.placement().phase;
        if (phase != Membership.FILL && phase != Membership.HANDOVER)
        {
            throw new KvException("no membership change is filling or handing over: the membership is in phase " +
                Membership.phaseName(phase) + " (epoch " + membership.epoch() + ")");
        }
        final KvSession session = session();
        final MembershipView.Placement placement = membership.placement();
        final ChangeLedger fill = changeLedger;
        changeLedger = null;
        if (phase == Membership.HANDOVER && fill != null && fill.servesHandoverOf(placement.epoch))
        {
            return syncEntering(session, placement, copier(session, null).handoverChange(fill));
        }
        // a third of the heap at most: past that the handover reads every moving key again
        final ChangeLedger ledger = phase == Membership.FILL ? new ChangeLedger(placement.epoch,
            availability.nodeIds().length, Runtime.getRuntime().maxMemory() / 3) : null;
        final RefillReport report = copier(session, ledger).fillChange();
        changeLedger = ledger;
        return syncEntering(session, placement, report);
    }

    /** A complete pass's copies on the disks of the members the change places keys on after it, as a refill's. */
    private static RefillReport syncEntering(final KvSession session, final MembershipView.Placement placement,
        final RefillReport report)
    {
        for (int node = 0; report.complete() && node < placement.nodeCount(); node++)
        {
            if ((placement.placement(node) & Membership.PLACED_AFTER) != 0 &&
                (placement.placement(node) & Membership.PLACED_BEFORE) == 0)
            {
                session.chunks().sync(node);
            }
        }
        return report;
    }

    /**
     * @return how long after a membership change entered a phase every client of the store acts in it, and no write
     * started in the phase before runs any more: the view lease plus an operation's timeout (all clients of a store
     * are taken to share these settings).
     */
    public long membershipPhaseGapMs()
    {
        return (long)context.membershipLeaseMs() + context.timeoutMs();
    }

    /** @return copies this client keeps of each key: its context's count, else the directory's, at most one a node. */
    public int replicas()
    {
        return membership.replicas();
    }

    /**
     * @return the clock this client judges expiry by, so that a caller turning a relative time into an expiry time
     * (redis's EXPIRE, SET EX) uses the same one.
     */
    public EpochClock epochClock()
    {
        return context.epochClock();
    }

    /** @return the length of the durable epochs this client writes at, in milliseconds of {@link #epochClock}. */
    public int epochMs()
    {
        return context.epochMs();
    }

    /** @return what the writes that begin now promise about the memory nodes' disks. */
    public Durability durability()
    {
        return context.durability();
    }

    /**
     * Change what the writes that begin from now on promise (a compute node's CONFIG SET appendfsync): a write under
     * way finishes under the durability it began with, its blocks written pending or not and its nodes told or not as
     * that one says.
     *
     * @throws KvException naming a memory node whose view says it keeps nothing on disk, when ASYNC or SYNC is asked:
     *                     the durability stays as it was.
     */
    public void durability(final Durability durability)
    {
        if (durability != Durability.NONE)
        {
            final long[] without = availability.withoutDisk();
            if (without.length > 0)
            {
                throw new KvException("memory node " + without[0] + " keeps nothing on disk (start it with a data " +
                    "directory), so durability " + durability.name().toLowerCase(Locale.ROOT) + " cannot be had");
            }
        }
        context.durability(durability);
    }

    /**
     * From now on the calling thread holds the PERSISTs of its writes under durability async until it calls
     * {@link #flushPersists}, which tells each node of all of them in one message. For a thread that answers the
     * writes it runs only after a flush of its own (a compute node's event loop, which flushes before it writes its
     * replies): an answer must never leave before its write's nodes were told. Other threads send each at once.
     */
    public void deferPersists()
    {
        final KvSession current = session();
        current.chunks().deferPersists(true);
        session.get().deferring = true;
    }

    /** @return whether the calling thread holds PERSISTs that {@link #flushPersists} has yet to send. */
    public boolean holdsPersists()
    {
        final KvSession current = deferringSession();
        return current != null && current.chunks().holdsDeferred();
    }

    /** Tell the nodes of what the calling thread held since {@link #deferPersists}; nothing on another thread. */
    public void flushPersists()
    {
        final KvSession current = deferringSession();
        if (current != null && !closed)
        {
            current.chunks().flushDeferred();
        }
    }

    /**
     * @return each memory node's disk as its index header shows it now (one READ each, on this thread): its last
     * fsync's time and outcome, its oldest write not fsynced yet, and the lag's p99; unreachable where it cannot be
     * read.
     */
    public List<MemoryNodeDisk> memoryNodeDisks()
    {
        final KvSession session = session();
        final List<MemoryNodeDisk> disks = new ArrayList<>();
        for (int node = 0; node < availability.nodeIds().length; node++)
        {
            disks.add(session.listing().diskOf(node));
        }
        return disks;
    }

    /**
     * @return each memory node's heap as its header shows it now (one READ each, on this thread): what it holds
     * handed out and live, its reserve and room; unreachable where it cannot be read.
     */
    public List<MemoryNodeHeap> memoryNodeHeaps()
    {
        final KvSession session = session();
        final List<MemoryNodeHeap> heaps = new ArrayList<>();
        for (int node = 0; node < availability.nodeIds().length; node++)
        {
            heaps.add(session.listing().heapOf(node));
        }
        return heaps;
    }

    /**
     * @return the pool's maxmemory as the memory nodes' heap limits hold it ({@link HeapLimits#maxMemory}), read now
     * (one READ a node, on this thread); 0: none.
     */
    public long maxMemory()
    {
        return HeapLimits.maxMemory(memoryNodeHeaps());
    }

    /**
     * Set the pool's maxmemory: each memory node hands out at most its share of {@code bytes}, in proportion to its
     * capacity, to writes other than frees (a write past it is refused as at full, {@link MemoryFullException}); what
     * was handed out before stays, and comes back as ever. One round trip a node, on this thread.
     *
     * @param bytes the most bytes the pool's heaps hand out; 0: no limit but their size.
     * @throws KvException naming the nodes that did not take it (unreachable, or refused); the others did.
     */
    public void maxMemory(final long bytes)
    {
        if (bytes < 0)
        {
            throw new IllegalArgumentException("maxmemory is 0 (none) or a number of bytes: " + bytes);
        }
        final KvSession session = session();
        final List<MemoryNodeHeap> heaps = memoryNodeHeaps();
        final long[] shares = HeapLimits.shares(heaps, bytes);
        final StringBuilder failed = new StringBuilder();
        for (int node = 0; node < shares.length; node++)
        {
            final String why = shares[node] == HeapLayout.LIMIT_NEVER_SET ? "unreachable" : limitHeap(session, node,
                shares[node]);
            if (why != null)
            {
                failed.append(failed.length() == 0 ? "" : ", ").append(heaps.get(node).nodeId()).append(" (")
                    .append(why).append(')');
            }
        }
        // a limit raised or lifted gives room at once: every thread's next write asks the nodes again
        context.heapLimitChanges().incrementAndGet();
        if (failed.length() > 0)
        {
            throw new KvException("maxmemory " + bytes + " was not set on memory node(s) " + failed +
                "; the others took their share");
        }
    }

    /**
     * Give each memory node that has no limit and never had one asked (started, restarted or joined since) its share
     * of the maxmemory the others hold, as read in {@code heaps}; nothing when none has a limit.
     *
     * @return the nodes given one.
     */
    public int giveMissingHeapLimits(final List<MemoryNodeHeap> heaps)
    {
        final long maxMemory = HeapLimits.maxMemory(heaps);
        if (maxMemory == 0)
        {
            return 0;
        }
        final long[] shares = HeapLimits.shares(heaps, maxMemory);
        final KvSession session = session();
        int given = 0;
        for (int node = 0; node < shares.length && node < availability.nodeIds().length; node++)
        {
            final MemoryNodeHeap heap = heaps.get(node);
            // the membership may have changed since the reading: only the node read is given its share
            if (heap.told() && heap.limit() == HeapLayout.LIMIT_NEVER_SET &&
                heap.nodeId() == availability.nodeIds()[node] && limitHeap(session, node, shares[node]) == null)
            {
                given++;
            }
        }
        return given;
    }

    /** @return null when the node took the limit, else why not. */
    private static String limitHeap(final KvSession session, final int node, final long bytes)
    {
        try
        {
            final int status = session.limitHeap(node, bytes);
            return status == MemoryNodeProtocol.OK ? null : MemoryNodeProtocol.why(status);
        }
        catch (final KvException ex)
        {
            return ex.getMessage();
        }
    }

    /**
     * Ask memory node {@code nodeId} to start again from its disk, as the incarnation named (kv-memory-node/README.md,
     * "Every copy of some keys lost while a member serves"): one round trip on this thread.
     *
     * @param incarnation the node's incarnation as the asker saw it: another one (it restarted since) refuses.
     * @param askerId     the memory node that asks, which the node names as it restarts.
     * @return the node's status ({@code MemoryNodeProtocol}): OK when it restarts, GONE when it is another incarnation,
     * NOT_PERSISTENT when it keeps nothing on disk, BAD_REQUEST when it cannot restart itself.
     * @throws KvException when the node is not one of this client's, or does not answer.
     */
    public int askToRestartFromDisk(final long nodeId, final long incarnation, final long askerId)
    {
        final long[] ids = availability.nodeIds();
        for (int node = 0; node < ids.length; node++)
        {
            if (ids[node] == nodeId)
            {
                return session().askToRestart(node, incarnation, askerId);
            }
        }
        throw new KvException("memory node " + nodeId + " is not one of this client's memory nodes " +
            Arrays.toString(ids));
    }

    /**
     * @return the memory nodes whose view, as last read, says they keep nothing on disk (started without a data
     * directory), by id; nodes the client could not read yet are not among them.
     */
    public long[] memoryNodesWithoutDisk()
    {
        return availability.withoutDisk();
    }

    /**
     * @return how many PERSIST requests (one per copy of a key written) this client sent or queued for the memory
     * nodes so far, how many of those are not sent or (durability sync) not answered yet, and how many writes were not
     * confirmed on disk: figures read from counters, each a moment's.
     */
    public PersistCounts persistCounts()
    {
        long told = persistRequests.told();
        long pending = persistRequests.pending();
        long failed = persistRequests.failed();
        synchronized (sessions)
        {
            for (final KvSession each : sessions)
            {
                told += each.chunks().persistsTold();
                pending += each.chunks().persistsPending();
                failed += each.chunks().persistsFailed();
            }
        }
        return new PersistCounts(told, pending, failed);
    }

    /** @return the key's value, or null when it has none. */
    public byte[] get(final byte[] key)
    {
        checkKey(key);
        return session().get(key);
    }

    /**
     * Copy the key's value into {@code dst}, as much of it as fits.
     *
     * @return the value's length (larger than {@code dst} when only part of it was copied), or -1
     * when the key has none.
     */
    public int get(final MemorySegment key, final MemorySegment dst)
    {
        final byte[] keyBytes = keyBytes(key);
        return session().get(keyBytes, dst);
    }

    /**
     * Read several keys; each node's share goes out in doorbell batches of candidate-bucket reads.
     *
     * @return the values in the keys' order, null where a key has none.
     */
    public List<byte[]> multiGet(final List<byte[]> keys)
    {
        final List<byte[]> values = multiGetMarking(keys);
        values.replaceAll(value -> value == COLLECTION || value == PIECES ? null : value);
        return values;
    }

    /**
     * As {@link #multiGet}, answering {@link #COLLECTION} (by identity) for a key that holds a hash or a set, where
     * {@link #multiGet} answers null: what a GET among pipelined ones tells apart (redis's WRONGTYPE).
     */
    public List<byte[]> multiGetMarking(final List<byte[]> keys)
    {
        final byte[][] array = keys.toArray(new byte[0][]);
        for (final byte[] key : array)
        {
            checkKey(key);
        }
        return Arrays.asList(session().multiGet(array));
    }

    /** Set the key's value, whatever it held, with no expiry. */
    public void put(final byte[] key, final byte[] value)
    {
        put(key, value, NO_EXPIRY);
    }

    /**
     * Set the key's value, whatever it held, until {@code expireAtMillis} (redis's SET EX/PX/EXAT/PXAT
     * give it; one in the past leaves the key with no value).
     *
     * @param expireAtMillis epoch milliseconds from which the key has no value, or {@link #NO_EXPIRY}.
     */
    public void put(final byte[] key, final byte[] value, final long expireAtMillis)
    {
        checkKey(key);
        checkValue(value);
        checkExpiry(expireAtMillis);
        session().write(key, MemorySegment.ofArray(value), null, true, expireAtMillis);
    }

    /** Set the key's value from memory, whatever it held (the value is copied straight into the block). */
    public void put(final MemorySegment key, final MemorySegment value)
    {
        put(key, value, NO_EXPIRY);
    }

    /** As {@link #put(byte[], byte[], long)}, the value from memory. */
    public void put(final MemorySegment key, final MemorySegment value, final long expireAtMillis)
    {
        final byte[] keyBytes = keyBytes(key);
        checkValueLength(value.byteSize());
        checkExpiry(expireAtMillis);
        session().write(keyBytes, value, null, true, expireAtMillis);
    }

    /**
     * @return milliseconds until the key's value expires, -1 when it never does, -2 when the key has
     * no value (redis's PTTL; TTL is this rounded up to seconds).
     */
    public long ttlMillis(final byte[] key)
    {
        checkKey(key);
        return session().ttlMillis(key);
    }

    /**
     * Give the key's value a new expiry time, keeping the value (redis's EXPIRE, PEXPIREAT...; one in
     * the past leaves the key with no value): a versioned read and a compare-and-set of a block with
     * the new expiry, again while other writes come between.
     *
     * @param expireAtMillis epoch milliseconds, or {@link #NO_EXPIRY}.
     * @return false when the key has no value.
     */
    public boolean expireAt(final byte[] key, final long expireAtMillis)
    {
        checkKey(key);
        checkExpiry(expireAtMillis);
        // allowed at full, as redis allows it at its limit
        return freeingMemory(() -> session().rewriteExpiry(key, expireAtMillis, false));
    }

    /**
     * Take the key's expiry away, keeping its value (redis's PERSIST).
     *
     * @return true when the key had an expiry; false when it had none or no value.
     */
    public boolean persist(final byte[] key)
    {
        checkKey(key);
        return freeingMemory(() -> session().rewriteExpiry(key, NO_EXPIRY, true));
    }

    /**
     * Run an operation that frees memory or only rewrites what a key holds (redis's EXPIRE and PERSIST, which redis
     * allows at its memory limit) on the calling thread: where a memory node is full, its blocks may take the reserve
     * the node keeps for deletes. Deletes, flushes and transactions of deletes need not say so.
     *
     * @return what the operation returned.
     */
    public <T> T freeingMemory(final java.util.function.Supplier<T> operation)
    {
        final KvSession current = session();
        final boolean was = current.chunks().freeing(true);
        try
        {
            return operation.get();
        }
        finally
        {
            current.chunks().freeing(was);
        }
    }

    /**
     * @return the id of a memory node holding a copy of the key that has no room now for writes other than deletes
     * (less than a first chunk outside its reserve, as the node publishes it), or 0: what a caller queueing a write for
     * later (MULTI, a script) checks first, as redis checks its memory before it queues a write.
     */
    public long fullCopy(final byte[] key)
    {
        // any key, the store's own records too: only where it lives is asked
        return session().fullCopy(key);
    }

    /** @return true when the key had a value (it has none now). */
    public boolean delete(final byte[] key)
    {
        checkKey(key);
        return session().delete(key);
    }

    public boolean delete(final MemorySegment key)
    {
        return session().delete(keyBytes(key));
    }

    // ---- the keyspace as a whole (client/README.md, "Scans and flushes") ----

    /**
     * One step of a scan of every key, by cursor as redis's SCAN: start at {@link ScanCursor#START} and hand each
     * step the cursor the one before returned, until a step returns {@link ScanCursor#START} again. Every key that
     * has a value for the whole scan is returned at least once, across memory nodes, subtable splits and membership
     * changes; a key written or deleted meanwhile may or may not be, and a key may come more than once. Any client or
     * compute node may take the next step.
     *
     * <pre>{@code
     * long cursor = ScanCursor.START;
     * do
     * {
     *     final ScanPage page = client.scan(cursor, 100, null);
     *     page.keys().forEach(this::visit);
     *     cursor = page.cursor();
     * }
     * while (cursor != ScanCursor.START);
     * }</pre>
     *
     * @param count   about how many keys the step returns (it reads on until it found that many, or has read a
     *                bounded part of the indexes: a step may return none before the scan is over).
     * @param pattern only keys that match it are returned; null: every key.
     * @throws IllegalArgumentException when the cursor is not one a scan returned, or count is under 1.
     */
    public ScanPage scan(final long cursor, final int count, final KeyPattern pattern)
    {
        final KvSession session = session();
        return session.readAgainPastFailures(() -> session.keyScan().step(cursor, count, pattern));
    }

    /**
     * @return a key picked at random from those with a value (redis's RANDOMKEY; not uniform: see
     * {@link io.dkv.client.keyspace.KeyScan#randomKey}), or null when no key has one.
     */
    public byte[] randomKey()
    {
        final KvSession session = session();
        return session.readAgainPastFailures(() -> session.keyScan().randomKey());
    }

    /**
     * @return how many keys have a value: every step of a scan counted (a walk of every index, not a counter); a
     * membership change during the walk starts it over, and the count with it, so no key counts twice.
     */
    public long countKeys()
    {
        long keys = 0;
        long cursor = ScanCursor.START;
        do
        {
            final ScanPage page = scan(cursor, FLUSH_STEP, null);
            keys = page.countAfter(keys);
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
        return keys;
    }

    /**
     * Delete every key (redis's FLUSHALL): a scan, each key found deleted as {@link #delete} does, so that once it
     * returns no key written before it began has a value. Not one atomic step: a reader meanwhile sees some keys gone
     * and others not yet, and a key written meanwhile may be deleted or kept. The memory nodes take back the blocks
     * as for any delete. Named keys ({@link ReservedKeys#namedKey}) are kept.
     *
     * @return how many keys it deleted.
     */
    public long flush()
    {
        long deleted = 0;
        long cursor = ScanCursor.START;
        do
        {
            final long from = cursor;
            final KvSession session = session();
            final ScanPage page = session.readAgainPastFailures(() -> session.keyScan().step(from, FLUSH_STEP, null,
                true));
            for (final byte[] key : page.keys())
            {
                if (ReservedKeys.isNamed(key))
                {
                    // the nodes' own records (redis's scripts and functions), which redis's FLUSHALL keeps too
                    continue;
                }
                // a collection's header and segments are not a string's: removed by a transaction each
                final boolean had = deleteAnyKind(key);
                deleted += had && !ReservedKeys.isReserved(key) ? 1 : 0;
            }
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
        return deleted;
    }

    /**
     * As {@link #scan}, returning the store's own keys too (collections' segments, strings' pieces and their
     * journals, {@link ReservedKeys}): for the sweep of pieces nobody published, and tests.
     */
    public ScanPage scanAll(final long cursor, final int count)
    {
        final KvSession session = session();
        return session.readAgainPastFailures(() -> session.keyScan().step(cursor, count, null, true));
    }

    /**
     * @return the ordered keyspace of this name (client/README.md, "Ordered keyspaces"): keys kept in order for range
     * scans, each put of a new key and each delete one transaction with the keyspace's index. One object per name and
     * client, so that every thread shares its index hints.
     */
    public OrderedKeyspace orderedKeyspace(final String name)
    {
        return orderedKeyspaces.computeIfAbsent(name, given -> new OrderedKeyspace(this, given));
    }

    /**
     * @return true when a request of this client waits on a wire or a NIC (tcp, verbs): a thread is better off posting
     * it and doing other work; false on shm, where posting a request is the posting thread's own copy and the
     * synchronous form is the cheaper (docs/BENCHMARKS.md, "GETs and PUTs in flight").
     */
    public boolean requestsWaitOnWire()
    {
        return requestsWaitOnWire;
    }

    private static boolean anyLaneOnAWire(final Raas[] lanes)
    {
        for (final Raas lane : lanes)
        {
            if (!PortAddress.SHM.equals(lane.self().address().provider()))
            {
                return true;
            }
        }
        return false;
    }

    /** @return how many asynchronous reads one thread keeps in flight at once (a wave of {@link #multiGet}'s). */
    public int readsInFlight()
    {
        return getWave;
    }

    /** @return the bytes of elements a collection's segment holds on average ({@code KvClientContext}). */
    public int collectionSegmentBytes()
    {
        return context.collectionSegmentBytes();
    }

    /** @return true when the key had a value of any kind: a string deleted, or a collection's block. */
    private boolean deleteAnyKind(final byte[] key)
    {
        try
        {
            return session().delete(key);
        }
        catch (final WrongKindException ex)
        {
            return transact(tx -> tx.delete(key));
        }
    }

    /**
     * Set the key's value only if it holds {@code expected} now.
     *
     * @param expected the value it must hold, or null: it must have none.
     * @return true when the value was set.
     */
    public boolean compareAndSet(final byte[] key, final byte[] expected, final byte[] value)
    {
        return compareAndSet(key, expected, value, NO_EXPIRY);
    }

    /**
     * As {@link #compareAndSet(byte[], byte[], byte[])}, the new value expiring at {@code expireAtMillis}
     * (redis's SET NX/XX with EX). An expired value is no value: {@code expected} null matches it.
     *
     * @param expireAtMillis epoch milliseconds, or {@link #NO_EXPIRY}.
     */
    public boolean compareAndSet(final byte[] key, final byte[] expected, final byte[] value, final long expireAtMillis)
    {
        checkKey(key);
        checkValue(value);
        checkExpiry(expireAtMillis);
        if (expected != null)
        {
            checkValue(expected);
        }
        return session().write(key, MemorySegment.ofArray(value), expected, false, expireAtMillis);
    }

    /**
     * Set the key's value from memory only if it holds {@code expected} now.
     *
     * @param expected the value it must hold, or null: it must have none.
     * @return true when the value was set.
     */
    public boolean compareAndSet(final MemorySegment key, final MemorySegment expected, final MemorySegment value)
    {
        final byte[] keyBytes = keyBytes(key);
        checkValueLength(value.byteSize());
        byte[] expectedBytes = null;
        if (expected != null)
        {
            checkValueLength(expected.byteSize());
            expectedBytes = expected.toArray(ValueLayout.JAVA_BYTE);
        }
        return session().write(keyBytes, value, expectedBytes, false, NO_EXPIRY);
    }

    /**
     * Read the key's value with its version, for {@link #compareAndSetVersion}: an optimistic
     * read-modify-write that needs no second read of the key to write.
     *
     * @return the value, its expiry and its version, or null when the key has none.
     */
    public Versioned getVersioned(final byte[] key)
    {
        checkKey(key);
        return session().getVersioned(key);
    }

    /**
     * Set the key's value only if nobody wrote the key since {@code expected} was read (no put,
     * delete or compare-and-set came between, not even one writing the same bytes). It costs the
     * write of the new block and one CAS, where {@link #compareAndSet(byte[], byte[], byte[])} reads
     * the key's buckets and block again first. A version read longer ago than the memory node's
     * grace period less this client's timeout is compared by its value instead, as
     * {@code compareAndSet} would.
     *
     * The new value has no expiry, whatever {@code expected}'s was.
     *
     * @param expected what {@link #getVersioned} returned for this key.
     * @return true when the value was set.
     */
    public boolean compareAndSetVersion(final byte[] key, final Versioned expected, final byte[] value)
    {
        return compareAndSetVersion(key, expected, value, NO_EXPIRY);
    }

    /**
     * As {@link #compareAndSetVersion(byte[], Versioned, byte[])}, the new value expiring at
     * {@code expireAtMillis}: {@code expected.expireAtMillis()} keeps the key's expiry (KEEPTTL, INCR,
     * GETSET... as redis), another changes it (EXPIRE, PERSIST). False when {@code expected} has
     * expired since it was read: the key has no value then.
     *
     * @param expireAtMillis epoch milliseconds, or {@link #NO_EXPIRY}.
     */
    public boolean compareAndSetVersion(final byte[] key, final Versioned expected, final byte[] value,
        final long expireAtMillis)
    {
        checkKey(key);
        checkValue(value);
        checkExpiry(expireAtMillis);
        if (expected == null)
        {
            throw new IllegalArgumentException("no version given: for a key that must have no value, use " +
                "compareAndSet(key, null, value)");
        }
        return session().writeIfVersion(key, MemorySegment.ofArray(value), expected, expireAtMillis);
    }

    // ---- transactions (client/README.md, "Transactions") ----

    /**
     * Run {@code body} as one transaction over any keys, strictly serializable: its reads see one instant of the
     * store, and its writes are made all at once, or not at all. On a conflict (another transaction or write changed
     * a key it read or writes before it committed) it runs {@code body} again, after a random backoff, up to
     * {@code dkv.client.txn.retries} times. An exception {@code body} throws aborts the transaction and is thrown.
     *
     * <pre>{@code
     * client.transact(tx ->
     * {
     *     final long from = parse(tx.get(alice));
     *     final long to = parse(tx.get(bob));
     *     tx.put(alice, format(from - 10));
     *     tx.put(bob, format(to + 10));
     *     return null;
     * });
     * }</pre>
     *
     * @return what {@code body} returned in the run that committed.
     * @throws TransactionConflictException when every run met a conflict.
     */
    public <T> T transact(final TransactionBody<T> body)
    {
        TransactionConflictException last = null;
        long backoffNanos = 2_000;
        for (int run = 0; run <= context.txnRetries(); run++)
        {
            final Transaction tx = begin();
            final T result;
            try
            {
                result = body.run(tx);
            }
            catch (final RuntimeException ex)
            {
                tx.abort();
                if (!(ex instanceof TransactionConflictException conflict))
                {
                    throw ex;
                }
                last = conflict;
                backoffNanos = backOff(backoffNanos);
                continue;
            }
            try
            {
                tx.commit();
                return result;
            }
            catch (final TransactionConflictException ex)
            {
                last = ex;
                backoffNanos = backOff(backoffNanos);
            }
        }
        throw new TransactionConflictException("gave up after " + (context.txnRetries() + 1) + " runs, each in " +
            "conflict; the last: " + last.getMessage());
    }

    /**
     * Begin a transaction to read and write through, then {@link Transaction#commit()} (which throws
     * {@link TransactionConflictException} on a conflict, having written nothing) or {@link Transaction#abort()}.
     */
    public Transaction begin()
    {
        if (closed)
        {
            throw new KvException("the client is closed");
        }
        return new Transaction(txnServices);
    }

    /**
     * As {@link #transact}, without a thread waiting: {@code body} reads through {@link Transaction#getAsync} and
     * returns a future of its result; the commit is {@link Transaction#commitAsync}. On a conflict {@code body} runs
     * again, after a random backoff, up to {@code dkv.client.txn.retries} times.
     *
     * @return completes with what {@code body}'s future completed with in the run that committed.
     */
    public <T> CompletableFuture<T> transactAsync(final AsyncTransactionBody<T> body)
    {
        return transactAsync(body, asyncExecutor, 0, 2_000);
    }

    /**
     * As {@link #transactAsync(AsyncTransactionBody)}, each commit's requests posted by {@code poster}
     * ({@link Transaction#commitAsync(Executor)}): threads of the caller's that may wait a moment on the client, never
     * ones that deliver its completions (a compute node's event loop). A commit carried by completions then takes no
     * thread of the client's: the parallel commit of keys it read (a transfer, an MSET over keys that hold values).
     */
    public <T> CompletableFuture<T> transactAsync(final AsyncTransactionBody<T> body, final Executor poster)
    {
        return transactAsync(body, poster, 0, 2_000);
    }

    private <T> CompletableFuture<T> transactAsync(final AsyncTransactionBody<T> body, final Executor poster,
        final int run, final long backoffNanos)
    {
        final Transaction tx;
        final CompletableFuture<T> result;
        try
        {
            tx = begin();
            result = body.run(tx);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return result.thenCompose(value -> tx.commitAsync(poster).thenApply(ignored -> value))
            .exceptionallyComposeAsync(ex ->
            {
                if (ConflictRetry.runsAgain(ex, run, context.txnRetries()))
                {
                    // run again: this run's intents go first
                    tx.abort();
                }
                return ConflictRetry.afterFailure(ex, run, context.txnRetries(), backoffNanos, MAX_BACKOFF_NANOS,
                    asyncExecutor, (next, backoff) -> transactAsync(body, poster, next, backoff));
            }, asyncExecutor);
    }

    /**
     * A transaction none of whose reads waits, for a caller whose function is written synchronously (a compute node's
     * commands over collections): {@code body} runs on {@code poster} against reads answered from what is known
     * ({@link Transaction#replaying}); a read of a key not known yet throws {@link ReadsNeeded}, ending the run, and
     * those keys are read, carried by completions, before {@code body} runs again from the start in a new transaction
     * with every read so far. A run that returns commits through {@link Transaction#commitAsync(Executor)} posted by
     * {@code poster}; a conflict runs it again with nothing known, after a random backoff, up to
     * {@code dkv.client.txn.retries} times. {@code body} may run many times, so it must have no effect but on its
     * transaction, and its result is the last run's.
     *
     * @param poster as {@link #transactAsync(AsyncTransactionBody, Executor)}'s: never one of the client's threads,
     *               nor one that delivers its completions.
     * @return completes with what the run that committed returned.
     */
    public <T> CompletableFuture<T> transactReplayed(final Function<Transaction, T> body, final Executor poster)
    {
        if (closed)
        {
            return CompletableFuture.failedFuture(new KvException("the client is closed"));
        }
        return new ReplayedTransaction<>(txnServices, body, poster, context.txnRetries(), MAX_BACKOFF_NANOS).run();
    }

    private static long backOff(final long backoffNanos)
    {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(backoffNanos));
        return Math.min(MAX_BACKOFF_NANOS, backoffNanos * 2);
    }

    // ---- asynchronous: carried by completions; what they cannot carry runs on one of the client's threads ----

    /**
     * A GET without a thread waiting for it: its reads are posted now, and the completion of the last completes the
     * future, on the thread that delivered it (the driver's Poller, or a caller polling), so that one thread can keep
     * many GETs in flight. Continue with the {@code ...Async} stages of the future for work that blocks or takes
     * long. A GET its completions cannot answer alone (a key moving, a split, a failure, a miss to confirm) runs
     * synchronously on one of the client's threads.
     */
    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        return startGet(AsyncGet.VALUE, key);
    }

    /** As {@link #getVersioned}, carried by completions as {@link #getAsync}. */
    public CompletableFuture<Versioned> getVersionedAsync(final byte[] key)
    {
        return startGet(AsyncGet.VERSIONED, key);
    }

    /** As {@link #ttlMillis}, carried by completions as {@link #getAsync}. */
    public CompletableFuture<Long> ttlMillisAsync(final byte[] key)
    {
        return startGet(AsyncGet.TTL, key);
    }

    /**
     * As {@link #multiGet}, carried by completions: the keys in waves of {@link AsyncGets#inFlight} GETs as
     * {@link #getAsync}, the first started by this thread, each next one by a client thread once the wave before it
     * completed (no thread waits for a wave); the future is completed by the last GET's completion.
     */
    public CompletableFuture<List<byte[]>> multiGetAsync(final List<byte[]> keys)
    {
        final byte[][] array = keys.toArray(new byte[0][]);
        try
        {
            for (final byte[] key : array)
            {
                checkKey(key);
            }
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        final byte[][] values = new byte[array.length][];
        return getWave(array, values, 0).thenApply(ignored -> Arrays.asList(values));
    }

    /** GETs of {@code keys} from {@code from}, a wave at a time, into {@code values}. */
    private CompletableFuture<Void> getWave(final byte[][] keys, final byte[][] values, final int from)
    {
        final int to = Math.min(keys.length, from + getWave);
        final CompletableFuture<?>[] wave = new CompletableFuture[to - from];
        for (int k = from; k < to; k++)
        {
            final int at = k;
            wave[k - from] = getAsync(keys[k]).handle((value, failure) ->
            {
                // a collection is no value to a multiGet, as redis's MGET answers it
                if (failure != null && !WrongKindException.in(failure))
                {
                    throw failure instanceof RuntimeException runtime ? runtime : new KvException(
                        failure.getMessage(), failure);
                }
                values[at] = value;
                return null;
            });
        }
        final CompletableFuture<Void> done = CompletableFuture.allOf(wave);
        return to == keys.length ? done : done.thenComposeAsync(ignored -> getWave(keys, values, to), asyncExecutor);
    }

    /**
     * A put without a thread waiting for it: the write's requests are posted now, each round by the completion of
     * the one before, and the completion of its last CAS completes the future, on the thread that delivered it, so
     * that one thread can keep many writes in flight. A write its completions cannot carry (a key moving, a replica
     * unsettled or joining, a split, a race lost, a failure, a block over 64 KiB) runs synchronously on one of the
     * client's threads; so does telling the memory nodes when the client's durability asks it.
     */
    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value)
    {
        return putAsync(key, value, NO_EXPIRY);
    }

    /** As {@link #put(byte[], byte[], long)}, carried by completions as {@link #putAsync(byte[], byte[])}. */
    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value, final long expireAtMillis)
    {
        final CompletableFuture<Object> future = new CompletableFuture<>();
        try
        {
            checkKey(key);
            checkValue(value);
            checkExpiry(expireAtMillis);
            startWrite(ReplicaChain.PUT, key, value, null, null, expireAtMillis, future);
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
        }
        return future.thenApply(ignored -> null);
    }

    /** As {@link #delete(byte[])}, carried by completions as {@link #putAsync(byte[], byte[])}. */
    public CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        final CompletableFuture<Object> future = new CompletableFuture<>();
        try
        {
            checkKey(key);
            startWrite(ReplicaChain.DELETE, key, null, null, null, NO_EXPIRY, future);
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
        }
        return asBoolean(future);
    }

    /** As {@link #compareAndSet(byte[], byte[], byte[])}, carried by completions as {@link #putAsync}. */
    public CompletableFuture<Boolean> compareAndSetAsync(final byte[] key, final byte[] expected, final byte[] value)
    {
        return compareAndSetAsync(key, expected, value, NO_EXPIRY);
    }

    /** As {@link #compareAndSet(byte[], byte[], byte[], long)}, carried by completions as {@link #putAsync}. */
    public CompletableFuture<Boolean> compareAndSetAsync(
        final byte[] key, final byte[] expected, final byte[] value, final long expireAtMillis)
    {
        final CompletableFuture<Object> future = new CompletableFuture<>();
        try
        {
            checkKey(key);
            checkValue(value);
            checkExpiry(expireAtMillis);
            if (expected != null)
            {
                checkValue(expected);
            }
            startWrite(ReplicaChain.IF_VALUE, key, value, expected, null, expireAtMillis, future);
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
        }
        return asBoolean(future);
    }

    /** As {@link #compareAndSetVersion(byte[], Versioned, byte[])}, carried by completions as {@link #putAsync}. */
    public CompletableFuture<Boolean> compareAndSetVersionAsync(final byte[] key, final Versioned expected,
        final byte[] value)
    {
        return compareAndSetVersionAsync(key, expected, value, NO_EXPIRY);
    }

    /**
     * As {@link #compareAndSetVersion(byte[], Versioned, byte[], long)}, carried by completions as
     * {@link #putAsync}.
     */
    public CompletableFuture<Boolean> compareAndSetVersionAsync(
        final byte[] key, final Versioned expected, final byte[] value, final long expireAtMillis)
    {
        try
        {
            checkKey(key);
            checkValue(value);
            checkExpiry(expireAtMillis);
            if (expected == null)
            {
                throw new IllegalArgumentException("no version given: for a key that must have no value, use " +
                    "compareAndSet(key, null, value)");
            }
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return writeVersionAsync(key, expected, value, expireAtMillis);
    }

    /** As {@link #compareAndSetVersionAsync(byte[], Versioned, byte[], long)}, given the block's expiry word. */
    private CompletableFuture<Boolean> writeVersionAsync(final byte[] key, final Versioned expected, final byte[] value,
        final long expiryWord)
    {
        if (KvBlockLayout.isExpired(expected.expireAtMillis(), context.epochClock().time()))
        {
            // that version is gone whether or not its slot still names it: the key has no value now
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        final CompletableFuture<Object> future = new CompletableFuture<>();
        try
        {
            startWrite(ReplicaChain.IF_VERSION, key, value, null, expected, expiryWord, future);
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
        }
        return asBoolean(future);
    }

    /**
     * As {@link #expireAt}: a versioned read and a compare-and-set of the version, both carried by completions, again
     * on one of the client's threads while other writes come between.
     */
    public CompletableFuture<Boolean> expireAtAsync(final byte[] key, final long expireAtMillis)
    {
        try
        {
            checkKey(key);
            checkExpiry(expireAtMillis);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return rewriteVersion(key, expireAtMillis, false, 0);
    }

    /** As {@link #persist}, carried as {@link #expireAtAsync}. */
    public CompletableFuture<Boolean> persistAsync(final byte[] key)
    {
        try
        {
            checkKey(key);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return rewriteVersion(key, NO_EXPIRY, true, 0);
    }

    /**
     * The key's value again with another expiry, from the version read: {@link #expireAt} and {@link #persist}. The
     * next step starts on one of the client's threads, never on the thread that delivered the completion.
     *
     * @param onlyExpiring true: false at once when the value has no expiry (PERSIST).
     */
    private CompletableFuture<Boolean> rewriteVersion(final byte[] key, final long expireAtMillis,
        final boolean onlyExpiring, final int attempt)
    {
        if (attempt == context.maxRetries())
        {
            return CompletableFuture.failedFuture(
                KvErrors.racesLost(onlyExpiring ? "persisting" : "expiring", key, context.maxRetries()));
        }
        return getVersionedAsync(key).thenComposeAsync(current ->
        {
            if (current == null || (onlyExpiring && current.expireAtMillis() == NO_EXPIRY))
            {
                return CompletableFuture.completedFuture(Boolean.FALSE);
            }
            if (current.kind() != ValueKind.STRING)
            {
                // a collection's segments expire with its header: changed together, in a transaction
                return CompletableFuture.failedFuture(new WrongKindException(key, current.kind(), ValueKind.STRING));
            }
            return writeVersionAsync(key, current, current.value(),
                ValueKind.withExpiry(current.expiryWord(), expireAtMillis)).thenComposeAsync(
                written -> written ? CompletableFuture.completedFuture(Boolean.TRUE) :
                    rewriteVersion(key, expireAtMillis, onlyExpiring, attempt + 1), asyncExecutor);
        }, asyncExecutor);
    }

    /** @return GETs of {@link #getAsync} their completions answered alone, over every thread's. */
    long getsAnsweredByCompletions()
    {
        synchronized (sessions)
        {
            return sessions.stream().mapToLong(KvSession::getsAnsweredByCompletions).sum();
        }
    }

    /** @return writes of {@link #putAsync} and the like their completions finished alone, over every thread's. */
    long writesAnsweredByCompletions()
    {
        synchronized (sessions)
        {
            return sessions.stream().mapToLong(KvSession::writesAnsweredByCompletions).sum() +
                persistRequests.completed();
        }
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> startGet(final int kind, final byte[] key)
    {
        if (closed)
        {
            return CompletableFuture.failedFuture(new KvException("the client is closed"));
        }
        final CompletableFuture<Object> future = new CompletableFuture<>();
        try
        {
            checkKey(key);
            pollCompletions();
            if (!session().startGet(kind, key, future, slowPath))
            {
                slowPath.get(kind, key, future);
            }
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
        }
        return (CompletableFuture<T>)future;
    }

    private void startWrite(final int rule, final byte[] key, final byte[] value, final byte[] expected,
        final Versioned version, final long expireAtMillis, final CompletableFuture<Object> future)
    {
        pollCompletions();
        if (!session().startWrite(rule, key, value, expected, version, expireAtMillis, future, slowPath))
        {
            slowPath.write(rule, key, value, expected, version, expireAtMillis, future);
        }
    }

    /** Where the handles do not deliver completions themselves, start the agent that does, once. */
    private void pollCompletions()
    {
        if (!polled)
        {
            completionPolling.start();
            polled = true;
        }
    }

    private static CompletableFuture<Boolean> asBoolean(final CompletableFuture<Object> future)
    {
        return future.thenApply(Boolean.class::cast);
    }

    /** The store's single-key operations on the calling thread's session, intents as they are. */
    private final class SessionKeys implements CommitKeys
    {
        public Versioned read(final byte[] key)
        {
            return session().readRaw(key);
        }

        public boolean swap(final byte[] key, final Versioned from, final byte[] value, final long expireAt)
        {
            return session().swapRaw(key, value, from, expireAt);
        }

        public boolean swapExact(final byte[] key, final Versioned from, final byte[] value, final long expireAt)
        {
            return session().swapRawExact(key, value, from, expireAt);
        }

        public PreparedSwap prepareSwap(final byte[] key, final byte[] value, final long expireAt)
        {
            if (closed)
            {
                return null;
            }
            pollCompletions();
            final CompletableFuture<Object> done = new CompletableFuture<>();
            final AsyncWrite write = session().prepareSwap(key, null, value, expireAt, done, slowPath);
            return write == null ? null : new PreparedSwap(write, done);
        }

        public <T> T await(final CompletableFuture<T> future)
        {
            return session().await(future);
        }

        public boolean freeing(final boolean freeing)
        {
            return session().chunks().freeing(freeing);
        }

        public CompletableFuture<Versioned> readAsync(final byte[] key)
        {
            return startVersioned(AsyncGet.VERSIONED, key);
        }

        public CompletableFuture<Versioned> readRawAsync(final byte[] key)
        {
            return startVersioned(AsyncGet.RAW, key);
        }

        @SuppressWarnings("unchecked")
        private CompletableFuture<Versioned> startVersioned(final int kind, final byte[] key)
        {
            if (closed)
            {
                return CompletableFuture.failedFuture(new KvException("the client is closed"));
            }
            pollCompletions();
            final CompletableFuture<Object> future = new CompletableFuture<>();
            if (!session().startGet(kind, key, future, slowPath))
            {
                slowPath.get(kind, key, future);
            }
            return (CompletableFuture<Versioned>)(CompletableFuture<?>)future;
        }

        public boolean insert(final byte[] key, final byte[] value, final long expireAt)
        {
            return session().insertRaw(key, value, expireAt);
        }

        public Versioned lastWritten()
        {
            return session().lastWritten();
        }

        public long epochMillis()
        {
            return context.epochClock().time();
        }

        public long nanoTime()
        {
            return context.nanoClock().nanoTime();
        }
    }

    /** The synchronous operations behind the asynchronous forms, on the client's threads. */
    private final class SlowPath implements AsyncSlowPath
    {
        public void get(final int kind, final byte[] key, final CompletableFuture<Object> future)
        {
            if (kind == AsyncGet.RAW)
            {
                // a transaction's own read, which waits on no other: never queued behind readers that may
                run(swapExecutor, future, () -> session().readRaw(key));
                return;
            }
            run(future, () -> switch (kind)
            {
                // the key was checked as the read started; a transaction's reads of reserved keys come this way too
                case AsyncGet.VERSIONED -> session().getVersioned(key);
                case AsyncGet.TTL -> ttlMillis(key);
                default -> KvClient.this.get(key);
            });
        }

        public void write(final int rule, final byte[] key, final byte[] value, final byte[] expected,
            final Versioned version, final long expireAt, final CompletableFuture<Object> future)
        {
            run(future, () -> switch (rule)
            {
                case ReplicaChain.PUT ->
                {
                    put(key, value, expireAt);
                    yield null;
                }
                case ReplicaChain.DELETE -> delete(key);
                case ReplicaChain.IF_VALUE -> compareAndSet(key, expected, value, expireAt);
                default -> compareAndSetVersion(key, version, value, expireAt);
            });
        }

        public void swapRaw(final byte[] key, final Versioned version, final byte[] value, final long expireAt,
            final CompletableFuture<Object> future)
        {
            run(swapExecutor, future, () -> (version == null ? session().insertRaw(key, value, expireAt) :
                session().swapRawExact(key, value, version, expireAt)) ? session().lastWritten() : Boolean.FALSE);
        }

        public void finishChain(final ChainRest rest)
        {
            run(rest.future(), () ->
            {
                session().chain().finish(rest);
                return rest.answer();
            });
        }

        public boolean persist(final PersistRequests.Job job)
        {
            if (closed)
            {
                return false;
            }
            completionPolling.start();
            return persistRequests.offer(job);
        }

        private void run(final CompletableFuture<Object> future, final Supplier<Object> operation)
        {
            run(asyncExecutor, future, operation);
        }

        private void run(final ExecutorService executor, final CompletableFuture<Object> future,
            final Supplier<Object> operation)
        {
            try
            {
                executor.execute(() ->
                {
                    try
                    {
                        future.complete(operation.get());
                    }
                    catch (final RuntimeException ex)
                    {
                        future.completeExceptionally(ex);
                    }
                });
            }
            catch (final RejectedExecutionException ex)
            {
                future.completeExceptionally(new KvException("the client is closed", ex));
            }
        }
    }

    private KvSession session()
    {
        if (closed)
        {
            throw new KvException("the client is closed");
        }
        final SessionSlot slot = session.get();
        KvSession current = slot.session;
        if (current == null)
        {
            current = newSession(slot);
        }
        // an operation begins: it runs under the durability the client has now, to its end
        current.chunks().durability(context.durability());
        return current;
    }

    private KvSession newSession(final SessionSlot slot)
    {
        final int lane = Math.floorMod(nextLane.getAndIncrement(), lanes.length);
        final KvSession created = new KvSession(lanes[lane], context, availability, membership, nodesByLane[lane]);
        synchronized (sessions)
        {
            if (closed)
            {
                created.close();
                throw new KvException("the client is closed");
            }
            slot.session = created;
            sessions.add(created);
            slots.add(slot);
        }
        return created;
    }

    /** @return the calling thread's session when it holds its PERSISTs ({@link #deferPersists}), else null. */
    private KvSession deferringSession()
    {
        final SessionSlot slot = session.get();
        return slot.deferring ? slot.session : null;
    }

    /** A thread's session, and whether it holds its PERSISTs; written by its thread, emptied by close. */
    private static final class SessionSlot
    {
        KvSession session;
        boolean deferring;
    }

    private static void checkKey(final byte[] key)
    {
        if (key == null || key.length == 0 || key.length > KvBlockLayout.MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException("a key is 1 to " + KvBlockLayout.MAX_KEY_LENGTH +
                " bytes; this one is " + (key == null ? "null" : key.length + " bytes"));
        }
        if (ReservedKeys.isReserved(key))
        {
            throw new IllegalArgumentException(ReservedKeys.refusal(KvErrors.describe(key)));
        }
    }

    private static void checkExpiry(final long expireAtMillis)
    {
        if (expireAtMillis < 0 || expireAtMillis >= ValueKind.EXPIRY_LIMIT)
        {
            throw new IllegalArgumentException("an expiry time is epoch milliseconds below 2^56, or " + NO_EXPIRY +
                " for none; this one is " + expireAtMillis);
        }
    }

    private static void checkValue(final byte[] value)
    {
        if (value == null)
        {
            throw new IllegalArgumentException("a value is 0 to " + KvBlockLayout.MAX_VALUE_LENGTH +
                " bytes; this one is null");
        }
        checkValueLength(value.length);
    }

    private static void checkValueLength(final long length)
    {
        if (length > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("a value is 0 to " + KvBlockLayout.MAX_VALUE_LENGTH +
                " bytes; this one is " + length + " bytes");
        }
    }

    private static byte[] keyBytes(final MemorySegment key)
    {
        if (key.byteSize() == 0 || key.byteSize() > KvBlockLayout.MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException("a key is 1 to " + KvBlockLayout.MAX_KEY_LENGTH +
                " bytes; this one is " + key.byteSize() + " bytes");
        }
        final byte[] bytes = key.toArray(ValueLayout.JAVA_BYTE);
        checkKey(bytes);
        return bytes;
    }

    /** @return the store's single-key operations as transactions use them, intents as they are (for tests). */
    RawKeys rawKeys()
    {
        return rawKeys;
    }

    /** Close every thread's connections; the Raas handle stays open. */
    public void close()
    {
        // the transactions answered are resolved first, while the sessions are open
        resolutions.close();
        closed = true;
        clusterDurableThread.interrupt();
        if (Thread.currentThread() != clusterDurableThread)
        {
            try
            {
                clusterDurableThread.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        asyncExecutor.shutdown();
        swapExecutor.shutdown();
        // a task still running uses the sessions and the Raas handle under them: those go only once it is done (an
        // attached handle unmapped under a thread reading it ends the process)
        awaitTasks();
        try
        {
            synchronized (sessions)
            {
                sessions.forEach(KvSession::close);
                sessions.clear();
                for (final SessionSlot slot : slots)
                {
                    slot.session = null;
                    slot.deferring = false;
                }
                slots.clear();
            }
        }
        finally
        {
            // after the connections: what was in flight on them completes, failed, through it
            completionPolling.close();
        }
    }

    private void awaitTasks()
    {
        if (asyncThreads.contains(Thread.currentThread()))
        {
            return;
        }
        awaitTasks(asyncExecutor);
        awaitTasks(swapExecutor);
    }

    private void awaitTasks(final ExecutorService executor)
    {
        try
        {
            if (!executor.awaitTermination(context.timeoutMs() + 1000L, TimeUnit.MILLISECONDS))
            {
                executor.shutdownNow();
                executor.awaitTermination(1, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** @return a pool of the client's own threads, {@code context.asyncThreads()} of them, named from {@code name}. */
    private ExecutorService clientThreads(final String name)
    {
        final AtomicInteger threads = new AtomicInteger();
        return Executors.newFixedThreadPool(context.asyncThreads(), runnable ->
        {
            final Thread thread = new Thread(runnable, name + threads.incrementAndGet());
            thread.setDaemon(true);
            asyncThreads.add(thread);
            return thread;
        });
    }
}
