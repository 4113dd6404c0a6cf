package io.dkv.memory;

import io.dkv.format.PersistRingLayout;
import io.dkv.raas.Connection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;

/**
 * The persist rings clients were handed ({@link PersistRingLayout}), read each turn by the request server's thread,
 * their only reader: each group whose entries are all whole is blocks to write to disk, all in one batch, as a
 * PERSIST_BLOCKS message's are. A ring is read to its end when its client goes away, then forgotten (its chunk goes
 * back as the client's other chunks do); a group it left half written was never flushed, so never answered.
 *
 * <p>Each ring also carries its client's mark ({@link PersistRingLayout}): the epoch through which the client has told
 * the node of every write, counted once the node has taken the ring to the mark's position. A ring counts from its
 * creation with the node's durable epoch then, which the client raises its own above; the least mark of the rings
 * held is how far the node has been told of everything ({@link DurableEpoch}).
 */
final class PersistRings
{
    /** Receives a notice: the block a write changed, and the low 48 bits of the write id of the version it replaced. */
    @FunctionalInterface
    interface NoticeHandler
    {
        void notice(long block, long previousWriteId);
    }

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** One ring: where, how many entries, whose, and how far it was read. */
    private static final class Ring
    {
        final long offset;
        final int entries;
        final Connection owner;
        long consumed;
        long mark;

        Ring(final long offset, final int entries, final Connection owner, final long mark)
        {
            this.offset = offset;
            this.entries = entries;
            this.owner = owner;
            this.mark = mark;
        }
    }

    private final MemorySegment heap;
    private final ArrayList<Ring> rings = new ArrayList<>();

    PersistRings(final MemorySegment heap)
    {
        this.heap = heap;
    }

    /**
     * A chunk just handed out to {@code owner} as its ring: zeroed, so that no slot holds an entry yet.
     *
     * @param mark the node's durable epoch now: the ring's client writes only later epochs.
     */
    void add(final long offset, final int length, final Connection owner, final long mark)
    {
        heap.asSlice(offset, length).fill((byte)0);
        rings.add(new Ring(offset, PersistRingLayout.entries(length), owner, mark));
    }

    /**
     * @param none what to answer when no ring is held.
     * @return the least mark of the rings held: every write of an epoch up to it has been taken from them.
     */
    long leastMark(final long none)
    {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < rings.size(); i++)
        {
            least = Math.min(least, rings.get(i).mark);
        }
        return rings.isEmpty() ? none : least;
    }

    /** @return rings held now. */
    int size()
    {
        return rings.size();
    }

    /**
     * Take the entries written since the last poll, in order, ring after ring, up to {@code limit} blocks in all.
     *
     * @return blocks handed to {@code blocks}.
     */
    int poll(final NoticeHandler blocks, final int limit)
    {
        int taken = 0;
        for (int i = 0; i < rings.size() && taken < limit; i++)
        {
            taken += take(rings.get(i), blocks, limit - taken);
        }
        return taken;
    }

    /**
     * {@code owner} went away: what it wrote into its rings is taken (it may be every copy of a write it answered),
     * and the rings forgotten.
     *
     * @return blocks handed to {@code blocks}.
     */
    int ownerGone(final Connection owner, final NoticeHandler blocks)
    {
        int taken = 0;
        for (int i = rings.size() - 1; i >= 0; i--)
        {
            final Ring ring = rings.get(i);
            if (ring.owner == owner)
            {
                taken += take(ring, blocks, Integer.MAX_VALUE);
                rings.remove(i);
            }
        }
        return taken;
    }

    /** Take the ring's whole groups from where it was read to, while fewer than {@code limit} were taken. */
    private int take(final Ring ring, final NoticeHandler blocks, final int limit)
    {
        int taken = 0;
        while (taken < limit)
        {
            final long end = groupEnd(ring);
            if (end == ring.consumed)
            {
                break;
            }
            for (long position = ring.consumed; position < end; position++)
            {
                blocks.notice(PersistRingLayout.blockOffset(entry(ring, position)),
                    PersistRingLayout.previousWriteId(second(ring, position)));
            }
            taken += (int)(end - ring.consumed);
            ring.consumed = end;
        }
        if (taken > 0)
        {
            // what the client reads back before it writes over slots: only after the entries were taken
            heap.set(LONG, ring.offset + PersistRingLayout.CONSUMED_OFFSET, ring.consumed);
        }
        readMark(ring);
        return taken;
    }

    /** The ring's mark counts once whole and once every entry it covers was taken; a lower one changes nothing. */
    private void readMark(final Ring ring)
    {
        final long position = heap.get(LONG, ring.offset + PersistRingLayout.MARK_POSITION_OFFSET);
        final long epoch = heap.get(LONG, ring.offset + PersistRingLayout.MARK_EPOCH_OFFSET);
        final long check = heap.get(LONG, ring.offset + PersistRingLayout.MARK_CHECK_OFFSET);
        if (check == PersistRingLayout.markCheck(position, epoch) && position <= ring.consumed && epoch > ring.mark)
        {
            ring.mark = epoch;
        }
    }

    /**
     * @return the position after the group that starts where the ring was read to, when each of its entries is whole
     * up to the one that ends it; else where it was read to (the group is being written, or nothing is there).
     */
    private long groupEnd(final Ring ring)
    {
        for (long position = ring.consumed; position - ring.consumed < ring.entries; position++)
        {
            final long entry = entry(ring, position);
            if (!PersistRingLayout.isEntry(entry, second(ring, position), position, ring.entries))
            {
                return ring.consumed;
            }
            if (PersistRingLayout.isLast(entry))
            {
                return position + 1;
            }
        }
        return ring.consumed;
    }

    private long entry(final Ring ring, final long position)
    {
        return heap.get(LONG, ring.offset + PersistRingLayout.entryOffset(position, ring.entries));
    }

    private long second(final Ring ring, final long position)
    {
        return heap.get(LONG, ring.offset + PersistRingLayout.entryOffset(position, ring.entries) + Long.BYTES);
    }
}
