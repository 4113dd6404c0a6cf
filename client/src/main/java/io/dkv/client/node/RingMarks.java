package io.dkv.client.node;

import io.dkv.format.PersistRingLayout;
import io.dkv.raas.Connection;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The marks of a client's persist rings (kv-memory-node/README.md, "Async across nodes"): once an epoch, one thread
 * writes into every ring's header the position its owner has written up to and the client's {@link WriteEpochs#mark()}
 * as it was before that position was read, so that a node's durable epoch moves on under a thread that is idle as
 * under one that writes. One WRITE of the three words a ring; a node counts a mark once it has taken its ring that
 * far, so a mark that lands late or out of order is harmless. The thread runs while some ring is held and stops when
 * none is (a ring whose connection failed is dropped at its first failed mark).
 */
public final class RingMarks
{
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The mark's three words, from {@link PersistRingLayout#MARK_POSITION_OFFSET}. */
    static final int MARK_LENGTH = 3 * Long.BYTES;

    /** One ring a thread of the client was handed: where it is, over which connection, and how far it is written. */
    public static final class Ring
    {
        final Connection connection;
        final RemoteRegion heap;
        final long offset;
        final MemorySegment words;
        volatile long written;
        volatile boolean gone;

        Ring(final Connection connection, final RemoteRegion heap, final long offset, final MemorySegment words)
        {
            this.connection = connection;
            this.heap = heap;
            this.offset = offset;
            this.words = words;
        }

        /** Its owner wrote entries up to {@code position} (whole: their WRITE completed). */
        void written(final long position)
        {
            written = position;
        }
    }

    private final WriteEpochs epochs;
    private final long periodNanos;
    private final CopyOnWriteArrayList<Ring> rings = new CopyOnWriteArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong marksWritten = new AtomicLong();
    private final AtomicLong marksFailed = new AtomicLong();

    /** @param epochMs how often the marks are written: once an epoch. */
    public RingMarks(final WriteEpochs epochs, final long epochMs)
    {
        this.epochs = epochs;
        this.periodNanos = epochMs * 1_000_000L;
    }

    /**
     * A ring was handed to a thread of this client: its marks are written from now on.
     *
     * @param words registered memory of {@link #MARK_LENGTH} bytes or more, this ring's alone.
     */
    Ring add(final Connection connection, final RemoteRegion heap, final long offset, final MemorySegment words)
    {
        final Ring ring = new Ring(connection, heap, offset, words);
        rings.add(ring);
        if (running.compareAndSet(false, true))
        {
            Thread.ofPlatform().daemon().name("dkv-ring-marks").start(this::run);
        }
        return ring;
    }

    /**
     * The ring's thread asked for another (its links were made again) or closes: no more marks for it, and none being
     * written when this returns (the connection may close right after).
     */
    synchronized void remove(final Ring ring)
    {
        ring.gone = true;
        rings.remove(ring);
    }

    /** @return marks written into rings, and those whose WRITE failed (the ring is then dropped). */
    public long marksWritten()
    {
        return marksWritten.get();
    }

    public long marksFailed()
    {
        return marksFailed.get();
    }

    /** @return rings whose marks are written. */
    public int rings()
    {
        return rings.size();
    }

    /**
     * Write every ring's mark now: the client's mark first, then each ring's position, so every write of an epoch at
     * or below the mark is at a position below the one written beside it.
     *
     * @return the mark written.
     */
    public synchronized long markAll()
    {
        final long mark = epochs.mark();
        for (final Ring ring : rings)
        {
            if (ring.gone)
            {
                continue;
            }
            final long position = ring.written;
            ring.words.set(LONG, 0, position);
            ring.words.set(LONG, Long.BYTES, mark);
            ring.words.set(LONG, 2 * Long.BYTES, PersistRingLayout.markCheck(position, mark));
            try
            {
                ring.connection.write(ring.heap, ring.offset + PersistRingLayout.MARK_POSITION_OFFSET, ring.words, 0,
                    MARK_LENGTH);
                marksWritten.incrementAndGet();
            }
            catch (final RuntimeException ex)
            {
                // the connection closed under it (the node went, or the thread's links were made again)
                marksFailed.incrementAndGet();
                remove(ring);
            }
        }
        return mark;
    }

    private void run()
    {
        while (true)
        {
            markAll();
            if (rings.isEmpty())
            {
                running.set(false);
                // a ring added after the look above started no thread: this one goes on
                if (rings.isEmpty() || !running.compareAndSet(false, true))
                {
                    return;
                }
            }
            LockSupport.parkNanos(periodNanos);
        }
    }
}
