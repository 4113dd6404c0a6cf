package io.dkv.verbs.soft;

import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.SharedReceiveQueue;
import io.dkv.verbs.VerbsException;

/**
 * A shared receive queue of a software device.
 */
public final class SoftSharedReceiveQueue implements SharedReceiveQueue
{
    private final SoftProtectionDomain pd;
    private final int id;
    private final ReceiveQueue queue;
    private volatile boolean closed;

    SoftSharedReceiveQueue(final SoftProtectionDomain pd, final int id, final int maxWr, final int maxSge)
    {
        this.pd = pd;
        this.id = id;
        this.queue = new ReceiveQueue("SRQ " + id, maxWr, maxSge);
    }

    public void postRecv(final RecvWorkRequest wr)
    {
        if (closed)
        {
            throw new VerbsException("SRQ " + id + " is closed");
        }
        queue.post(wr);
    }

    public ReceiveQueue queue()
    {
        return queue;
    }

    public SoftProtectionDomain pd()
    {
        return pd;
    }

    public void close()
    {
        closed = true;
        queue.clear();
    }

    public String toString()
    {
        return "srq{id=" + id + ", posted=" + queue.size() + '}';
    }
}
