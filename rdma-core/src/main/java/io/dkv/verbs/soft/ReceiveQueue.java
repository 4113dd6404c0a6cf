package io.dkv.verbs.soft;

import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.VerbsException;
import org.agrona.BitUtil;

/**
 * A queue of posted receive requests: a QP's own receive queue or a shared receive queue. Posting
 * threads and consumers (a poller, a NIC engine) meet under the queue's monitor.
 */
public final class ReceiveQueue
{
    private final String owner;
    private final int maxWr;
    private final int maxSge;
    private final int mask;
    private final ReceiveSlot[] slots;
    private long head;
    private long tail;

    ReceiveQueue(final String owner, final int maxWr, final int maxSge)
    {
        this.owner = owner;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        final int capacity = BitUtil.findNextPositivePowerOfTwo(Math.max(1, maxWr));
        this.mask = capacity - 1;
        this.slots = new ReceiveSlot[capacity];
        for (int i = 0; i < capacity; i++)
        {
            slots[i] = new ReceiveSlot(maxSge);
        }
    }

    /**
     * Queue every request of a chain.
     *
     * @throws VerbsException when a request has too many SGEs or the queue is full; requests before
     *                        it stay queued.
     */
    synchronized void post(final RecvWorkRequest first)
    {
        for (RecvWorkRequest wr = first; wr != null; wr = wr.next())
        {
            final int numSge = wr.sgList().numSge();
            if (numSge > maxSge)
            {
                throw new VerbsException("receive request wrId=" + wr.wrId() + " has " + numSge + " SGEs; " + owner +
                    " allows " + maxSge);
            }
            if (tail - head >= maxWr)
            {
                throw new VerbsException("receive queue of " + owner + " is full: " + maxWr + " requests posted");
            }
            final ReceiveSlot slot = slots[(int)tail & mask];
            slot.wrId = wr.wrId();
            slot.sgList.copyFrom(wr.sgList());
            tail++;
        }
    }

    /**
     * Take the oldest request.
     *
     * @param into receives a copy of it.
     * @return false when none is posted.
     */
    public synchronized boolean take(final ReceiveSlot into)
    {
        if (head == tail)
        {
            return false;
        }
        into.copyFrom(slots[(int)head & mask]);
        head++;
        return true;
    }

    public synchronized boolean isEmpty()
    {
        return head == tail;
    }

    synchronized int size()
    {
        return (int)(tail - head);
    }

    synchronized void clear()
    {
        head = tail;
    }

    public int maxSge()
    {
        return maxSge;
    }

    String owner()
    {
        return owner;
    }
}
