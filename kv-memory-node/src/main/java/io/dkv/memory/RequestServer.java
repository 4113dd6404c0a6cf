package io.dkv.memory;

import io.dkv.agent.SystemCounters;
import io.dkv.format.HeapLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.PersistRingLayout;
import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.RaasException;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The memory node's duty cycle: accept clients' message connections and answer what they ask of
 * its CPU: heap chunks, and writing keys to disk. Reads and writes of data never come here.
 * Keys to persist are gathered over one turn and written in one batch (one fsync for all that
 * asked for durability sync), each with what the index holds for it at that moment; after an
 * fsync the blocks written are marked settled, so readers stop asking for them.
 *
 * <p>Answers are offered, never sent waiting ({@link Connection#offer}): a client that has not consumed its earlier
 * answers holds no credit, and its new ones wait in its {@link AnswerQueue} for the next turns while every other
 * client is answered. A client with {@link #MAX_QUEUED_ANSWERS} waiting has its requests left unread until they go,
 * so its credits, not this node's memory, bound what it can ask. Answering by a blocking send stopped every client of
 * the node behind one that had stopped reading (or whose driver's receive queue had run dry).
 */
final class RequestServer implements Agent
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final System.Logger LOG = System.getLogger(RequestServer.class.getName());
    private static final int MAX_BATCH = 1024;
    /** Answers waiting for one client past which its requests are left unread. */
    static final int MAX_QUEUED_ANSWERS = 256;

    private final Listener listener;
    private final HeapChunks chunks;
    private final LocalIndex index;
    private final ExpirySweep expirySweep;
    /** Null when the node keeps nothing on disk. */
    private final KeyStore store;
    private final MemorySegment request;
    private final MemorySegment reply;
    private final List<Connection> clients = new ArrayList<>();
    private final List<byte[]> batchKeys = new ArrayList<>();
    /** Of the batch being gathered: the block each key's PERSIST named, or -1 (a key the expiry sweep emptied). */
    private final LongArrayList named = new LongArrayList();
    /**
     * Of the batch being gathered: for a writer's notice, the low 48 bits of the write id of the version its write
     * replaced (0: none); -1 for a key that is no notice (a reader settling a block, the expiry sweep, a retry).
     */
    private final LongArrayList namedPrevious = new LongArrayList();
    private final List<Connection> answerTo = new ArrayList<>();
    private final LongArrayList answerCorrelations = new LongArrayList();
    /** Of the batch being written: the block of each key, or -1 (none: a delete). */
    private final LongArrayList written = new LongArrayList();
    /** Each client's queue, made the first time one of its answers had to wait. */
    private final IdentityHashMap<Connection, AnswerQueue> answerQueues = new IdentityHashMap<>();
    /** The queues holding answers now. */
    private final List<AnswerQueue> waiting = new ArrayList<>();
    private final PersistStats stats;
    private final NanoClock clock;
    private final EpochClock epochClock;
    private final ReclaimSchedule reclaimSchedule;
    /** The longest wait between walks of the index when none is due for reclaiming ({@link #reclaim}). */
    private final long surveyNanos;
    /** When the last walk ended, epoch seconds (as {@link HeapLayout#WALKED_AT_OFFSET} tells it), 0 before one. */
    private int walkedAtEpochS;
    /** Whether the index was walked once: the first walk comes at once, with a clock that may read 0. */
    private boolean walked;
    /** The node's counters, which this agent alone writes. */
    private final AtomicCounter clientsAccepted;
    private final AtomicCounter clientsGone;
    private final AtomicCounter allocates;
    private final AtomicCounter persists;
    private final AtomicCounter lateNotices;
    private final AtomicCounter retires;
    private final AtomicCounter splits;
    private final AtomicCounter malformed;
    private final AtomicCounter heapFull;
    private boolean heapFullLogged;
    private final AtomicCounter keysPersisted;
    private final AtomicCounter batches;
    private final AtomicCounter batchFailures;
    private final AtomicCounter keysExpired;
    private final AtomicCounter chunksReclaimed;
    private final AtomicCounter answersQueued;
    private final AtomicCounter clientsHeldBack;
    private final AtomicCounter heapHandedOut;
    private final AtomicCounter heapLive;
    private final AtomicCounter heapRoom;
    private final AtomicCounter chunksPinned;
    private final AtomicCounter heapLimit;
    private final AtomicCounter limits;
    private final AtomicCounter logFsyncs;
    private final AtomicCounter logFsyncFailures;
    private final AtomicCounter persistBlockMessages;
    private final AtomicCounter syncs;
    private final AtomicCounter ringRequests;
    private final AtomicCounter ringEntries;
    /** Drops versions the cluster's durable epoch passed; null when the node keeps nothing on disk. */
    private final VersionSweep versionSweep;
    /** The versions the batch being written keeps, from its writers' notices. */
    private final KeyVersions versions;
    /** The rings clients write their async writes' blocks into; read each turn. */
    private final PersistRings rings;
    private final DurableEpoch durable;
    /** When a turn last found nothing to write or fsync and kept the durable epoch. */
    private long quietSinceNanos;
    private final PersistRings.NoticeHandler ringNotice = this::persistFromRing;
    private final long fsyncIntervalNanos;
    private final boolean drainOnClose;
    /** When the oldest write to disk made without an fsync was made, valid while {@link #unsynced}. */
    private long unsyncedSinceNanos;
    private boolean unsynced;
    /** When the oldest write not fsynced yet was made (epoch ms), or 0, as the index header shows it. */
    private long unsyncedSinceEpochMs;
    private int lagP99Ms;
    private long lagP99AtNanos;
    /** Keys are gathered for the next write of the key store, since {@link #gatheringSinceNanos}. */
    private boolean gathering;
    private long gatheringSinceNanos;
    private final long batchDelayNanos;
    private boolean draining;
    /** Keys the key store refused (a full disk), kept until a write of them succeeds. */
    private final UnwrittenKeys unwritten = new UnwrittenKeys();
    /** Work other threads hand this one, run at the start of a turn: the node's key store has one writer. */
    private final ManyToOneConcurrentArrayQueue<Runnable> tasks = new ManyToOneConcurrentArrayQueue<>(16);
    /**
     * The node came back from a disk with versions and its keys may yet be rolled back to a cut: versions are not
     * dropped and its durable epoch stays as loaded until {@link #endRecovery}.
     */
    private volatile boolean recovering;
    /** This node's incarnation: a RESTART naming another is refused. */
    private final long incarnation;
    /** null where the node cannot restart itself. */
    private final LongConsumer restartFromDisk;
    /** A restart was asked for and is under way: asked again, it answers OK and does nothing more. */
    private boolean restartAsked;

    RequestServer(
        final Listener listener,
        final HeapChunks chunks,
        final LocalIndex index,
        final ExpirySweep expirySweep,
        final VersionSweep versionSweep,
        final KeyStore store,
        final MemorySegment request,
        final MemorySegment reply,
        final PersistStats stats,
        final NanoClock clock,
        final EpochClock epochClock,
        final long fsyncIntervalNanos,
        final long batchDelayNanos,
        final long epochMs,
        final boolean drainOnClose,
        final boolean awaitsCut,
        final long incarnation,
        final LongConsumer restartFromDisk,
        final SystemCounters<MemoryNodeCounter> counters)
    {
        this.incarnation = incarnation;
        this.restartFromDisk = restartFromDisk;
        this.fsyncIntervalNanos = fsyncIntervalNanos;
        this.batchDelayNanos = batchDelayNanos;
        this.drainOnClose = drainOnClose;
        this.logFsyncs = counters.get(MemoryNodeCounter.LOG_FSYNCS);
        this.logFsyncFailures = counters.get(MemoryNodeCounter.LOG_FSYNC_FAILURES);
        this.persistBlockMessages = counters.get(MemoryNodeCounter.REQUESTS_PERSIST_BLOCKS);
        this.syncs = counters.get(MemoryNodeCounter.REQUESTS_SYNC);
        this.ringRequests = counters.get(MemoryNodeCounter.REQUESTS_PERSIST_RING);
        this.ringEntries = counters.get(MemoryNodeCounter.RING_ENTRIES);
        this.lateNotices = counters.get(MemoryNodeCounter.LATE_NOTICES);
        this.clientsAccepted = counters.get(MemoryNodeCounter.CLIENTS_ACCEPTED);
        this.clientsGone = counters.get(MemoryNodeCounter.CLIENTS_GONE);
        this.allocates = counters.get(MemoryNodeCounter.REQUESTS_ALLOCATE);
        this.persists = counters.get(MemoryNodeCounter.REQUESTS_PERSIST);
        this.retires = counters.get(MemoryNodeCounter.REQUESTS_RETIRE);
        this.splits = counters.get(MemoryNodeCounter.REQUESTS_SPLIT);
        this.malformed = counters.get(MemoryNodeCounter.REQUESTS_MALFORMED);
        this.heapFull = counters.get(MemoryNodeCounter.HEAP_FULL);
        this.keysPersisted = counters.get(MemoryNodeCounter.KEYS_PERSISTED);
        this.batches = counters.get(MemoryNodeCounter.PERSIST_BATCHES);
        this.batchFailures = counters.get(MemoryNodeCounter.PERSIST_FAILURES);
        this.keysExpired = counters.get(MemoryNodeCounter.KEYS_EXPIRED);
        this.chunksReclaimed = counters.get(MemoryNodeCounter.CHUNKS_RECLAIMED);
        this.answersQueued = counters.get(MemoryNodeCounter.ANSWERS_QUEUED);
        this.clientsHeldBack = counters.get(MemoryNodeCounter.CLIENTS_HELD_BACK);
        this.heapHandedOut = counters.get(MemoryNodeCounter.HEAP_HANDED_OUT);
        this.heapLive = counters.get(MemoryNodeCounter.HEAP_LIVE);
        this.heapRoom = counters.get(MemoryNodeCounter.HEAP_ROOM);
        this.chunksPinned = counters.get(MemoryNodeCounter.CHUNKS_PINNED);
        this.heapLimit = counters.get(MemoryNodeCounter.HEAP_LIMIT);
        this.limits = counters.get(MemoryNodeCounter.REQUESTS_LIMIT);
        this.listener = listener;
        this.chunks = chunks;
        this.index = index;
        publishRoom();
        this.versions = new KeyVersions(index);
        this.versionSweep = versionSweep;
        this.rings = new PersistRings(index.heap());
        this.durable = new DurableEpoch(rings, store, index, epochClock, epochMs);
        this.recovering = awaitsCut;
        if (recovering)
        {
            durable.freeze();
        }
        this.quietSinceNanos = clock.nanoTime();
        this.expirySweep = expirySweep;
        this.store = store;
        this.request = request;
        this.reply = reply;
        this.stats = stats;
        this.clock = clock;
        this.epochClock = epochClock;
        // often enough that a freed chunk waits little longer than its grace period, rarely enough to cost little
        final long reclaimNanos = Math.max(10_000_000L, Math.min(1_000_000_000L, chunks.graceNanos() / 4));
        this.reclaimSchedule = new ReclaimSchedule(reclaimNanos, clock.nanoTime());
        // as rarely as the reclaim's walks when they find nothing: walking 10^6 slots each second took a tenth of a
        // core (ReclaimSchedule), so every 8 s costs about 1%
        this.surveyNanos = reclaimNanos * ReclaimSchedule.MAX_BACKOFF;
    }

    public String roleName()
    {
        return "dkv-memory-requests";
    }

    public int doWork()
    {
        int work = flushAnswers() + runTasks();
        Connection accepted;
        while ((accepted = listener.poll()) != null)
        {
            clients.add(accepted);
            clientsAccepted.incrementRelease();
            work++;
        }
        final long turnStart = clock.nanoTime();
        for (int i = clients.size() - 1; i >= 0 && batchKeys.size() < MAX_BATCH; i--)
        {
            final Connection client = clients.get(i);
            final AnswerQueue queue = answerQueues.get(client);
            if (queue != null && queue.size() >= MAX_QUEUED_ANSWERS)
            {
                clientsHeldBack.incrementRelease();
                continue;
            }
            try
            {
                while (client.isReadable() && batchKeys.size() < MAX_BATCH)
                {
                    final int length = client.recv(request, 0, (int)request.byteSize(), Duration.ZERO);
                    handle(client, length);
                    work++;
                }
            }
            catch (final RaasException gone)
            {
                // the client closed its end (or went away): its chunks get no more blocks, and are reclaimed once
                // unused
                clients.remove(i);
                final AnswerQueue unanswered = answerQueues.remove(client);
                if (unanswered != null)
                {
                    waiting.remove(unanswered);
                }
                clientsGone.incrementRelease();
                client.close();
                // what it wrote into its rings before it went: they may name the only copies of answered writes
                work += takeFromRings(rings.ownerGone(client, ringNotice));
                chunks.ownerGone(client, turnStart);
            }
        }
        // a SYNC answered with this turn's batch covers what its client wrote into a ring before sending it: all of it
        final int ringLimit = answerTo.isEmpty() ? Math.max(0, MAX_BATCH - batchKeys.size()) : Integer.MAX_VALUE;
        if (takeFromRings(rings.poll(ringNotice, ringLimit)) >= ringLimit)
        {
            // entries left behind: the next turn comes at once. Entries taken are no work for the idle strategy:
            // they wait for the batch delay anyway, and counting them kept this thread from backing off under a
            // writer's load: 2 s of CPU per 150,000 SETs, mostly to switch in and out (docs/BENCHMARKS.md)
            work++;
        }
        // the keys it empties go to disk with this turn's batch: written as what the index holds for them then
        final int expired = expirySweep.sweep(turnStart, store == null ? null : batchKeys);
        padNotices();
        if (expired > 0)
        {
            keysExpired.getAndAddRelease(expired);
        }
        work += expired;
        if (!batchKeys.isEmpty() && !gathering)
        {
            gathering = true;
            gatheringSinceNanos = turnStart;
        }
        if (!batchKeys.isEmpty() && (!answerTo.isEmpty() || draining || batchKeys.size() >= MAX_BATCH ||
            turnStart - gatheringSinceNanos - batchDelayNanos >= 0))
        {
            // keys no writer waits for (durability async) gather over turns, up to the batch delay: one write of the
            // key store costs a system call whatever it holds, and one a turn cost 25 us of this thread per key
            // under a pipeline (1.3 keys a batch); a sync request writes what is gathered at once
            gathering = false;
            persistBatch(gatheringSinceNanos);
        }
        else if (!answerTo.isEmpty())
        {
            // SYNCs alone: the log's fsync covers what was written before them, unless the disk refused some of it
            if (unsynced && !unwritten.failing())
            {
                syncLog();
            }
            answerAll(unwritten.failing() || unsynced ? MemoryNodeProtocol.DISK_FAILED : MemoryNodeProtocol.OK);
        }
        else if (unwritten.due(turnStart))
        {
            // the keys the disk refused, tried again an interval after
            persistBatch(turnStart);
            work++;
        }
        if (unsynced && !unwritten.failing() && turnStart - unsyncedSinceNanos - fsyncIntervalNanos >= 0)
        {
            syncLog();
            work++;
        }
        else if (store != null && !unsynced && batchKeys.isEmpty() && !unwritten.failing() &&
            turnStart - quietSinceNanos - fsyncIntervalNanos >= 0)
        {
            // nothing waits to be written or fsynced: what the rings' marks say is on disk already, and the epoch is
            // kept with an fsync of its own; once an interval, so that an idle node costs one small fsync an interval.
            // Not a write of anyone's keys: the disk's state as clients read it (unsynced since, the lag) is untouched
            quietSinceNanos = turnStart;
            if (durable.quiet())
            {
                syncDurableEpoch(turnStart);
            }
        }
        return work + sweepVersions(turnStart) + reclaim(turnStart);
    }

    /**
     * Hand this thread work of another's.
     *
     * @return false when too much waits already.
     */
    boolean offerTask(final Runnable task)
    {
        return tasks.offer(task);
    }

    private int runTasks()
    {
        int ran = 0;
        Runnable task;
        while ((task = tasks.poll()) != null)
        {
            if (!batchKeys.isEmpty())
            {
                // what was taken before goes to disk first, as it would have
                gathering = false;
                persistBatch(gatheringSinceNanos);
            }
            task.run();
            ran++;
        }
        return ran;
    }

    /**
     * Roll the node's keys back to {@code cut} (a task: on this thread), its durable epoch with them.
     *
     * @throws IllegalStateException when the node is not recovering from its disk, or the rollback failed.
     */
    RollbackReport rollBack(final KeyRollback rollback, final long cut)
    {
        if (!recovering)
        {
            throw new IllegalStateException("memory node serves already: its keys cannot be rolled back to epoch " +
                cut);
        }
        final RollbackReport report = rollback.rollBack(cut);
        durable.rolledBackTo(cut);
        index.publishRolledBackTo(cut);
        return report;
    }

    /** @return whether the node may yet be rolled back to a cut (read by any thread: a moment's answer). */
    boolean awaitsCut()
    {
        return recovering;
    }

    /** The node serves again as a member: its durable epoch goes on and versions are dropped again (a task). */
    void endRecovery()
    {
        if (recovering)
        {
            recovering = false;
            durable.thaw();
        }
    }

    /** A slice of the versions' pass, while the disk takes writes: counted as work, so that a pass goes on apace. */
    private int sweepVersions(final long turnStart)
    {
        if (versionSweep == null || recovering || unwritten.failing())
        {
            return 0;
        }
        try
        {
            return versionSweep.sweep(turnStart) > 0 ? 1 : 0;
        }
        catch (final IllegalStateException ex)
        {
            // the disk refused the deletes: the keys' next batch finds it so and says why; versions wait for a pass
            batchFailures.incrementRelease();
            return 0;
        }
    }

    /** The durable epoch {@link DurableEpoch#quiet} wrote, fsynced: a restart reads it after a crash of the host. */
    private void syncDurableEpoch(final long nowNanos)
    {
        try
        {
            store.syncWal();
            logFsyncs.incrementRelease();
        }
        catch (final IllegalStateException ex)
        {
            // as a write of keys not fsynced: tried again with the interval's fsync, and shown
            markUnsynced(nowNanos, epochClock.time());
        }
    }

    /** Something was written to the key store without an fsync: fsynced within the interval from now. */
    private void markUnsynced(final long nowNanos, final long nowMillis)
    {
        if (!unsynced)
        {
            unsynced = true;
            unsyncedSinceNanos = nowNanos;
            unsyncedSinceEpochMs = nowMillis;
            stats.onUnsynced(nowNanos);
            publishDiskState();
        }
    }

    /**
     * Fsync the key store's log: what async writers' keys were written without reaches the disk, at most the fsync
     * interval after the oldest of them (redis's appendfsync everysec). On this thread, between turns: an fsync holds
     * up chunk requests and persists for its length, once an interval, and no request waits on a lock for it.
     */
    private void syncLog()
    {
        final long since = unsyncedSinceNanos;
        try
        {
            durable.syncStarted();
            store.syncWal();
            unsynced = false;
            unsyncedSinceEpochMs = 0;
            logFsyncs.incrementRelease();
            stats.onFsync(epochClock.time(), clock.nanoTime() - since, true);
            publishDiskState();
            durable.synced();
        }
        catch (final IllegalStateException ex)
        {
            // tried again a whole interval later, so that a failing disk is not hammered; the writes stay unsynced
            unsyncedSinceNanos = clock.nanoTime();
            logFsyncFailures.incrementRelease();
            stats.onFsync(epochClock.time(), 0, false);
            publishDiskState();
            LOG.log(System.Logger.Level.ERROR, ex.getMessage());
        }
    }

    /**
     * The disk's state in the index header, for clients (a compute node's INFO persistence): the last fsync's time and
     * outcome, the oldest write not fsynced, and the lag's p99, counted again at most every 100 ms.
     */
    private void publishDiskState()
    {
        final long now = clock.nanoTime();
        if (now - lagP99AtNanos >= 100_000_000L || lagP99AtNanos == 0)
        {
            lagP99AtNanos = now;
            lagP99Ms = stats.lagP99Ms();
        }
        // a disk that refuses writes shows as failed, its keys unsynced since its first refusal
        index.publishDiskState(stats.lastFsyncEpochMs(),
            unwritten.failing() ? unwritten.failedAtEpochMs() : unsyncedSinceEpochMs, lagP99Ms,
            stats.lastFsyncOk() && !unwritten.failing());
    }

    /**
     * A clean stop: the requests already in the clients' rings are handled (their keys written), and the log is
     * fsynced whatever the interval, as redis's shutdown save. Bounded: a client that keeps sending is not waited for.
     */
    void drain()
    {
        draining = true;
        for (int turn = 0; turn < 64; turn++)
        {
            if (doWork() == 0)
            {
                break;
            }
        }
        if (unsynced)
        {
            syncLog();
        }
        if (store != null && !unsynced && batchKeys.isEmpty() && !unwritten.failing() &&
            (clients.isEmpty() ? durable.allTold() : durable.quiet()))
        {
            // a clean stop keeps what it was told as durable: a restart's cut takes back nothing acknowledged
            // before it (with every client gone, everything up to now; else what their marks say)
            syncDurableEpoch(clock.nanoTime());
        }
    }

    /** Offer the answers that waited, oldest first per client. @return answers sent. */
    private int flushAnswers()
    {
        int sent = 0;
        for (int i = waiting.size() - 1; i >= 0; i--)
        {
            final AnswerQueue queue = waiting.get(i);
            try
            {
                sent += queue.flush();
            }
            catch (final RaasException gone)
            {
                // its client went away: nobody will read them; the client is removed on its next turn
                queue.clear();
            }
            if (queue.isEmpty())
            {
                waiting.remove(i);
            }
        }
        return sent;
    }

    private int reclaim(final long nowNanos)
    {
        int work = chunks.release(nowNanos);
        if (work > 0)
        {
            chunksReclaimed.getAndAddRelease(work);
            publishRoom();
        }
        final boolean reclaimDue =
            chunks.hasRetired() && reclaimSchedule.due(nowNanos, chunks.retirements(), heapFull.get());
        // with nothing to reclaim the walk still comes now and then, so that what the heap holds live stays told
        if (reclaimDue || !walked || nowNanos - chunks.walkedAtNanos() >= surveyNanos)
        {
            final int quarantined = chunks.reclaim(index, nowNanos);
            work += quarantined + 1;
            if (reclaimDue)
            {
                reclaimSchedule.walked(nowNanos, quarantined, chunks.retirements(), heapFull.get());
            }
            walked = true;
            walkedAtEpochS = (int)(epochClock.time() / 1000);
            publishRoom();
        }
        return work;
    }

    private void handle(final Connection client, final int length)
    {
        if (length < MemoryNodeProtocol.REQUEST_LENGTH)
        {
            malformed.incrementRelease();
            answer(client, 0, MemoryNodeProtocol.BAD_REQUEST, 0, -1);
            return;
        }
        final long correlation = request.get(LONG, MemoryNodeProtocol.CORRELATION_OFFSET);
        final int argument = request.get(INT, MemoryNodeProtocol.ARGUMENT_OFFSET);
        switch (request.get(INT, MemoryNodeProtocol.TYPE_OFFSET))
        {
            case MemoryNodeProtocol.ALLOCATE ->
            {
                allocates.incrementRelease();
                allocate(client, correlation, argument, request.get(LONG, MemoryNodeProtocol.BLOCK_OFFSET), false);
            }
            case MemoryNodeProtocol.PERSIST ->
            {
                persists.incrementRelease();
                final long field = request.get(LONG, MemoryNodeProtocol.WRITE_ID_OFFSET);
                final boolean notice = (argument & MemoryNodeProtocol.NAMES_PREVIOUS) != 0;
                persist(client, correlation, argument, request.get(LONG, MemoryNodeProtocol.BLOCK_OFFSET),
                    notice ? KvBlockLayout.NO_WRITE : field, notice ? previousOf(field) : -1);
            }
            case MemoryNodeProtocol.RETIRE ->
            {
                retires.incrementRelease();
                chunks.retire(request.get(LONG, MemoryNodeProtocol.BLOCK_OFFSET), client, clock.nanoTime());
            }
            case MemoryNodeProtocol.SPLIT ->
            {
                splits.incrementRelease();
                answer(client, correlation, index.split(request.get(LONG, MemoryNodeProtocol.BLOCK_OFFSET), argument) ==
                    LocalIndex.SPLIT_FULL ? MemoryNodeProtocol.FULL : MemoryNodeProtocol.OK, 0, -1);
            }
            case MemoryNodeProtocol.SYNC ->
            {
                syncs.incrementRelease();
                sync(client, correlation);
            }
            case MemoryNodeProtocol.PERSIST_BLOCKS ->
            {
                persistBlockMessages.incrementRelease();
                persistBlocks(client, correlation, argument, length);
            }
            case MemoryNodeProtocol.PERSIST_RING ->
            {
                ringRequests.incrementRelease();
                if (store == null)
                {
                    // nothing of this node goes to disk: its writers need not tell it anything
                    answer(client, correlation, MemoryNodeProtocol.NOT_PERSISTENT, 0, -1);
                }
                else
                {
                    allocate(client, correlation, argument, 0, true);
                }
            }
            case MemoryNodeProtocol.LIMIT ->
            {
                limits.incrementRelease();
                limit(client, correlation, request.get(LONG, MemoryNodeProtocol.BLOCK_OFFSET));
            }
            case MemoryNodeProtocol.RESTART -> restart(client, correlation,
                request.get(LONG, MemoryNodeProtocol.BLOCK_OFFSET),
                request.get(LONG, MemoryNodeProtocol.WRITE_ID_OFFSET));
            default ->
            {
                malformed.incrementRelease();
                answer(client, correlation, MemoryNodeProtocol.BAD_REQUEST, 0, -1);
            }
        }
    }

    /** A member found every copy of some keys lost while this node served: start again from the disk. */
    private void restart(final Connection client, final long correlation, final long asked, final long askerId)
    {
        final int status;
        if (store == null)
        {
            status = MemoryNodeProtocol.NOT_PERSISTENT;
        }
        else if (asked != incarnation)
        {
            status = MemoryNodeProtocol.GONE;
        }
        else if (restartFromDisk == null)
        {
            status = MemoryNodeProtocol.BAD_REQUEST;
        }
        else
        {
            status = MemoryNodeProtocol.OK;
            if (!restartAsked)
            {
                restartAsked = true;
                LOG.log(System.Logger.Level.WARNING, "memory node " + askerId + " found every copy of some keys " +
                    "lost: incarnation " + incarnation + " restarts from its disk, so that the pool comes back at " +
                    "one cut");
                restartFromDisk.accept(askerId);
            }
        }
        answer(client, correlation, status, 0, -1);
    }

    /** A compute node sets this node's share of the pool's maxmemory (or none). */
    private void limit(final Connection client, final long correlation, final long bytes)
    {
        if (bytes != HeapLayout.LIMIT_NONE && (bytes <= 0 || (bytes & 63) != 0))
        {
            malformed.incrementRelease();
            answer(client, correlation, MemoryNodeProtocol.BAD_REQUEST, 0, -1);
            return;
        }
        if (bytes != chunks.limit())
        {
            LOG.log(System.Logger.Level.INFO, bytes == HeapLayout.LIMIT_NONE ? "heap limit removed" :
                "heap limit: " + bytes + " bytes handed out at most to writes (" + chunks.handedOut() + " now)");
        }
        chunks.limit(bytes);
        publishRoom();
        answer(client, correlation, MemoryNodeProtocol.OK, 0, -1);
    }

    /**
     * What clients read of the heap ({@link HeapLayout}): its room outside the reserve and within its limit, as writes
     * see it, and what is handed out, live and held, as INFO memory reports the pool.
     */
    private void publishRoom()
    {
        final MemorySegment heap = index.heap();
        final long room = chunks.roomForWrites();
        heap.set(LONG, HeapLayout.ROOM_OFFSET, room);
        heap.set(LONG, HeapLayout.CAPACITY_OFFSET, chunks.capacity());
        heap.set(LONG, HeapLayout.HANDED_OUT_OFFSET, chunks.handedOut());
        heap.set(LONG, HeapLayout.LIVE_OFFSET, chunks.liveBytes());
        heap.set(LONG, HeapLayout.RESERVE_OFFSET, chunks.reserveBytes());
        heap.set(INT, HeapLayout.PINNED_OFFSET, chunks.pinned());
        heap.set(INT, HeapLayout.WALKED_AT_OFFSET, walkedAtEpochS);
        heap.set(LONG, HeapLayout.LIMIT_OFFSET, chunks.limit());
        heapLimit.setRelease(Math.max(0, chunks.limit()));
        heapRoom.setRelease(room);
        heapHandedOut.setRelease(chunks.handedOut());
        heapLive.setRelease(chunks.liveBytes());
        chunksPinned.setRelease(chunks.pinned());
    }

    /**
     * @param least the fewest bytes the client can use (0: all it asked for).
     * @param ring  the chunk is the client's persist ring: zeroed, and read each turn until the client goes away.
     */
    private void allocate(final Connection client, final long correlation, final int asked, final long least,
        final boolean ring)
    {
        final boolean freeing = !ring && (asked & MemoryNodeProtocol.FREEING) != 0;
        final int wanted = Math.min(asked & ~MemoryNodeProtocol.FREEING, chunks.maxChunkLength());
        // a block longer than the largest chunk asks for it whole: the client finds the grant short and says so
        final long needed = least <= 0 || ring || least > wanted ? wanted : least;
        if (!chunks.isValidLength(wanted) || !chunks.isValidLength((int)needed))
        {
            malformed.incrementRelease();
            answer(client, correlation, MemoryNodeProtocol.BAD_REQUEST, 0, -1);
            return;
        }
        final long offset = chunks.allocate(wanted, (int)needed, client, freeing);
        publishRoom();
        if (offset < 0)
        {
            heapFull.incrementRelease();
            if (!heapFullLogged)
            {
                // once a spell: a busy writer asks again and again until blocks come back (HEAP_FULL counts them all)
                heapFullLogged = true;
                LOG.log(System.Logger.Level.WARNING, "heap full: " + chunks.used() + " of " + chunks.heapLength() +
                    " bytes cut into chunks, " + chunks.freeBytes() + " of them free, a chunk of " + wanted +
                    " asked for (" + needed + " at least" + (freeing ? ", from the reserve of " +
                    chunks.reserveBytes() + " bytes" : "") + (chunks.limit() > 0 ? "; " + chunks.handedOut() +
                    " handed out, limit " + chunks.limit() : "") + "); refusals are counted (heap-full) and " +
                    "not logged again until a chunk is handed out");
            }
            // the figures the client's error names: what is left (within the limit, but for frees), and what of it
            // only deletes may take
            final long left = freeing ? chunks.room() :
                Math.min(chunks.room(), chunks.roomForWrites() + chunks.reserveBytes());
            answerWith(client, correlation, MemoryNodeProtocol.FULL, chunks.maxChunkLength(), left,
                chunks.reserveBytes());
            return;
        }
        if (heapFullLogged)
        {
            heapFullLogged = false;
            LOG.log(System.Logger.Level.INFO, "heap has room again: " + chunks.used() + " of " +
                chunks.heapLength() + " bytes handed out, " + heapFull.get() + " chunks refused in all");
        }
        if (ring)
        {
            // the client writes only epochs after the durable one now, which its ring starts at
            rings.add(offset, wanted, client, durable.current());
            answerWith(client, correlation, MemoryNodeProtocol.OK, wanted, offset, durable.current());
            return;
        }
        answer(client, correlation, MemoryNodeProtocol.OK, chunks.granted(), offset, chunks.generation(offset));
    }

    /** A block a client wrote into its persist ring: its key joins this turn's batch, as a PERSIST_BLOCKS' would. */
    private void persistFromRing(final long block, final long previousWriteId)
    {
        persist(null, 0, 0, block, KvBlockLayout.NO_WRITE, previousOf(previousWriteId));
    }

    /** @return what a notice's previous write id is to the batch: its low 48 bits (0: none). */
    private static long previousOf(final long previousWriteId)
    {
        return previousWriteId & PersistRingLayout.PREVIOUS_MASK;
    }

    /** Keys that joined the batch with no block named, or named by no notice: as many entries as keys. */
    private void padNotices()
    {
        while (named.size() < batchKeys.size())
        {
            named.addLong(-1);
        }
        while (namedPrevious.size() < batchKeys.size())
        {
            namedPrevious.addLong(-1);
        }
    }

    private int takeFromRings(final int taken)
    {
        if (taken > 0)
        {
            persists.getAndAddRelease(taken);
            ringEntries.getAndAddRelease(taken);
        }
        return taken;
    }

    /**
     * @param writeId         the write a reader settling the block needs it to hold, else
     *                        {@link KvBlockLayout#NO_WRITE}.
     * @param previousWriteId of a writer's notice, the low 48 bits of the write id of the version its write replaced;
     *                        -1 when this is no notice (a reader settling the block).
     */
    private void persist(final Connection client, final long correlation, final int argument, final long block,
        final long writeId, final long previousWriteId)
    {
        final boolean wantsAnswer = (argument & MemoryNodeProtocol.ANSWER_WHEN_DURABLE) != 0;
        final boolean answerTaken = (argument & MemoryNodeProtocol.ANSWER_WHEN_TAKEN) != 0;
        if (writeId != KvBlockLayout.NO_WRITE && !index.holdsWrite(block, writeId))
        {
            // a reader settling a block it read from this node before it restarted: it reads the key again
            answer(client, correlation, MemoryNodeProtocol.GONE, 0, -1);
            return;
        }
        if (store == null && writeId != KvBlockLayout.NO_WRITE)
        {
            // nothing is ever on this node's disk: nobody need ask again
            index.settle(block);
        }
        final byte[] key = store == null ? null : index.keyAt(block);
        if (key == null)
        {
            if (wantsAnswer || answerTaken)
            {
                answer(client, correlation,
                    store == null ? MemoryNodeProtocol.NOT_PERSISTENT : MemoryNodeProtocol.BAD_REQUEST, 0, -1);
            }
            return;
        }
        if (previousWriteId >= 0 && index.epochOf(block) <= durable.written())
        {
            late(client, key, block);
        }
        batchKeys.add(key);
        named.addLong(block);
        // a writer that waits for the disk: its version is one no rollback to a cut takes back
        namedPrevious.addLong(wantsAnswer && previousWriteId >= 0 ? previousWriteId | KeyStore.SYNC_VERSION :
            previousWriteId);
        if (answerTaken)
        {
            // taken into the batch this turn writes: before any mark the node reads after this
            answer(client, correlation, MemoryNodeProtocol.OK, 0, -1);
        }
        else if (wantsAnswer)
        {
            answerTo.add(client);
            answerCorrelations.addLong(correlation);
        }
    }

    /**
     * A writer's notice of a block whose epoch the node wrote through already: the marks that let it did not hold
     * this write back, so a crash before the next fsync loses it below the durable epoch kept. Counted, and said
     * for the first few and then every 1,000th.
     */
    private void late(final Connection client, final byte[] key, final long block)
    {
        final long count = lateNotices.incrementRelease() + 1;
        if (count <= 10 || count % 1000 == 0)
        {
            LOG.log(System.Logger.Level.WARNING, "late notice " + count + ": key '" +
                new String(key, StandardCharsets.ISO_8859_1) + "' block of epoch " +
                index.epochOf(block) + " (write id " + Long.toHexString(index.writeIdOf(block)) + ") taken " +
                (client == null ? "from a ring" : "in a message of client " + client) + " after the node wrote " +
                "through epoch " + durable.written() + " (durable " + durable.current() + ", " +
                rings.size() + " rings)");
        }
    }

    /**
     * Many PERSISTs in one message: each block's key goes to this turn's batch, answered OK then when the correlation
     * is not 0 (the client's ring had no room: its answer comes before the client's next mark).
     */
    private void persistBlocks(final Connection client, final long correlation, final int count, final int length)
    {
        if (count < 1 || count > MemoryNodeProtocol.MAX_BLOCKS ||
            length < MemoryNodeProtocol.persistBlocksLength(count))
        {
            malformed.incrementRelease();
            if (correlation != 0)
            {
                answer(client, correlation, MemoryNodeProtocol.BAD_REQUEST, 0, -1);
            }
            return;
        }
        persists.getAndAddRelease(count);
        for (int i = 0; i < count; i++)
        {
            final long at = MemoryNodeProtocol.BLOCK_OFFSET + (long)i * MemoryNodeProtocol.NOTICE_LENGTH;
            persist(client, 0, 0, request.get(LONG, at), KvBlockLayout.NO_WRITE,
                previousOf(request.get(LONG, at + Long.BYTES)));
        }
        if (correlation != 0)
        {
            answer(client, correlation, store == null ? MemoryNodeProtocol.NOT_PERSISTENT : MemoryNodeProtocol.OK, 0,
                -1);
        }
    }

    /**
     * Answered with this turn's batch, written with an fsync, or by an fsync of the log when the turn has no keys to
     * write: either covers every key written before it.
     */
    private void sync(final Connection client, final long correlation)
    {
        if (store == null)
        {
            answer(client, correlation, MemoryNodeProtocol.NOT_PERSISTENT, 0, -1);
            return;
        }
        answerTo.add(client);
        answerCorrelations.addLong(correlation);
    }

    private void persistBatch(final long turnStart)
    {
        final long nowNanos = clock.nanoTime();
        if (!draining && (!unwritten.mayTry(nowNanos) || unwritten.failing() && !unwritten.retry(store.hasRoom(),
            nowNanos, fsyncIntervalNanos)))
        {
            // the disk refused the last write: these keys wait with the others for the next try, and a sync writer
            // hears at once that its key is not on disk
            unwritten.add(batchKeys);
            answerAll(MemoryNodeProtocol.DISK_FAILED);
            batchKeys.clear();
            named.clear();
            namedPrevious.clear();
            return;
        }
        unwritten.drainTo(batchKeys, named);
        padNotices();
        final boolean sync = !answerTo.isEmpty();
        final long nowMillis = epochClock.time();
        try (WriteBatch batch = new WriteBatch())
        {
            // every notice taken so far is in this batch or an earlier one
            final long told = durable.beforeWrite(batch, sync);
            for (int i = 0; i < batchKeys.size(); i++)
            {
                final byte[] key = batchKeys.get(i);
                // the block its request named was found whole at most a batch delay ago: no chunk is reused so soon
                final long block = index.findCommitted(key, named.getLong(i));
                written.addLong(block);
                if (versionSweep != null && namedPrevious.getLong(i) >= 0 && named.getLong(i) >= 0)
                {
                    // a writer's notice, where versions are kept (a sweep then drops them): the version it names,
                    // whatever the index holds now
                    versions.add(key, named.getLong(i), namedPrevious.getLong(i));
                }
                // a tombstone (a delete under durability sync) or a value past its expiry: the key has no value
                if (block >= 0 && !KvBlockLayout.isExpired(index.expireAtOf(block), nowMillis))
                {
                    store.put(batch, key, index.expireAtOf(block), index.writeIdOf(block), index.epochOf(block),
                        index.valueAt(block));
                }
                else
                {
                    store.delete(batch, key);
                }
            }
            versions.writeTo(store);
            store.write(batch, sync);
            if (sync)
            {
                // an fsync of the log covers what was written before it without one
                stats.onFsync(nowMillis, unsynced ? clock.nanoTime() - unsyncedSinceNanos : 0, true);
                unsynced = false;
                unsyncedSinceEpochMs = 0;
                publishDiskState();
                for (int i = 0; i < written.size(); i++)
                {
                    // only the block its PERSIST named: a newer write's block, written to disk here as what the
                    // index held, stays pending until its own writer tells this node, which it does last at the
                    // key's head, once every other replica has it on disk (RecoveryModelTest, SETTLES_NEWER)
                    final long block = written.getLong(i);
                    if (block >= 0 && block == named.getLong(i))
                    {
                        index.settle(block);
                    }
                }
            }
            else
            {
                markUnsynced(turnStart, nowMillis);
            }
            durable.written(told, sync);
        }
        catch (final RocksDBException | IllegalStateException ex)
        {
            // the keys wait for the disk, written then as what the index holds; their versions are not kept
            versions.clear();
            batchFailures.incrementRelease();
            final boolean news = unwritten.failed(batchKeys, ex.getMessage(), clock.nanoTime(), nowMillis,
                fsyncIntervalNanos);
            if (news || draining)
            {
                LOG.log(System.Logger.Level.ERROR, ex.getMessage() + ": " + unwritten.size() + " keys are in memory " +
                    "only" + (draining ? ", and this node stops: their other copies hold them" :
                    ", written once the disk takes writes again (tried every " + fsyncIntervalNanos / 1_000_000 +
                    " ms); free space there, or stop this node and move its --data-dir to a larger disk"));
            }
            answerAll(MemoryNodeProtocol.DISK_FAILED);
            publishDiskState();
            batchKeys.clear();
            named.clear();
            namedPrevious.clear();
            written.clear();
            return;
        }
        if (unwritten.written())
        {
            LOG.log(System.Logger.Level.INFO, "the key store takes writes again: " + batchKeys.size() +
                " keys written, among them every one its disk had refused");
            publishDiskState();
        }
        stats.onBatch(batchKeys.size(), clock.nanoTime() - turnStart);
        batches.incrementRelease();
        keysPersisted.getAndAddRelease(batchKeys.size());
        batchKeys.clear();
        named.clear();
        namedPrevious.clear();
        written.clear();
        answerAll(MemoryNodeProtocol.OK);
    }

    private void answerAll(final int status)
    {
        for (int i = 0; i < answerTo.size(); i++)
        {
            try
            {
                answer(answerTo.get(i), answerCorrelations.getLong(i), status, 0, -1);
            }
            catch (final RaasException gone)
            {
                // the client went away after asking; it is removed on its next turn
            }
        }
        answerTo.clear();
        answerCorrelations.clear();
    }

    private void answer(final Connection client, final long correlation, final int status, final int chunkLength,
        final long offset)
    {
        answer(client, correlation, status, chunkLength, offset, 0);
    }

    private void answer(final Connection client, final long correlation, final int status, final int chunkLength,
        final long offset, final int generation)
    {
        // the generation, then the reserved int as 0
        answerWith(client, correlation, status, chunkLength, offset, (long)generation << Integer.SIZE);
    }

    /** @param last the reply's last word: an ALLOCATE's generation, a PERSIST_RING's durable epoch. */
    private void answerWith(final Connection client, final long correlation, final int status, final int chunkLength,
        final long offset, final long last)
    {
        reply.set(INT, MemoryNodeProtocol.STATUS_OFFSET, status);
        reply.set(INT, MemoryNodeProtocol.CHUNK_LENGTH_OFFSET, chunkLength);
        reply.set(LONG, MemoryNodeProtocol.REPLY_CORRELATION_OFFSET, correlation);
        reply.set(LONG, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET, offset);
        reply.set(LONG, MemoryNodeProtocol.CHUNK_GENERATION_OFFSET, last);
        AnswerQueue queue = answerQueues.get(client);
        if (queue != null && !queue.isEmpty())
        {
            // behind the answers already waiting: a client reads its answers in the order they were made
            queue.add(reply);
            answersQueued.incrementRelease();
            return;
        }
        if (!client.offer(reply, 0, MemoryNodeProtocol.REPLY_LENGTH))
        {
            if (queue == null)
            {
                queue = new AnswerQueue(client, MemoryNodeProtocol.REPLY_LENGTH);
                answerQueues.put(client, queue);
            }
            queue.add(reply);
            waiting.add(queue);
            answersQueued.incrementRelease();
        }
    }

    public void onClose()
    {
        if (store != null && drainOnClose)
        {
            try
            {
                drain();
            }
            catch (final RuntimeException ex)
            {
                LOG.log(System.Logger.Level.ERROR, "stopping: the requests left were not all written: " + ex);
            }
        }
        clients.forEach(Connection::close);
        clients.clear();
    }
}
