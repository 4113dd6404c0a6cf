package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;

/**
 * The raw verbs baseline: two devices of one provider in this process, an initiator with a CQ and
 * local buffers, a target with a large region, and as many RC queue pairs as asked, each connected
 * to its own queue pair on the target, as an application without RaaS would hold them.
 */
final class RawVerbsPair implements AutoCloseable
{
    /** Queue pairs and DC targets the devices use themselves, beyond those the benchmark creates. */
    static final int SPARE_QPS = 8;

    private final Provider provider;
    private final Device initiator;
    private final Device target;
    private final ProtectionDomain initiatorPd;
    private final ProtectionDomain targetPd;
    private final CompletionQueue cq;
    private final CompletionQueue targetCq;
    private final MemoryRegion local;
    private final MemoryRegion remote;

    /**
     * @param provider     whose devices to open.
     * @param maxQps       queue pairs each device must be able to hold.
     * @param regionLength bytes of the target's region.
     * @param localLength  bytes of the initiator's local buffers.
     * @param cqDepth      completions the initiator's CQ holds.
     */
    RawVerbsPair(final Provider provider, final int maxQps, final long regionLength, final long localLength,
        final int cqDepth)
    {
        this.provider = provider;
        initiator = open(provider, maxQps + SPARE_QPS);
        Device openedTarget = null;
        try
        {
            openedTarget = open(provider, maxQps + SPARE_QPS);
            target = openedTarget;
            initiatorPd = initiator.allocPd();
            targetPd = target.allocPd();
            cq = initiator.createCq(cqDepth);
            targetCq = target.createCq(cqDepth);
            local = initiatorPd.allocate(localLength, Access.LOCAL_WRITE);
            remote = targetPd.allocate(regionLength, Access.ALL);
            // map every page in now, so that no timed access pays for it
            remote.segment().fill((byte)0);
            local.segment().fill((byte)0);
        }
        catch (final RuntimeException ex)
        {
            if (openedTarget != null)
            {
                openedTarget.close();
            }
            initiator.close();
            throw ex;
        }
    }

    private static Device open(final Provider provider, final int maxQp)
    {
        return Verbs.open(new VerbsContext().provider(provider.verbsName()).tcpAddress(RaasNodes.LOOPBACK_ADDRESS)
            .maxQp(maxQp));
    }

    /**
     * Create and connect one RC queue pair on the initiator for each slot of {@code initiatorQps},
     * each to a queue pair of its own on the target, which goes to the same slot of {@code targetQps}.
     * The arrays come from the caller so that their memory is not counted as the queue pairs'.
     *
     * @param maxSendWr requests each initiator queue pair may have outstanding.
     */
    void connect(final QueuePair[] initiatorQps, final QueuePair[] targetQps, final int maxSendWr)
    {
        if (initiatorQps.length != targetQps.length)
        {
            throw new IllegalArgumentException(initiatorQps.length + " initiator queue pairs for " + targetQps.length +
                " target ones");
        }
        for (int i = 0; i < initiatorQps.length; i++)
        {
            final QueuePair qp = initiatorPd.createQp(lean(cq, maxSendWr));
            initiatorQps[i] = qp;
            final QueuePair peer = targetPd.createQp(lean(targetCq, 1));
            targetQps[i] = peer;
            bringUp(qp, target, peer);
            bringUp(peer, initiator, qp);
        }
    }

    /**
     * The smallest queue pair that does the job, so that the baseline's memory is not inflated by
     * defaults it does not need: one SGE, no inline data, one receive.
     */
    static QpInitAttributes lean(final CompletionQueue cq, final int maxSendWr)
    {
        return new QpInitAttributes()
            .type(QpType.RC)
            .cq(cq)
            .maxSendWr(maxSendWr)
            .maxRecvWr(1)
            .maxSendSge(1)
            .maxRecvSge(1)
            .maxInlineData(0);
    }

    static String describeQueuePair()
    {
        return "RC queue pairs with 1 SGE, no inline data and 1 receive WR";
    }

    private static void bringUp(final QueuePair qp, final Device peer, final QueuePair peerQp)
    {
        connect(qp, peer.address(), peerQp.qpNum());
    }

    /** Take an RC queue pair from RESET to RTS, connected to the peer's queue pair. */
    static void connect(final QueuePair qp, final PortAddress peer, final int peerQpNum)
    {
        qp.modify(QpAttributes.init(Access.ALL));
        qp.modify(QpAttributes.rtr(peer, peerQpNum));
        qp.modify(QpAttributes.rts());
    }

    Provider provider()
    {
        return provider;
    }

    CompletionQueue cq()
    {
        return cq;
    }

    MemoryRegion local()
    {
        return local;
    }

    MemoryRegion remote()
    {
        return remote;
    }

    /**
     * Close both devices, and with them every queue pair, region and CQ made from them.
     */
    public void close()
    {
        try
        {
            initiator.close();
        }
        finally
        {
            target.close();
        }
    }
}
