package io.dkv.verbs.soft;

import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.WcOpcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import static io.dkv.verbs.soft.CompletionQueueDescriptor.*;

/**
 * Completion queue of a software device. Producers (posting threads, a NIC engine) publish
 * entries lock-free; the one polling thread consumes them. Before it consumes, poll gives each
 * attached {@link Progressor} a turn, which is how the shm provider makes progress.
 */
public final class SoftCompletionQueue implements CompletionQueue
{
    private static final VarHandle TAIL;
    private static final Progressor[] NO_PROGRESSORS = new Progressor[0];

    static
    {
        try
        {
            TAIL = MethodHandles.lookup().findVarHandle(SoftCompletionQueue.class, "tail", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final SoftDevice device;
    private final int id;
    private final int depth;
    private final int mask;
    private final int capacity;
    private final Arena arena = Arena.ofShared();
    private final UnsafeBuffer entries;
    private long head;
    @SuppressWarnings("unused")
    private volatile long tail;
    private volatile boolean overrun;
    private volatile Progressor[] progressors = NO_PROGRESSORS;
    private volatile boolean closed;

    SoftCompletionQueue(final SoftDevice device, final int id, final int depth)
    {
        this.device = device;
        this.id = id;
        this.depth = depth;
        this.capacity = BitUtil.findNextPositivePowerOfTwo(depth);
        this.mask = capacity - 1;
        this.entries =
            new UnsafeBuffer(arena.allocate((long)capacity * ENTRY_LENGTH, ENTRY_LENGTH).address(),
                capacity * ENTRY_LENGTH);
        for (int i = 0; i < capacity; i++)
        {
            entries.putLong(i * ENTRY_LENGTH + SEQUENCE_OFFSET, i);
        }
    }

    public int depth()
    {
        return depth;
    }

    public int id()
    {
        return id;
    }

    /**
     * Publish a completion. Never blocks: a full queue is an overrun, reported by every later poll.
     */
    public void push(
        final long wrId,
        final WcStatus status,
        final WcOpcode opcode,
        final int byteLen,
        final int immData,
        final int qpNum,
        final int srcQp,
        final int wcFlags)
    {
        final UnsafeBuffer entries = this.entries;
        long position;
        int offset;
        while (true)
        {
            position = (long)TAIL.getVolatile(this);
            offset = (int)(position & mask) * ENTRY_LENGTH;
            final long sequence = entries.getLongVolatile(offset + SEQUENCE_OFFSET);
            if (sequence == position)
            {
                if (TAIL.compareAndSet(this, position, position + 1))
                {
                    break;
                }
            }
            else if (sequence < position)
            {
                overrun = true;
                return;
            }
            else
            {
                Thread.onSpinWait();
            }
        }

        entries.putLong(offset + WR_ID_OFFSET, wrId);
        entries.putInt(offset + STATUS_OFFSET, status.ordinal());
        entries.putInt(offset + OPCODE_OFFSET, opcode.ordinal());
        entries.putInt(offset + BYTE_LEN_OFFSET, byteLen);
        entries.putInt(offset + IMM_DATA_OFFSET, immData);
        entries.putInt(offset + QP_NUM_OFFSET, qpNum);
        entries.putInt(offset + SRC_QP_OFFSET, srcQp);
        entries.putInt(offset + WC_FLAGS_OFFSET, wcFlags);
        entries.putLongOrdered(offset + SEQUENCE_OFFSET, position + 1);
    }

    public int poll(final WorkCompletion[] completions)
    {
        return poll(completions, completions.length);
    }

    public int poll(final WorkCompletion[] completions, final int max)
    {
        if (closed)
        {
            throw new VerbsException("CQ " + id + " is closed");
        }
        final Progressor[] progressors = this.progressors;
        for (final Progressor progressor : progressors)
        {
            progressor.progress();
        }
        if (overrun)
        {
            throw new VerbsException("CQ " + id + " overran: more than " + capacity +
                " completions were pending (depth " + depth + ")");
        }

        final UnsafeBuffer entries = this.entries;
        final int limit = Math.min(max, completions.length);
        int count = 0;
        while (count < limit)
        {
            final int offset = (int)(head & mask) * ENTRY_LENGTH;
            if (entries.getLongVolatile(offset + SEQUENCE_OFFSET) != head + 1)
            {
                break;
            }
            completions[count++].set(
                entries.getLong(offset + WR_ID_OFFSET),
                WcStatus.fromCode(entries.getInt(offset + STATUS_OFFSET)),
                WcOpcode.fromOrdinal(entries.getInt(offset + OPCODE_OFFSET)),
                entries.getInt(offset + BYTE_LEN_OFFSET),
                entries.getInt(offset + IMM_DATA_OFFSET),
                entries.getInt(offset + QP_NUM_OFFSET),
                entries.getInt(offset + SRC_QP_OFFSET),
                entries.getInt(offset + WC_FLAGS_OFFSET));
            entries.putLongOrdered(offset + SEQUENCE_OFFSET, head + capacity);
            head++;
        }
        return count;
    }

    /**
     * Give a progressor a turn on each poll of this queue.
     */
    public synchronized void addProgressor(final Progressor progressor)
    {
        for (final Progressor existing : progressors)
        {
            if (existing == progressor)
            {
                return;
            }
        }
        final Progressor[] updated = Arrays.copyOf(progressors, progressors.length + 1);
        updated[progressors.length] = progressor;
        progressors = updated;
    }

    public synchronized void removeProgressor(final Progressor progressor)
    {
        final Progressor[] current = progressors;
        int index = -1;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i] == progressor)
            {
                index = i;
                break;
            }
        }
        if (index < 0)
        {
            return;
        }
        final Progressor[] updated = new Progressor[current.length - 1];
        System.arraycopy(current, 0, updated, 0, index);
        System.arraycopy(current, index + 1, updated, index, current.length - index - 1);
        progressors = updated;
    }

    public void close()
    {
        if (!closed)
        {
            closed = true;
            device.onClosed(this);
            arena.close();
        }
    }

    boolean isClosed()
    {
        return closed;
    }

    public String toString()
    {
        return "cq{id=" + id + ", depth=" + depth + '}';
    }
}
