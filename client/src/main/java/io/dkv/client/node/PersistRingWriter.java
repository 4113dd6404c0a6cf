package io.dkv.client.node;

import io.dkv.client.KvException;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.PersistRingLayout;
import io.dkv.raas.RaasException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * One client thread's persist rings ({@link PersistRingLayout}), one per memory node, asked for before the first chunk
 * the thread is handed there and again each time the node's links are made again (the node forgets a ring whose
 * connection closed, after reading it to the end). Blocks are written into a ring by one-sided WRITE, which costs
 * the node nothing until its request server reads them, rather than sent in a PERSIST_BLOCKS message, which wakes
 * it. Each ring's marks are the client's {@link RingMarks}; the node's durable epoch at the ring's making, which its
 * answer carries, raises the client's epoch above it. A ring with no room is waited on (the node reads every ring
 * each turn), up to the client's timeout; a node that hands out no ring (its heap is full, it is of an older
 * version) is told in messages it answers until its links are made again; one that keeps nothing on disk is told
 * nothing.
 */
final class PersistRingWriter
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@link #entries}: not asked for yet in this generation of the node's links. */
    private static final int NOT_ASKED = -1;
    /** {@link #entries}: the node keeps nothing on disk; nothing need be told. */
    private static final int NOT_PERSISTENT = -2;
    private static final long MOST_WAIT_NANOS = 1_000_000L;

    private final NodeLinks links;
    private final WriteEpochs epochs;
    private final RingMarks marks;
    private final long timeoutNanos;
    /** Per node: the ring's marks, written by the client's {@link RingMarks}. */
    private RingMarks.Ring[] marked = new RingMarks.Ring[0];
    private int[] linkGenerations = new int[0];
    /** Per node: the ring's heap offset, its entries (0: none to be had), written and taken as last read. */
    private long[] offsets = new long[0];
    private int[] entries = new int[0];
    private long[] written = new long[0];
    private long[] taken = new long[0];
    private final MemorySegment out;
    private final MemorySegment in;

    PersistRingWriter(final NodeLinks links, final WriteEpochs epochs, final RingMarks marks, final long timeoutMs)
    {
        this.links = links;
        this.epochs = epochs;
        this.marks = marks;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        this.out = links.raas().allocateBuffer(MemoryNodeProtocol.MAX_BLOCKS * PersistRingLayout.ENTRY_LENGTH);
        this.in = links.raas().allocateBuffer(Long.BYTES);
    }

    /**
     * Write the blocks into the node's ring as one group, which the node writes to disk in one batch, when it has a
     * ring with room for them.
     *
     * @param previous each block's write's replaced version's write id ({@link KvBlockLayout#NO_WRITE}: none).
     * @param count    at most {@link MemoryNodeProtocol#MAX_BLOCKS}.
     * @return true when written: the node takes them at its next turn; false when they must go in a message.
     * @throws KvException when the node did not answer (its links are then made again at their next use).
     */
    boolean write(final int node, final long[] blocks, final long[] previous, final int count)
    {
        final int ringEntries = ensure(node);
        if (ringEntries == NOT_PERSISTENT)
        {
            return true;
        }
        if (ringEntries < count || written[node] + count - taken[node] > ringEntries && !awaitRoom(node, count))
        {
            return false;
        }
        final long first = written[node];
        for (int i = 0; i < count; i++)
        {
            final long at = (long)i * PersistRingLayout.ENTRY_LENGTH;
            out.set(LONG, at, PersistRingLayout.entry(first + i, ringEntries, blocks[i], i == count - 1));
            out.set(LONG, at + Long.BYTES, PersistRingLayout.previous(first + i, ringEntries, previous[i]));
        }
        // up to the ring's end, then the rest from its first slot
        final int untilEnd = (int)Math.min(count, ringEntries - first % ringEntries);
        writeEntries(node, first, 0, untilEnd);
        if (untilEnd < count)
        {
            writeEntries(node, first + untilEnd, untilEnd, count - untilEnd);
        }
        written[node] = first + count;
        // published after the WRITE completed: a mark written beside a later position covers these entries
        marked[node].written(written[node]);
        return true;
    }

    /**
     * Make the node's ring for this generation of its links, if not made yet.
     *
     * @return its entries, 0 when the node hands out none, {@link #NOT_PERSISTENT} when it keeps nothing on disk.
     */
    int ensure(final int node)
    {
        grow(node);
        // links that failed are made again first: the node forgot the ring of the connection that closed
        links.use(node);
        final int generation = links.linkGeneration(node);
        if (linkGenerations[node] != generation)
        {
            linkGenerations[node] = generation;
            entries[node] = NOT_ASKED;
        }
        if (entries[node] == NOT_ASKED)
        {
            ask(node);
        }
        return entries[node];
    }

    /** @return whether the node's ring of this generation of its links was asked for (granted or not). */
    boolean made(final int node)
    {
        return node < entries.length && linkGenerations[node] == links.linkGeneration(node) &&
            entries[node] != NOT_ASKED;
    }

    /** Wait, backing off, for the node to take enough of the ring: up to the client's timeout. */
    private boolean awaitRoom(final int node, final int count)
    {
        final long start = System.nanoTime();
        long pause = 1_000;
        while (!readTaken(node, count))
        {
            if (System.nanoTime() - start > timeoutNanos)
            {
                return false;
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(MOST_WAIT_NANOS, pause * 2);
        }
        return true;
    }

    private void writeEntries(final int node, final long position, final int from, final int count)
    {
        try
        {
            links.connection(node).write(links.view(node).heap,
                offsets[node] + PersistRingLayout.entryOffset(position, entries[node]), out,
                (long)from * PersistRingLayout.ENTRY_LENGTH, count * PersistRingLayout.ENTRY_LENGTH);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
    }

    /**
     * Read back how much of the ring the node took: twice alike, and within what was written, since a READ need not
     * copy a word the node stores meanwhile whole, and a count read too high would let entries not taken be written
     * over.
     *
     * @return true when the node has taken enough of the ring for {@code count} more entries.
     */
    private boolean readTaken(final int node, final int count)
    {
        final long first = readCount(node);
        final long second = readCount(node);
        if (first == second && second >= taken[node] && second <= written[node])
        {
            taken[node] = second;
        }
        return written[node] + count - taken[node] <= entries[node];
    }

    private long readCount(final int node)
    {
        try
        {
            links.connection(node).read(links.view(node).heap, offsets[node] + PersistRingLayout.CONSUMED_OFFSET, in,
                0, Long.BYTES);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        return in.get(LONG, 0);
    }

    private void ask(final int node)
    {
        written[node] = 0;
        taken[node] = 0;
        entries[node] = 0;
        if (marked[node] != null)
        {
            marks.remove(marked[node]);
            marked[node] = null;
        }
        final int status = links.request(node, MemoryNodeProtocol.PERSIST_RING, PersistRingLayout.RING_LENGTH, 0, true,
            "a persist ring");
        if (status == MemoryNodeProtocol.NOT_PERSISTENT)
        {
            entries[node] = NOT_PERSISTENT;
        }
        else if (status == MemoryNodeProtocol.OK)
        {
            final MemorySegment reply = links.reply();
            offsets[node] = reply.get(LONG, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET);
            entries[node] = PersistRingLayout.entries(reply.get(INT, MemoryNodeProtocol.CHUNK_LENGTH_OFFSET));
            // the node counts this ring's marks from its durable epoch now: every write told here is of a later one
            epochs.observe(reply.get(LONG, MemoryNodeProtocol.RING_EPOCH_OFFSET) + 1);
            marked[node] = marks.add(links.connection(node), links.view(node).heap, offsets[node],
                links.raas().allocateBuffer(RingMarks.MARK_LENGTH));
        }
    }

    /** No more marks for this thread's rings: its connections close next. */
    void close()
    {
        for (int node = 0; node < marked.length; node++)
        {
            if (marked[node] != null)
            {
                marks.remove(marked[node]);
                marked[node] = null;
            }
        }
    }

    private void grow(final int node)
    {
        if (node >= entries.length)
        {
            final int known = entries.length;
            final int length = node + 1;
            linkGenerations = Arrays.copyOf(linkGenerations, length);
            offsets = Arrays.copyOf(offsets, length);
            entries = Arrays.copyOf(entries, length);
            written = Arrays.copyOf(written, length);
            taken = Arrays.copyOf(taken, length);
            marked = Arrays.copyOf(marked, length);
            // nodes first met now: no generation of the links is this one, so each asks
            Arrays.fill(linkGenerations, known, length, Integer.MIN_VALUE);
        }
    }
}
