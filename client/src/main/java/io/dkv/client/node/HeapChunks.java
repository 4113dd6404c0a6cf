package io.dkv.client.node;

import io.dkv.client.Durability;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.KvSession;
import io.dkv.client.MemoryFullException;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One thread's heap chunks on the memory nodes and the blocks it places in them, with the messages that tell a node's
 * CPU a key changed (as the client's durability asks) or that a pending block must reach its disk.
 *
 * <p>A node hands out a chunk with its generation ({@link MemoryNodeProtocol}'s ALLOCATE); blocks go into it one after
 * another, never rewritten, and a full chunk is retired (the node takes it back once no slot points into it). The
 * chunk before the current one is remembered so that a slot word made for a block written there still gets its
 * generation. Chunks live as long as the node's links: when {@link NodeLinks} makes them again, the node has taken
 * every chunk back and they are forgotten here.
 */
public final class HeapChunks
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Bytes of a thread's first chunk on a node: a node with less room than this counts as full. */
    public static final int FIRST_CHUNK = 64 * 1024;
    private static final int LARGEST_CHUNK_ASKED = 1 << 30;
    /** Bytes asked of a node's reserve at a time: some 250 tombstones of short keys. */
    private static final int RESERVE_CHUNK = 16 * 1024;
    /**
     * How long a node that refused this thread a chunk is taken as full without asking again (writes that free memory
     * ask all the same): its room comes back only as it takes chunks back, a grace period after they were emptied,
     * so asking again at each refused write only costs each a round trip to the node's CPU (p99 2.9 ms here).
     */
    private static final long FULL_HELD_NANOS = 50_000_000L;

    private final NodeLinks links;
    private final WriteEpochs epochs;
    private final KvClientContext context;
    /** The links' generation each node's chunks were handed out over. */
    private final int[] chunkLinks;
    private final long[] chunkOffset;
    private final int[] chunkUsed;
    private final int[] chunkLength;
    /** The generation each node handed this thread's chunk out under, for the slot words naming its blocks. */
    private final int[] chunkGeneration;
    /**
     * The chunk each node handed this thread before the current one: a write placing blocks on several nodes may
     * make its words after one of them needed a new chunk (a block written before another's chunk ran out).
     */
    private final long[] previousChunkOffset;
    private final int[] previousChunkLength;
    private final int[] previousChunkGeneration;
    /** Bytes to ask for at the node's next chunk: doubling from {@link #FIRST_CHUNK}. */
    private final int[] nextChunk;
    /** Whether each node's chunk now came from its reserve: only writes that free memory go into it. */
    private final boolean[] fromReserve;
    /** Until when (the client's nano clock) each node is taken as full, and the figures its refusal named. */
    private final long[] fullUntil;
    private final long[] fullRoom;
    private final long[] fullReserve;
    /** The client's heap limit changes as this thread's holds of full nodes last saw them. */
    private long fullAtLimitChanges;
    private final NanoClock nanoClock;
    /** Whether the operation this thread runs frees memory (a delete, a flush): it may take nodes' reserves. */
    private boolean freeing;
    /** The block being written, the same bytes for every replica. */
    private MemorySegment out;
    /**
     * The durability of the operation this thread runs: the client's as it began ({@link #durability(Durability)}),
     * so that a write whose block went out pending is also told to its node, whatever the client's says meanwhile.
     */
    private Durability durability;
    /** This thread's synchronous PERSISTs sent, and those that failed; written by it alone, read by any. */
    private volatile long persistsTold;
    private volatile long persistsFailed;
    /** Whether this thread waits for a node's answer to a PERSIST now. */
    private volatile boolean persisting;
    /**
     * Under durability async, PERSISTs held per node until {@link #flushDeferred} (or a full message): a thread that
     * answers its callers only after a flush of its own (a compute node's event loop) tells each node of a pipeline's
     * writes in one PERSIST_BLOCKS message rather than one each. Made at the first deferral.
     */
    private boolean deferring;
    private long[][] deferred;
    /** Beside each held block, the write id of the version its write replaced. */
    private long[][] deferredPrevious;
    private int[] deferredCounts;
    /** Blocks held over every node: whether a flush has anything to send. */
    private int deferredTotal;
    private MemorySegment blocksMessage;
    /**
     * Where notices go under async, held or not: one WRITE into the node's ring, ordered before the marks written
     * after it, where a message would not be. Made with the first chunk asked under a durability that tells nodes.
     */
    private PersistRingWriter rings;
    /** This thread's slot among the client's writes in flight ({@link WriteEpochs#enter}), or -1: none held. */
    private int flight = -1;
    private final long[] single = new long[1];
    private final long[] singlePrevious = new long[1];

    public HeapChunks(final NodeLinks links, final KvClientContext context)
    {
        this.links = links;
        this.chunkLinks = new int[MemoryNodeAvailability.CAPACITY];
        this.chunkOffset = new long[MemoryNodeAvailability.CAPACITY];
        this.chunkUsed = new int[MemoryNodeAvailability.CAPACITY];
        this.chunkLength = new int[MemoryNodeAvailability.CAPACITY];
        this.chunkGeneration = new int[MemoryNodeAvailability.CAPACITY];
        this.previousChunkOffset = new long[MemoryNodeAvailability.CAPACITY];
        this.previousChunkLength = new int[MemoryNodeAvailability.CAPACITY];
        this.previousChunkGeneration = new int[MemoryNodeAvailability.CAPACITY];
        this.nextChunk = new int[MemoryNodeAvailability.CAPACITY];
        Arrays.fill(nextChunk, FIRST_CHUNK);
        this.fromReserve = new boolean[MemoryNodeAvailability.CAPACITY];
        this.fullUntil = new long[MemoryNodeAvailability.CAPACITY];
        this.fullRoom = new long[MemoryNodeAvailability.CAPACITY];
        this.fullReserve = new long[MemoryNodeAvailability.CAPACITY];
        this.nanoClock = context.nanoClock();
        this.out = links.raas().allocateBuffer(4096);
        this.durability = context.durability();
        this.epochs = context.writeEpochs();
        this.context = context;
    }

    /**
     * @param durability what the operation this thread begins now promises: its blocks are written pending (SYNC) or
     *                   not, and its nodes told (or not) as it says, until the next operation begins.
     */
    public void durability(final Durability durability)
    {
        if (durability != Durability.ASYNC && deferredCounts != null)
        {
            // held under async: told before anything the new durability does
            flushDeferred();
        }
        this.durability = durability;
    }

    /**
     * @param freeing the operation this thread runs from now on frees memory (deletes, their transactions, expiries):
     *                where a node is full its blocks may go into the reserve the node keeps for such writes.
     * @return whether it was said before, for the caller to put back.
     */
    public boolean freeing(final boolean freeing)
    {
        final boolean was = this.freeing;
        this.freeing = freeing;
        return was;
    }

    /** @return what the operation this thread runs promises. */
    public Durability durability()
    {
        return durability;
    }

    /** @return PERSISTs this thread sent itself (not those of writes carried by completions). */
    public long persistsTold()
    {
        return persistsTold;
    }

    /** @return of {@link #persistsTold()}, those the node did not confirm. */
    public long persistsFailed()
    {
        return persistsFailed;
    }

    /** @return 1 while this thread waits for a node to answer a PERSIST, else 0. */
    public int persistsPending()
    {
        return persisting ? 1 : 0;
    }

    /** @return the block buffer holding the block last placed, its bytes from offset 0. */
    public MemorySegment out()
    {
        return out;
    }

    /** @return the client's durable epochs: what its blocks are written at, raised by what it reads. */
    public WriteEpochs epochs()
    {
        return epochs;
    }

    /**
     * The epoch a write of this thread writes its blocks at: the client's, with the write held among those in flight
     * first when its nodes are to be told of it, so that no mark passes its epoch before they are
     * ({@link #writeDone}). A thread already holding a slot (held notices, an earlier write of the operation) keeps
     * it: its epoch is the least of what it holds.
     */
    public long writeEpoch()
    {
        if (durability != Durability.NONE)
        {
            ensureRings();
            if (flight < 0)
            {
                flight = epochs.enter();
            }
        }
        return epochs.current();
    }

    /**
     * A write that took {@link #writeEpoch} is over: its notices were written into rings or answered (or it made
     * none), unless this thread holds them for {@link #flushDeferred}, which lets the slot go then.
     */
    public void writeDone()
    {
        if (deferredTotal == 0)
        {
            leaveFlight();
        }
    }

    /** The thread's links are about to close: its rings' marks stop first, and its slot goes. */
    public void close()
    {
        if (rings != null)
        {
            rings.close();
        }
        leaveFlight();
    }

    private void leaveFlight()
    {
        if (flight >= 0)
        {
            epochs.leave(flight);
            flight = -1;
        }
    }

    /**
     * A write carried by completions, whose nodes are told by another thread, is about to take its epoch: its slot
     * among the writes in flight, which the caller leaves once every node took its notice; the rings first, as
     * {@link #writeEpoch} makes them.
     */
    public int enterFlight()
    {
        ensureRings();
        return epochs.enter();
    }

    /**
     * Each node has this thread's ring of this generation of its links (asked for again after they were made again,
     * or first at the thread's first write that tells nodes), before a write takes its epoch: the epoch is then above
     * each node's durable epoch at its ring's making, whichever nodes the write's blocks go to. One comparison a node
     * once made; a node that cannot be reached is left to the write, which meets it if it needs it.
     */
    private void ensureRings()
    {
        final PersistRingWriter writer = rings();
        final int known = links.known();
        for (int node = 0; node < known; node++)
        {
            if (!writer.made(node))
            {
                try
                {
                    rings().ensure(node);
                }
                catch (final RuntimeException ex)
                {
                    // the write's own use of the node says why
                }
            }
        }
    }

    /** @return this thread's persist rings, made at their first use. */
    private PersistRingWriter rings()
    {
        if (rings == null)
        {
            rings = new PersistRingWriter(links, epochs, context.ringMarks(), context.timeoutMs());
        }
        return rings;
    }

    /**
     * @return true when a delete publishes a tombstone rather than an empty slot: under durability sync (pending: a
     * reader of its miss settles it on disk first), and under async where nodes keep versions, which keep the delete
     * as one of its own epoch (kv-memory-node/README.md, "Coming back").
     */
    public boolean tombstones()
    {
        return durability == Durability.SYNC || durability == Durability.ASYNC && links.anyKeepsVersions();
    }

    /** @return true when this client's blocks are written pending: it waits for the node's disk (durability sync). */
    public boolean pendingBlocks()
    {
        return durability == Durability.SYNC;
    }

    /**
     * Write a whole block into this thread's chunk of the node's heap (a new chunk when it is full).
     *
     * @return the block's offset in the heap region.
     */
    public long writeBlock(final int node, final byte[] key, final MemorySegment value, final int length,
        final long expireAt, final long writeId, final long epoch)
    {
        KvBlockLayout.write(out(length), 0, key, value, expireAt, writeId, epoch, pendingBlocks());
        return writeOut(node, length);
    }

    /** Write a copy of the block {@code from} holds at offset 0 into this thread's chunk of the node's heap. */
    public long copyBlock(final int node, final MemorySegment from, final int length)
    {
        MemorySegment.copy(from, 0, out(length), 0, length);
        return writeOut(node, length);
    }

    /**
     * Put a write's block (the same bytes on each) into the block buffer and make room for it in this thread's chunk
     * on each of the nodes, without writing it: the caller posts the WRITEs with its next round.
     */
    public void placeBlocks(final int[] nodes, final int count, final byte[] key, final MemorySegment value,
        final int length, final long expireAt, final long writeId, final long epoch, final long[] offsets)
    {
        KvBlockLayout.write(out(length), 0, key, value, expireAt, writeId, epoch, pendingBlocks());
        reserveBlocks(nodes, count, length, offsets);
    }

    /** Make room for a block of {@code length} bytes in this thread's chunk on each of the nodes. */
    public void reserveBlocks(final int[] nodes, final int count, final int length, final long[] offsets)
    {
        for (int p = 0; p < count; p++)
        {
            final int node = current(links.use(nodes[p]));
            if (needsChunk(node, length))
            {
                allocateChunk(node, length);
            }
            offsets[p] = chunkOffset[node] + chunkUsed[node];
            chunkUsed[node] += length;
        }
    }

    /**
     * @return the generation of the chunk this thread wrote the block at {@code offset} of node {@code node} into: its
     * chunk now or the one before.
     * @throws IllegalStateException when neither holds the block: a word would name it under a generation guessed.
     */
    public int generationOf(final int node, final long offset)
    {
        current(node);
        if (chunkLength[node] > 0 && offset >= chunkOffset[node] && offset < chunkOffset[node] + chunkLength[node])
        {
            return chunkGeneration[node];
        }
        if (previousChunkLength[node] > 0 && offset >= previousChunkOffset[node] &&
            offset < previousChunkOffset[node] + previousChunkLength[node])
        {
            return previousChunkGeneration[node];
        }
        throw new IllegalStateException("block at heap offset " + offset + " of memory node " + links.nodeId(node) +
            " is in neither of this thread's last two chunks there");
    }

    /**
     * Tell the node a key changed (its block, new or deleted, at {@code blockOffset}), as the client's durability
     * asks: not at all, without waiting, or waiting until it is on disk.
     *
     * @param previousWriteId the write id of the version the write replaced on the node, {@link KvBlockLayout#NO_WRITE}
     *                        when the key had none there: what lets the node order the key's versions.
     */
    public void persist(final int node, final long blockOffset, final long previousWriteId)
    {
        if (durability == Durability.NONE)
        {
            return;
        }
        if (deferring && durability == Durability.ASYNC)
        {
            defer(node, blockOffset, previousWriteId);
            return;
        }
        final boolean sync = durability == Durability.SYNC;
        persistsTold++;
        if (!sync)
        {
            tellAsync(node, blockOffset, previousWriteId);
            return;
        }
        persisting = true;
        final int status;
        try
        {
            status = links.request(node, MemoryNodeProtocol.PERSIST,
                MemoryNodeProtocol.ANSWER_WHEN_DURABLE | MemoryNodeProtocol.NAMES_PREVIOUS, blockOffset,
                previousWriteId, true, "the key on disk");
        }
        catch (final RuntimeException ex)
        {
            persistsFailed++;
            throw ex;
        }
        finally
        {
            persisting = false;
        }
        if (status != MemoryNodeProtocol.OK)
        {
            persistsFailed++;
            throw new KvException("memory node " + links.nodeId(node) + " did not write the key to disk: " +
                MemoryNodeProtocol.why(status));
        }
    }

    /**
     * One notice under async, not held: into the node's ring, or, where it has none with room, a PERSIST it answers
     * once it took it (its answer comes before any later mark of this thread's). A node that cannot be told is gone
     * with its copy, within the window async accepts (as redis's everysec answers OK and loses the last second to a
     * crash): counted, not failed.
     */
    private void tellAsync(final int node, final long blockOffset, final long previousWriteId)
    {
        try
        {
            single[0] = blockOffset;
            singlePrevious[0] = previousWriteId;
            if (rings().write(node, single, singlePrevious, 1))
            {
                return;
            }
            final int status = links.request(node, MemoryNodeProtocol.PERSIST,
                MemoryNodeProtocol.ANSWER_WHEN_TAKEN | MemoryNodeProtocol.NAMES_PREVIOUS, blockOffset,
                previousWriteId, true, "the key on disk");
            if (status != MemoryNodeProtocol.OK && status != MemoryNodeProtocol.NOT_PERSISTENT)
            {
                persistsFailed++;
            }
        }
        catch (final RuntimeException ex)
        {
            persistsFailed++;
        }
    }

    /**
     * Hold this thread's PERSISTs under durability async until {@link #flushDeferred}, or send each at once again
     * (what is held is sent first). The caller flushes before any answer of a write it ran leaves its process: a write
     * answered is one its nodes were told of, as Redis's everysec writes its log before it answers.
     */
    public void deferPersists(final boolean defer)
    {
        if (!defer)
        {
            flushDeferred();
        }
        deferring = defer;
    }

    /** @return whether this thread holds PERSISTs not sent yet ({@link #deferPersists}). */
    public boolean holdsDeferred()
    {
        return deferredTotal > 0;
    }

    /** Tell the nodes what {@link #deferPersists} held: one group in each node's ring; the write slot goes. */
    public void flushDeferred()
    {
        if (deferredTotal > 0)
        {
            for (int node = 0; node < deferredCounts.length; node++)
            {
                if (deferredCounts[node] > 0)
                {
                    sendDeferred(node);
                }
            }
        }
        leaveFlight();
    }

    private void defer(final int node, final long blockOffset, final long previousWriteId)
    {
        if (deferred == null)
        {
            deferred = new long[links.nodeIds().length][];
            deferredPrevious = new long[deferred.length][];
            deferredCounts = new int[deferred.length];
            blocksMessage = links.raas().allocateBuffer(MemoryNodeProtocol.MAX_REQUEST_LENGTH);
        }
        if (node >= deferred.length)
        {
            deferred = Arrays.copyOf(deferred, node + 1);
            deferredPrevious = Arrays.copyOf(deferredPrevious, node + 1);
            deferredCounts = Arrays.copyOf(deferredCounts, node + 1);
        }
        if (deferred[node] == null)
        {
            deferred[node] = new long[MemoryNodeProtocol.MAX_BLOCKS];
            deferredPrevious[node] = new long[MemoryNodeProtocol.MAX_BLOCKS];
        }
        persistsTold++;
        deferredTotal++;
        deferredPrevious[node][deferredCounts[node]] = previousWriteId;
        deferred[node][deferredCounts[node]++] = blockOffset;
        if (deferredCounts[node] == MemoryNodeProtocol.MAX_BLOCKS)
        {
            sendDeferred(node);
        }
    }

    private void sendDeferred(final int node)
    {
        final int count = deferredCounts[node];
        deferredCounts[node] = 0;
        deferredTotal -= count;
        try
        {
            if (rings().write(node, deferred[node], deferredPrevious[node], count))
            {
                return;
            }
            // no ring to be had: a message the node answers once it took the blocks, before any later mark
            blocksMessage.set(INT, MemoryNodeProtocol.TYPE_OFFSET, MemoryNodeProtocol.PERSIST_BLOCKS);
            blocksMessage.set(INT, MemoryNodeProtocol.ARGUMENT_OFFSET, count);
            for (int i = 0; i < count; i++)
            {
                final long at = MemoryNodeProtocol.BLOCK_OFFSET + (long)i * MemoryNodeProtocol.NOTICE_LENGTH;
                blocksMessage.set(LONG, at, deferred[node][i]);
                blocksMessage.set(LONG, at + Long.BYTES, deferredPrevious[node][i]);
            }
            final int status = links.requestMessage(node, blocksMessage, MemoryNodeProtocol.persistBlocksLength(count),
                "the keys on disk");
            if (status != MemoryNodeProtocol.OK && status != MemoryNodeProtocol.NOT_PERSISTENT)
            {
                persistsFailed += count;
            }
        }
        catch (final RuntimeException ex)
        {
            // durability async: the writes are on their replicas, and the node that cannot be told is gone with its
            // copies, within the window async accepts (as persist says). Counted, not failed.
            persistsFailed += count;
        }
    }

    /**
     * Wait until every key this thread told the node of is on its disk (fsynced), whatever the durability they were
     * told under: a refill's copies, before its joiner is read. Nothing to wait for under durability none, or when
     * the node keeps nothing on disk.
     */
    public void sync(final int node)
    {
        if (durability == Durability.NONE)
        {
            return;
        }
        flushDeferred();
        final int status = links.request(node, MemoryNodeProtocol.SYNC, 0, -1, true, "the keys on disk");
        if (status != MemoryNodeProtocol.OK && status != MemoryNodeProtocol.NOT_PERSISTENT)
        {
            throw new KvException("memory node " + links.nodeId(node) + " did not fsync the keys written to its " +
                "disk: " + MemoryNodeProtocol.why(status));
        }
    }

    private MemorySegment out(final int length)
    {
        if (out.byteSize() < length)
        {
            out = links.raas().allocateBuffer(
                Math.min(KvSession.MAX_BLOCK, Math.max(length, (int)out.byteSize() * 2)));
        }
        return out;
    }

    private long writeOut(final int node, final int length)
    {
        // a replica's blocks are written before anything else of the operation reads it: its view is made again
        // here when its last request failed
        current(links.use(node));
        if (needsChunk(node, length))
        {
            allocateChunk(node, length);
        }
        final long offset = chunkOffset[node] + chunkUsed[node];
        try
        {
            links.connection(node).write(links.view(node).heap, offset, out, 0, length);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        chunkUsed[node] += length;
        return offset;
    }

    /** @return true when the block goes into a new chunk: the current one lacks room, or is the reserve's. */
    private boolean needsChunk(final int node, final int length)
    {
        return chunkLength[node] == 0 || chunkUsed[node] + length > chunkLength[node] || fromReserve[node] && !freeing;
    }

    /** @return the node, its chunks forgotten first when its links were made again since they were handed out. */
    private int current(final int node)
    {
        final int generation = links.linkGeneration(node);
        if (chunkLinks[node] != generation)
        {
            chunkLinks[node] = generation;
            chunkLength[node] = 0;
            previousChunkLength[node] = 0;
            chunkUsed[node] = 0;
            nextChunk[node] = FIRST_CHUNK;
            fromReserve[node] = false;
        }
        return node;
    }

    private void allocateChunk(final int node, final int needed)
    {
        final long nodeId = links.nodeId(node);
        if (chunkLength[node] > 0)
        {
            // no more blocks go into the full one: the node takes it back once no slot points into it
            links.request(node, MemoryNodeProtocol.RETIRE, 0, chunkOffset[node], false, "retiring a chunk");
            previousChunkOffset[node] = chunkOffset[node];
            previousChunkLength[node] = chunkLength[node];
            previousChunkGeneration[node] = chunkGeneration[node];
            chunkLength[node] = 0;
        }
        if (durability != Durability.NONE)
        {
            // the node counts this thread's marks from the ring's making, so the ring is made before any block of
            // this thread is in the node's heap, and this thread's epoch goes above the node's durable epoch then
            rings().ensure(node);
        }
        final int least = (needed + 63) & ~63;
        final int wanted = Math.max(nextChunk[node], least);
        final long now = nanoClock.nanoTime();
        final long limitChanges = context.heapLimitChanges().get();
        if (limitChanges != fullAtLimitChanges)
        {
            // the pool's limits changed since a node was taken as full: its room may have come back at once
            fullAtLimitChanges = limitChanges;
            Arrays.fill(fullUntil, now);
        }
        if (!freeing && fullUntil[node] - now > 0)
        {
            throw new MemoryFullException(nodeId, wanted, fullRoom[node], fullReserve[node], false);
        }
        // where the node has no free piece of the length wanted, any that holds the block will do
        int status = links.request(node, MemoryNodeProtocol.ALLOCATE, wanted, least, true, "a heap chunk");
        if (status == MemoryNodeProtocol.FULL)
        {
            fullUntil[node] = now + FULL_HELD_NANOS;
            fullRoom[node] = links.reply().get(LONG, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET);
            fullReserve[node] = links.reply().get(LONG, MemoryNodeProtocol.CHUNK_GENERATION_OFFSET);
        }
        boolean reserve = false;
        if (status == MemoryNodeProtocol.FULL && freeing)
        {
            // a delete on a full node: a small chunk of the reserve the node keeps for writes that free memory
            reserve = true;
            status = links.request(node, MemoryNodeProtocol.ALLOCATE,
                Math.max(least, RESERVE_CHUNK) | MemoryNodeProtocol.FREEING, least, true, "a heap chunk");
        }
        if (status == MemoryNodeProtocol.FULL)
        {
            final MemorySegment full = links.reply();
            throw new MemoryFullException(nodeId, wanted, full.get(LONG, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET),
                full.get(LONG, MemoryNodeProtocol.CHUNK_GENERATION_OFFSET), reserve);
        }
        if (status != MemoryNodeProtocol.OK)
        {
            throw new KvException("memory node " + nodeId + " refused a chunk request (status " + status + ")");
        }
        fromReserve[node] = reserve;
        fullUntil[node] = reserve ? fullUntil[node] : now;
        final MemorySegment reply = links.reply();
        final int granted = reply.get(INT, MemoryNodeProtocol.CHUNK_LENGTH_OFFSET);
        if (needed > granted)
        {
            throw new IllegalArgumentException("a block of " + needed + " bytes does not fit memory node " + nodeId +
                "'s heap chunks of " + granted + " bytes");
        }
        chunkOffset[node] = reply.get(LONG, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET);
        chunkGeneration[node] = reply.get(INT, MemoryNodeProtocol.CHUNK_GENERATION_OFFSET);
        chunkLength[node] = granted;
        chunkUsed[node] = 0;
        nextChunk[node] = (int)Math.min(LARGEST_CHUNK_ASKED, 2L * granted);
    }
}
