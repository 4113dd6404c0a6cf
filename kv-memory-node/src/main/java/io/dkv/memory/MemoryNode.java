package io.dkv.memory;

import io.dkv.agent.ErrorFile;
import io.dkv.agent.ErrorLog;
import io.dkv.agent.IdleStrategies;
import io.dkv.agent.SystemCounters;
import io.dkv.format.HeapLayout;
import io.dkv.format.IndexLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.raas.Listener;
import io.dkv.raas.Raas;
import io.dkv.verbs.Access;
import io.dkv.raas.RemoteRegion;
import org.agrona.CloseHelper;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.agrona.concurrent.AgentRunner;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A memory node: allocates the hash index and the KV heap in its driver's registered memory,
 * publishes both as named regions ({@link HeapLayout#indexRegionName}, {@link HeapLayout#heapRegionName}),
 * hands out heap chunks and, given a data directory, writes keys to RocksDB when clients ask and
 * loads them back when it starts again. Clients do everything else with one-sided requests.
 */
public final class MemoryNode implements AutoCloseable
{
    /** How the names of memory nodes' error files start; the node id follows. */
    public static final String ERROR_FILE_PREFIX = "memory-node-";

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Raas raas;
    private final RemoteRegion index;
    private final RemoteRegion heap;
    private final HeapChunks chunks;
    private final ExpirySweep expirySweep;
    /** Null when the node keeps nothing on disk. */
    private final VersionSweep versionSweep;
    private final KeyStore store;
    private final long keysRecovered;
    private final PersistStats persistStats = new PersistStats();
    private final Listener listener;
    private final RequestServer server;
    private final KeyRollback rollback;
    private final AgentRunner runner;
    /** The request server's errors: counted and kept, in a file other processes read when the context names one. */
    private final ErrorFile errorFile;
    private final ErrorLog errorLog;
    private final SystemCounters<MemoryNodeCounter> counters;

    private MemoryNode(final Raas raas, final MemoryNodeContext context)
    {
        this.raas = raas;
        final long nodeId = raas.self().id();
        final int groups = context.indexGroups();
        errorFile = context.errorDirectory() == null ? null : ErrorFile.create(context.errorDirectory(),
            errorFileName(nodeId), ErrorLog.IN_MEMORY_BYTES, context.epochClock());
        errorLog = errorFile == null ? ErrorLog.inMemory(context.epochClock()) : errorFile.errorLog();
        counters = new SystemCounters<>(context.countersManager() != null ? context.countersManager() :
            SystemCounters.inMemory(MemoryNodeCounter.values().length), MemoryNodeCounter.TYPE_ID,
            MemoryNodeCounter.values());
        store = context.dataDir() == null ? null : KeyStore.open(context.dataDir(), nodeId,
            context.clusterSecret() == null ? null : KeyStore.fingerprint(context.clusterSecret()),
            context.versionSegmentBytes());
        try
        {
            final int maxDepth = context.maxGlobalDepth();
            // clients READ and swap slots of the index, and READ and WRITE blocks of the heap: nothing more
            index = raas.malloc(nodeId, IndexLayout.regionLength(maxDepth, groups, 1 << maxDepth),
                HeapLayout.indexRegionName(nodeId),
                Access.REMOTE_READ | Access.REMOTE_ATOMIC);
            heap = raas.malloc(nodeId, HeapLayout.regionLength(context.heapChunks(), context.chunkBytes()),
                HeapLayout.heapRegionName(nodeId), Access.REMOTE_READ | Access.REMOTE_WRITE);
            final MemorySegment indexMemory = raas.localMemory(index);
            final MemorySegment heapMemory = raas.localMemory(heap);
            formatHeap(heapMemory, context.chunkBytes(), context.heapChunks());
            chunks = new HeapChunks(context.chunkBytes(), heap.length(), context.graceMs() * 1_000_000L,
                context.reserveBytes());
            formatIndex(indexMemory, groups, maxDepth);
            final LocalIndex local = new LocalIndex(indexMemory, heapMemory, groups, maxDepth);
            keysRecovered = store == null ? 0 : recover(store, local, chunks, context);
            expirySweep = new ExpirySweep(local, context.epochClock(), context.expiryScanMs() * 1_000_000L,
                context.nanoClock().nanoTime(), store != null && context.keepVersions());
            if (awaitsCut(store, context))
            {
                // before the index is announced: whoever reads the header to choose a cut reads these
                local.publishRestored(store.durableEpoch(), store.clusterDurableEpoch());
            }
            rollback = store == null ? null : new KeyRollback(store, local, chunks, context.nanoClock(),
                context.epochClock());
            announceIndex(indexMemory, store != null, store != null && context.keepVersions(), context.graceMs());
            listener = raas.listen(MemoryNodeProtocol.SERVICE);
            versionSweep = store == null || !context.keepVersions() ? null : new VersionSweep(store, local,
                context.versionSweepMs() * 1_000_000L, context.nanoClock().nanoTime());
            server = new RequestServer(listener, chunks, local, expirySweep, versionSweep, store,
                raas.allocateBuffer(MemoryNodeProtocol.MAX_REQUEST_LENGTH),
                raas.allocateBuffer(MemoryNodeProtocol.REPLY_LENGTH),
                persistStats, context.nanoClock(), context.epochClock(), context.fsyncIntervalMs() * 1_000_000L,
                context.batchDelayUs() * 1_000L, context.epochMs(), context.drainOnClose(),
                awaitsCut(store, context), raas.self().epoch(), context.restartFromDisk(), counters);
            runner = new AgentRunner(context.idleStrategyInstance() != null ? context.idleStrategyInstance() :
                IdleStrategies.parse(context.idleStrategy()), errorLog,
                counters.get(MemoryNodeCounter.ERRORS), server);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(store, errorFile);
            throw ex;
        }
    }

    /**
     * @return whether a node on this store comes back from it with versions a cut may roll its keys back to: it keeps
     * versions and waits for the pool's cut ({@link MemoryNodeContext#awaitPoolCut}), its directory held its keys,
     * and a durable epoch was kept there.
     */
    static boolean awaitsCut(final KeyStore store, final MemoryNodeContext context)
    {
        return store != null && context.keepVersions() && context.awaitPoolCut() && store.restored() &&
            store.durableEpoch() > 0;
    }

    /**
     * @return true while the node came back from its disk with versions and may yet be rolled back to a cut the pool
     * chooses ({@link #rollBack}), until {@link #endRecovery}.
     */
    public boolean awaitsCut()
    {
        return rollback != null && server.awaitsCut();
    }

    /**
     * Roll the node's keys back to the epoch {@code cut} (kv-memory-node/README.md, "Coming back"), on its request
     * thread, and wait for it.
     *
     * @throws IllegalStateException when it does not {@link #awaitsCut}, the rollback failed, or it took longer
     *                               than {@code timeout}.
     */
    public RollbackReport rollBack(final long cut, final Duration timeout)
    {
        if (rollback == null)
        {
            throw new IllegalStateException("memory node " + nodeId() + " keeps nothing on disk: nothing to roll back" +
                " to epoch " + cut);
        }
        final CompletableFuture<RollbackReport> done = new CompletableFuture<>();
        onRequestThread(() ->
        {
            try
            {
                done.complete(server.rollBack(rollback, cut));
            }
            catch (final RuntimeException ex)
            {
                done.completeExceptionally(ex);
            }
        });
        try
        {
            return done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause() instanceof RuntimeException runtime ? runtime :
                new IllegalStateException(ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            throw new IllegalStateException("memory node " + nodeId() + " did not roll back to epoch " + cut +
                " within " + timeout.toMillis() + " ms");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while memory node " + nodeId() + " rolled back to epoch " +
                cut, ex);
        }
    }

    /** The node serves as a member again: its durable epoch goes on and its versions are dropped as D moves. */
    public void endRecovery()
    {
        onRequestThread(server::endRecovery);
    }

    private void onRequestThread(final Runnable task)
    {
        while (!server.offerTask(task))
        {
            Thread.onSpinWait();
        }
    }

    /** @return the name of a memory node's error file, without its ending; its counters file's too. */
    public static String errorFileName(final long nodeId)
    {
        return ERROR_FILE_PREFIX + nodeId;
    }

    /**
     * Put every key of the key store back: its block into a chunk of the node's own, its slot into
     * the index (before the index is announced, so no client sees it half done). A key whose expiry
     * has passed is not put back, and goes from the disk too.
     *
     * @return keys put back.
     */
    private static long recover(final KeyStore store, final LocalIndex index, final HeapChunks chunks,
        final MemoryNodeContext context)
    {
        final long[] count = new long[1];
        final long nowMillis = context.epochClock().time();
        final LoadedBlocks blocks = new LoadedBlocks(chunks, index, context.nanoClock());
        final List<byte[]> expired = new ArrayList<>();
        store.forEach((key, expireAt, writeId, epoch, value) ->
        {
            if (KvBlockLayout.isExpired(expireAt, nowMillis))
            {
                expired.add(key);
                return;
            }
            // the write it was, on every replica: a refill finds the copies alike in place, and when every copy went
            // down the copy of the replica that served last is the one the others settle on; and of its epoch (0
            // for a key kept before epochs were), which a client that reads it writes after
            final long offset = blocks.write(key, value, expireAt, writeId, epoch);
            if (offset < 0)
            {
                throw new IllegalStateException("the heap cannot hold the keys on disk in " + store.path() + " (" +
                    count[0] + " put back so far): start the node with a larger heap");
            }
            if (!index.restore(key, offset, KvBlockLayout.blockLength(key.length, value.length),
                expireAt != KvBlockLayout.NEVER, blocks.generation()))
            {
                throw new IllegalStateException("the index has no free slot for a key on disk in " + store.path() +
                    " (" + count[0] + " put back so far): start the node with more index groups");
            }
            count[0]++;
        });
        // the node writes no more into its chunks: they go back once clients replaced or deleted their keys
        blocks.finish();
        if (!expired.isEmpty())
        {
            try (WriteBatch batch = new WriteBatch())
            {
                for (final byte[] key : expired)
                {
                    store.delete(batch, key);
                }
                store.write(batch, true);
            }
            catch (final RocksDBException ex)
            {
                throw new IllegalStateException("cannot delete " + expired.size() +
                    " expired keys from the key store in " +
                    store.path() + ": " + ex.getMessage(), ex);
            }
        }
        return count[0];
    }

    /**
     * Allocate, format and publish the index and the heap on this driver's node, and start serving
     * chunk requests.
     */
    public static MemoryNode start(final Raas raas, final MemoryNodeContext context)
    {
        final MemoryNode node = new MemoryNode(raas, context.conclude());
        AgentRunner.startOnThread(node.runner);
        return node;
    }

    /** One subtable at global depth 0: every hash maps to it until subtables split. */
    static void formatIndex(final MemorySegment memory, final int groups, final int maxGlobalDepth)
    {
        memory.set(INT, IndexLayout.LAYOUT_VERSION_OFFSET, IndexLayout.LAYOUT_VERSION);
        memory.set(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET, groups);
        memory.set(INT, IndexLayout.SUBTABLES_OFFSET, 1);
        memory.set(INT, IndexLayout.GLOBAL_DEPTH_OFFSET, 0);
        memory.set(INT, IndexLayout.MAX_GLOBAL_DEPTH_OFFSET, maxGlobalDepth);
        memory.set(LONG, IndexLayout.DIRECTORY_OFFSET,
            IndexLayout.directoryEntry(0, IndexLayout.subtablesOffset(maxGlobalDepth)));
    }

    /** Written last: a client that sees the magic sees a formatted index, with the keys loaded from disk. */
    private static void announceIndex(final MemorySegment memory, final boolean persistent,
        final boolean keepsVersions, final int graceMs)
    {
        memory.set(INT, IndexLayout.FLAGS_OFFSET, (persistent ? IndexLayout.FLAG_PERSISTENT : 0) |
            (keepsVersions ? IndexLayout.FLAG_KEEPS_VERSIONS : 0));
        memory.set(INT, IndexLayout.GRACE_MS_OFFSET, graceMs);
        VarHandle.releaseFence();
        memory.set(LONG, IndexLayout.MAGIC_OFFSET, IndexLayout.MAGIC);
    }

    private static void formatHeap(final MemorySegment memory, final int chunkLength, final int chunks)
    {
        memory.set(INT, HeapLayout.MAX_CHUNK_LENGTH_OFFSET, chunkLength);
        memory.set(INT, HeapLayout.MAX_CHUNKS_OFFSET, chunks);
        VarHandle.releaseFence();
        memory.set(LONG, HeapLayout.MAGIC_OFFSET, HeapLayout.MAGIC);
    }

    public long nodeId()
    {
        return raas.self().id();
    }

    public RemoteRegion indexRegion()
    {
        return index;
    }

    public RemoteRegion heapRegion()
    {
        return heap;
    }

    /** @return keys loaded from disk when the node started. */
    public long keysRecovered()
    {
        return keysRecovered;
    }

    /** @return how writes to disk go (nothing when the node keeps nothing on disk). */
    public PersistStats persistStats()
    {
        return persistStats;
    }

    /**
     * Whether a data directory holds this node's keys, before the node registers: a directory of another node or
     * cluster is refused here (naming it), so that such a node never registers; one in format 2 is upgraded.
     *
     * @param dataDir       the directory, made when missing.
     * @param nodeId        the node about to start on it.
     * @param clusterSecret the cluster's secret, or null to skip that check.
     * @return true when it held this node's keys (the node comes back with them: restored), false when it is new.
     * @throws IllegalStateException naming the directory and the way out.
     */
    public static boolean holdsKeysOf(final java.nio.file.Path dataDir, final long nodeId,
        final byte[] clusterSecret)
    {
        try (KeyStore store = KeyStore.open(dataDir, nodeId,
            clusterSecret == null ? null : KeyStore.fingerprint(clusterSecret)))
        {
            return store.restored();
        }
    }

    /** @return true when the node writes keys to disk (it was given a data directory). */
    public boolean isPersistent()
    {
        return store != null;
    }

    /** @return heap chunks handed out to clients so far (of any size). */
    public int chunksAllocated()
    {
        return chunks.allocated();
    }

    /** @return keys whose slots this node's scan emptied because their expiry had passed (clients empty others). */
    public long keysExpired()
    {
        return expirySweep.keysExpired();
    }

    /**
     * @return key versions dropped from disk because the cluster's durable epoch passed a newer one, and passes over
     * them that ended, since the node started (0 and 0 when it keeps nothing on disk).
     */
    public long versionsDropped()
    {
        return versionSweep == null ? 0 : versionSweep.versionsDropped();
    }

    public long versionPasses()
    {
        return versionSweep == null ? 0 : versionSweep.passes();
    }

    /** @return segments of the version log the sweep dropped, their needed versions carried, since the node started. */
    public long versionSegmentsDropped()
    {
        return versionSweep == null ? 0 : versionSweep.segmentsDropped();
    }

    /** @return chunks that came back (no slot pointed into them for the grace period) since the node started. */
    public long chunksReclaimed()
    {
        return chunks.reclaimed();
    }

    /** @return the node's counters, in its process's counters file when the context named one. */
    public SystemCounters<MemoryNodeCounter> counters()
    {
        return counters;
    }

    /** @return the request server's errors, counted and kept. */
    public ErrorLog errorLog()
    {
        return errorLog;
    }

    public void close()
    {
        CloseHelper.quietCloseAll(runner, listener, store);
        if (errorLog.errors() > 0)
        {
            System.err.print("dkv memory node recorded " + errorLog.errors() + " error(s) in its request server" +
                (errorFile == null ? "" : " (kept in " + errorFile.file() + ")") + ":\n" + errorLog.describe());
        }
        CloseHelper.quietClose(errorFile);
    }
}
