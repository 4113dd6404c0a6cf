package io.dkv.raas.driver;

import io.dkv.raas.ControlHeader;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasContext;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;

import org.agrona.concurrent.status.AtomicCounter;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The physical queue pairs every logical connection shares: DC initiators (each node's requests go
 * through one of them, always the same, which keeps them in order), the datagram queue pair for
 * messages sent with FORCE_UD, and the RC queue pairs to hot peers while they last. Broken queue
 * pairs are brought back here, and ones that stalled are forced to fail.
 */
final class QpPool
{
    private static final System.Logger LOG = System.getLogger(QpPool.class.getName());

    private final PooledQp[] dcis;
    /** The driver's datagram queue pair, for messages sent with FORCE_UD. */
    private final PooledQp ud;
    /** Every queue pair requests go through: added to by promotion, removed from only by the submitter. */
    private final List<PooledQp> pooled = new CopyOnWriteArrayList<>();
    private final long stallMillis;
    /** Written by housekeeping alone. */
    private final AtomicCounter stalls;
    private final AtomicCounter recycles;
    /** The datagram queue pair's receive buffers, posted again once it is recycled. */
    private ReceiveBuffers datagramBuffers;

    QpPool(
        final RaasContext context,
        final ProtectionDomain pd,
        final CompletionQueue sendCq,
        final CompletionQueue recvCq,
        final boolean rcOnly,
        final DriverCounters counters)
    {
        stalls = counters.get(DriverCounter.QP_STALLS);
        recycles = counters.get(DriverCounter.QP_RECYCLES);
        final int depth = context.qpDepth();
        stallMillis = context.qpStallMs();
        dcis = new PooledQp[rcOnly ? 0 : context.dciCount()];
        for (int i = 0; i < dcis.length; i++)
        {
            final QueuePair qp = pd.createQp(new QpInitAttributes().type(QpType.DCI).sendCq(sendCq)
                .maxSendWr(depth).maxSendSge(1).maxInlineData(64));
            bringUp(qp);
            dcis[i] = new PooledQp(qp, depth, depth, stallMillis);
            pooled.add(dcis[i]);
        }
        // its own receive queue: a datagram lands behind its global route header, which the SRQ's buffers leave out
        final QueuePair udQp = pd.createQp(new QpInitAttributes().type(QpType.UD).sendCq(sendCq).recvCq(recvCq)
            .maxRecvWr(ReceiveBuffers.datagramBuffers()).maxRecvSge(1)
            .maxSendWr(depth).maxSendSge(1).maxInlineData(64));
        bringUpUd(udQp);
        ud = new PooledQp(udQp, depth, depth, stallMillis);
        pooled.add(ud);
    }

    /** Take a DC initiator from RESET to RTS. */
    static void bringUp(final QueuePair qp)
    {
        qp.modify(QpAttributes.init(0));
        qp.modify(QpAttributes.rtr());
        qp.modify(QpAttributes.rts());
    }

    private static void bringUpUd(final QueuePair qp)
    {
        qp.modify(QpAttributes.init(0).qkey(ControlHeader.UD_QKEY));
        qp.modify(QpAttributes.rtr());
        qp.modify(QpAttributes.rts());
    }

    /** @return the DC initiator a node's requests go through; null for a node without DC, or with none here. */
    PooledQp dciFor(final NodeRecord node)
    {
        if (dcis.length == 0 || node.dcKey() == NodeRecord.RC_ONLY_DC_KEY)
        {
            return null;
        }
        return dcis[(Long.hashCode(node.id()) & 0x7fffffff) % dcis.length];
    }

    /**
     * @return the DC initiator bulk applications' requests to a node go through: another than {@link #dciFor}'s
     * where there are two or more, so that a latency application's request never queues behind bulk ones on the
     * initiator (it completes in order); null as {@link #dciFor}.
     */
    PooledQp bulkDciFor(final NodeRecord node)
    {
        if (dcis.length == 0 || node.dcKey() == NodeRecord.RC_ONLY_DC_KEY)
        {
            return null;
        }
        return dcis[((Long.hashCode(node.id()) & 0x7fffffff) + 1) % dcis.length];
    }

    PooledQp ud()
    {
        return ud;
    }

    /** Wire the receive buffers of the datagram queue pair, made after the pool. */
    void datagramBuffers(final ReceiveBuffers buffers)
    {
        this.datagramBuffers = buffers;
    }

    /** @return the UD queue pair's number, which CONNECT and ACCEPT tell peers. */
    int udQpn()
    {
        return ud.qp.qpNum();
    }

    int size()
    {
        return pooled.size();
    }

    PooledQp get(final int index)
    {
        return pooled.get(index);
    }

    /** An RC queue pair to a hot peer joins the pool. */
    void add(final PooledQp rc)
    {
        pooled.add(rc);
    }

    void remove(final PooledQp rc)
    {
        pooled.remove(rc);
    }

    /**
     * A shared queue pair broke (a request failed on it): bring it back. Its other requests were
     * flushed and go again, but for atomics behind a transport failure. Called by the submitter once
     * nothing is outstanding on it.
     *
     * @return false for an RC queue pair, which is not brought back: its peer's end is gone with it.
     */
    boolean recycle(final PooledQp qp)
    {
        // the shared counter first: a reader of both sees this recycle counted once it sees it at all
        recycles.increment();
        qp.recycles++;
        if (qp.type == QpType.RC)
        {
            return false;
        }
        try
        {
            qp.qp.modify(QpAttributes.reset());
            if (qp.type == QpType.UD)
            {
                bringUpUd(qp.qp);
                if (datagramBuffers != null)
                {
                    // its receive queue, unlike the SRQ, was flushed when it broke
                    datagramBuffers.repostParked();
                }
            }
            else
            {
                bringUp(qp.qp);
            }
            qp.outcomeUnknown = false;
            qp.broken = false;
        }
        catch (final RuntimeException ex)
        {
            // stays broken; the next turn tries again
        }
        return true;
    }

    /**
     * A shared queue pair completes in order: a request that never completes (a message to a peer
     * that takes none, retried without end) holds back every request behind it, whoever made them.
     * Force such a queue pair to ERROR: the stalled request fails UNREACHABLE, the others are
     * flushed and go again on the recycled queue pair.
     *
     * @return queue pairs forced to ERROR.
     */
    int recycleStalled(final long nowMillis)
    {
        int recycled = 0;
        for (int i = 0, n = pooled.size(); i < n; i++)
        {
            final PooledQp qp = pooled.get(i);
            if (qp.broken || qp.stalled)
            {
                // being recycled: its flushes complete, and the watch starts again once it is back in use
                qp.stall.restart();
                continue;
            }
            if (qp.stall.check(nowMillis, qp.outstanding(), qp.completedCount()))
            {
                qp.stalled = true;
                // counted before the queue pair is errored: its flushes, and the recycle they bring, may complete
                // on another thread at once, and a reader must never see the recycle without the stall behind it
                stalls.incrementRelease();
                try
                {
                    qp.qp.modify(QpAttributes.error());
                }
                catch (final RuntimeException ex)
                {
                    qp.stalled = false;
                    stalls.decrementRelease();
                    continue;
                }
                recycled++;
                LOG.log(System.Logger.Level.WARNING, qp + " made no progress for " + qp.stall.quietMillis(nowMillis) +
                    " ms over " + qp.stall.quietChecks() + " checks: recycled, its oldest request fails UNREACHABLE");
            }
        }
        return recycled;
    }

    /** @return how often queue pairs in the pool now were recycled after errors. */
    int recycles()
    {
        int total = 0;
        for (int i = 0; i < pooled.size(); i++)
        {
            total += pooled.get(i).recycles;
        }
        return total;
    }

    /** Each queue pair and what waits on it, for {@link RaasDriver#describeState}. */
    void describe(final StringBuilder text)
    {
        for (final PooledQp qp : pooled)
        {
            text.append("; ").append(qp).append(" deferred ").append(qp.deferred.size());
        }
    }
}
