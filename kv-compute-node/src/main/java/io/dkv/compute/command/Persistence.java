package io.dkv.compute.command;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvException;
import io.dkv.client.PersistCounts;
import io.dkv.compute.AppendFsync;
import io.dkv.compute.mesh.ComputeMesh;
import io.dkv.compute.store.PoolHeaders;
import io.dkv.compute.mesh.MeshException;
import org.agrona.ErrorHandler;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A compute node's {@code appendonly} and {@code appendfsync} (redis's names), kept as its client's durability
 * ({@link AppendFsync#durability(boolean)}): what CONFIG GET and INFO persistence answer, and what CONFIG SET changes
 * while the node runs, on every compute node of its pool.
 *
 * <p>Across the pool: the node that is asked applies the change, then calls each peer it knows with it
 * ({@link #CALL_SET}) and answers OK only once every one took it, so that a CONFIG GET on any node after the OK answers
 * the new value; a peer that did not is named in the error answered (the others keep the change, and a CONFIG SET
 * again brings it to the rest). A change carries a number one past the highest any node of the pool holds (asked of
 * them first) and the changing node's id; a node takes a change only when it is later by that order than the one it
 * has. So a change follows every change that was answered before it began, and two CONFIG SETs made at once on
 * different nodes end with every node holding the same one (the higher node id's). A node that joins the pool later
 * starts with its own command line's settings.
 *
 * <p>A write under way when the durability changes finishes under the one it began with (the client's rule).
 */
public final class Persistence
{
    /** A peer asks for this node's change number ({@link #ASK}), or hands it a change ({@link #TAKE}). */
    public static final byte CALL_SET = 14;
    private static final byte ASK = 0;
    private static final byte TAKE = 1;

    /** The settings, and the change that made them: later means a higher number, then a higher node id. */
    private record Setting(boolean appendOnly, AppendFsync fsync, long number, long madeBy)
    {
        boolean laterThan(final Setting other)
        {
            return number != other.number ? number > other.number : Long.compareUnsigned(madeBy, other.madeBy) > 0;
        }

        Durability durability()
        {
            return fsync.durability(appendOnly);
        }
    }

    private final KvClient client;
    private final ComputeMesh mesh;
    private final Duration readyTimeout;
    private final ErrorHandler errors;
    /** One change at a time from this node: its calls to the peers go in the order it made them. */
    private final ReentrantLock changing = new ReentrantLock();
    /** Guarded by this; the client's durability follows it. */
    private Setting current;
    /** {@code current.appendOnly}, for the check every command makes. */
    private volatile boolean appendOnlyNow;
    private volatile PoolHeaders pool;

    /**
     * @param client       the node's client: its durability is set to what these settings say.
     * @param appendOnly   the setting the node starts with.
     * @param fsync        the setting the node starts with.
     * @param mesh         the node's peers, which a change reaches too; null for a node alone.
     * @param readyTimeout how long a change waits for a node just started to have met its peers.
     * @param errors       where failed calls to peers are counted.
     * @throws KvException when the settings ask for a disk a memory node does not keep.
     */
    public Persistence(final KvClient client, final boolean appendOnly, final AppendFsync fsync,
        final ComputeMesh mesh, final Duration readyTimeout, final ErrorHandler errors)
    {
        this.client = client;
        this.mesh = mesh;
        this.readyTimeout = readyTimeout;
        this.errors = errors;
        this.current = new Setting(appendOnly, fsync, 0, 0);
        this.appendOnlyNow = appendOnly;
        if (client.durability() != current.durability())
        {
            client.durability(current.durability());
        }
        if (mesh != null)
        {
            mesh.handle(CALL_SET, this::setByPeer);
        }
    }

    /** @return the settings the client's durability says now, on this node alone. */
    public static Persistence of(final KvClient client)
    {
        final Durability durability = client.durability();
        return new Persistence(client, durability != Durability.NONE, AppendFsync.of(durability), null,
            Duration.ZERO, ex ->
            {
            });
    }

    /** @return redis's appendonly now. */
    public synchronized boolean appendOnly()
    {
        return current.appendOnly;
    }

    /** @return redis's appendfsync now. */
    public synchronized AppendFsync appendFsync()
    {
        return current.fsync;
    }

    /** @return true when a change calls peers: it may wait on their answers. */
    boolean callsPeers()
    {
        return mesh != null;
    }

    /** @return what the client's writes told the memory nodes, for INFO persistence. */
    PersistCounts counts()
    {
        return client.persistCounts();
    }

    /** Where INFO persistence and INFO memory read the memory nodes' disks and heaps from: none until set. */
    public void pool(final PoolHeaders pool)
    {
        this.pool = pool;
    }

    /**
     * @return redis's MISCONF refusal of writes while appendonly is yes and a memory node's disk refuses writes (full,
     * failing: as redis refuses them while its AOF cannot be written), as its last reading says; null otherwise.
     */
    public String writeRefusal()
    {
        final PoolHeaders reader = pool;
        final String failing = reader == null || !appendOnlyNow ? null : reader.failing();
        return failing == null ? null : "MISCONF Errors writing to the AOF file: " + failing + " cannot write to " +
            "its disk (full or failing: the node's log names the file); free space in its --data-dir, and writes " +
            "are taken again within a second of its next good write";
    }

    /** @return the memory nodes' disks and heaps as last read; none (read at 0) when nothing reads them. */
    PoolHeaders.Reading pool()
    {
        final PoolHeaders reader = pool;
        return reader == null ? PoolHeaders.Reading.NONE : reader.latest();
    }

    /** @return the pool's maxmemory as last read; 0 when none, or when nothing reads the heaps. */
    long maxMemory()
    {
        final PoolHeaders reader = pool;
        return reader == null ? 0 : reader.maxMemory();
    }

    /**
     * Set the pool's maxmemory on every memory node: a round trip a node, on the caller's thread.
     *
     * @throws KvException naming the nodes that did not take it.
     */
    void maxMemory(final long bytes)
    {
        final PoolHeaders reader = pool;
        if (reader == null)
        {
            client.maxMemory(bytes);
        }
        else
        {
            reader.maxMemory(bytes);
        }
    }

    /** @return the most the pool's heaps held handed out at once as this node read them; 0 when nothing reads them. */
    long poolPeak()
    {
        final PoolHeaders reader = pool;
        return reader == null ? 0 : reader.peakHandedOut();
    }

    /** @return the length of the client's durable epochs, which the readings' durable epochs count. */
    int epochMs()
    {
        return client.epochMs();
    }

    /** @return now by the client's epoch clock, which the readings' times are by. */
    long nowEpochMs()
    {
        return client.epochClock().time();
    }

    /**
     * CONFIG SET appendonly and/or appendfsync: applied here, then on every peer; may wait on the peers' answers.
     *
     * @param appendOnly the new appendonly, or null to keep it.
     * @param fsync      the new appendfsync, or null to keep it.
     * @param argument   the setting the error names, as redis's does.
     * @return null when every node of the pool took it, else the error to answer.
     */
    String set(final Boolean appendOnly, final AppendFsync fsync, final String argument)
    {
        changing.lock();
        try
        {
            final Map<Long, String> missed = new LinkedHashMap<>();
            final long highest = mesh == null ? 0 : highestOfPeers(missed);
            final Setting next;
            synchronized (this)
            {
                next = new Setting(appendOnly != null ? appendOnly : current.appendOnly,
                    fsync != null ? fsync : current.fsync, Math.max(highest, current.number) + 1,
                    mesh == null ? 0 : mesh.selfId());
                try
                {
                    take(next);
                }
                catch (final KvException ex)
                {
                    return ConfigKnobs.failed(argument, ex.getMessage() + ": appendonly " +
                        (next.appendOnly ? "yes" : "no") + " with appendfsync " + next.fsync.text() +
                        " cannot be had (CONFIG SET appendonly no keeps writes in memory only)");
                }
            }
            return mesh == null ? null : tellPeers(next, argument, missed);
        }
        finally
        {
            changing.unlock();
        }
    }

    /** @return the highest change number the peers hold; those that did not answer are added to {@code missed}. */
    private long highestOfPeers(final Map<Long, String> missed)
    {
        // a node just started has not met its peers yet: it would ask none of them
        mesh.awaitReady(readyTimeout);
        long highest = 0;
        for (final long peer : mesh.known())
        {
            try
            {
                highest = Math.max(highest, ByteBuffer.wrap(mesh.call(peer, CALL_SET, new byte[]{ASK})).getLong());
            }
            catch (final MeshException ex)
            {
                errors.onError(ex);
                missed.putIfAbsent(peer, ex.getMessage());
            }
        }
        return highest;
    }

    private String tellPeers(final Setting next, final String argument, final Map<Long, String> missed)
    {
        final byte[] call = ByteBuffer.allocate(3 + 2 * Long.BYTES).put(TAKE).put((byte)(next.appendOnly ? 1 : 0))
            .put((byte)next.fsync.ordinal()).putLong(next.number).putLong(next.madeBy).array();
        for (final long peer : mesh.known())
        {
            try
            {
                mesh.call(peer, CALL_SET, call);
            }
            catch (final MeshException ex)
            {
                errors.onError(ex);
                missed.putIfAbsent(peer, ex.getMessage());
            }
        }
        if (missed.isEmpty())
        {
            return null;
        }
        return ConfigKnobs.failed(argument, "not every compute node of the pool took it (" +
            String.join("; ", missed.values()) + "); this node and the others that answered run with it: " +
            "CONFIG SET it again once those answer");
    }

    /**
     * A peer asks for our change number, or hands us a change, on the mesh's service thread: taken when later than
     * ours; nothing here waits.
     */
    private byte[] setByPeer(final long caller, final ByteBuffer request)
    {
        if (request.get() == ASK)
        {
            synchronized (this)
            {
                return ByteBuffer.allocate(Long.BYTES).putLong(current.number).array();
            }
        }
        final boolean appendOnly = request.get() == 1;
        final int fsync = request.get();
        if (fsync < 0 || fsync >= AppendFsync.values().length)
        {
            throw new IllegalArgumentException("appendfsync " + fsync + " from compute node " + caller);
        }
        final Setting next = new Setting(appendOnly, AppendFsync.values()[fsync], request.getLong(),
            request.getLong());
        synchronized (this)
        {
            // the peer's message, naming the memory node, is the caller's error
            take(next);
        }
        return new byte[0];
    }

    /** Under this: take a setting later than ours, its durability first (which may refuse it). */
    private void take(final Setting next)
    {
        if (!next.laterThan(current))
        {
            return;
        }
        if (client.durability() != next.durability())
        {
            client.durability(next.durability());
        }
        current = next;
        appendOnlyNow = next.appendOnly;
    }
}
