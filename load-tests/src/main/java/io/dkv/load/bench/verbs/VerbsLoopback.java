package io.dkv.load.bench.verbs;

import io.dkv.load.bench.Provider;
import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.WorkCompletion;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * Two devices of one provider in this process, an initiator and a target, joined by an RC queue
 * pair: the target exposes a large region, the initiator owns the local buffers and the CQ. A tcp
 * device listens on 127.0.0.1 only.
 */
final class VerbsLoopback implements ProbeFactory
{
    static final String LOOPBACK_ADDRESS = "127.0.0.1:0";
    /** Local slots are a cache line apart at least, so that requests in flight never share one. */
    static final int SLOT_ALIGNMENT = 64;
    private static final int PREFAULT_CHUNK = 1 << 20;

    private final Provider provider;
    private final int window;
    private final IdleStrategy idleStrategy;
    private final int slotStride;
    private final Device initiator;
    private final Device target;
    private final CompletionQueue cq;
    private final MemoryRegion local;
    private final MemoryRegion remote;
    private final QueuePair qp;

    /**
     * @param provider     whose devices to open.
     * @param regionLength bytes of the target's region.
     * @param window       requests in flight during throughput runs.
     * @param maxSize      the largest request size probes will use.
     * @param pollIdle     what probes do between empty polls of the CQ.
     */
    VerbsLoopback(final Provider provider, final long regionLength, final int window, final int maxSize,
        final PollIdle pollIdle)
    {
        this.provider = provider;
        this.window = window;
        this.idleStrategy = pollIdle.newStrategy();
        this.slotStride = (maxSize + SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;
        final long localLength = Math.max((long)slotStride * window, Math.min(PREFAULT_CHUNK, regionLength));
        initiator = open(provider);
        Device openedTarget = null;
        try
        {
            openedTarget = open(provider);
            target = openedTarget;
            final ProtectionDomain initiatorPd = initiator.allocPd();
            final ProtectionDomain targetPd = target.allocPd();
            cq = initiator.createCq(2 * window);
            final CompletionQueue targetCq = target.createCq(2 * window);
            local = initiatorPd.allocate(localLength, Access.LOCAL_WRITE);
            remote = targetPd.allocate(regionLength, Access.ALL);
            qp = initiatorPd.createQp(new QpInitAttributes().type(QpType.RC).cq(cq).maxSendWr(window));
            final QueuePair targetQp = targetPd.createQp(new QpInitAttributes().type(QpType.RC).cq(targetCq));
            bringUp(qp, target, targetQp);
            bringUp(targetQp, initiator, qp);
            prefault();
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

    private static Device open(final Provider provider)
    {
        return Verbs.open(new VerbsContext().provider(provider.verbsName()).tcpAddress(LOOPBACK_ADDRESS));
    }

    private static void bringUp(final QueuePair qp, final Device peer, final QueuePair peerQp)
    {
        qp.modify(QpAttributes.init(Access.ALL));
        qp.modify(QpAttributes.rtr(peer.address(), peerQp.qpNum()));
        qp.modify(QpAttributes.rts());
    }

    /**
     * Write the whole remote region once, so that no timed access pays for mapping a page in.
     */
    private void prefault()
    {
        final SendWorkRequest request = new SendWorkRequest(1).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED);
        final WorkCompletion[] completion = {new WorkCompletion()};
        final long length = remote.length();
        for (long offset = 0; offset < length; offset += PREFAULT_CHUNK)
        {
            final int chunk = (int)Math.min(PREFAULT_CHUNK, length - offset);
            request.wrId(offset).local(local, 0, chunk).remote(remote.address() + offset, remote.rkey());
            qp.postSend(request);
            final long start = System.nanoTime();
            while (cq.poll(completion) == 0)
            {
                if (System.nanoTime() - start > VerbsProbe.COMPLETION_TIMEOUT_NANOS)
                {
                    throw new IllegalStateException(provider + ": prefault WRITE of " + chunk +
                        " bytes at remote offset " + offset + " did not complete within " +
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
                }
                idleStrategy.idle();
            }
            if (!completion[0].isSuccess())
            {
                throw new IllegalStateException(
                    provider + ": prefault WRITE at remote offset " + offset + " failed: " + completion[0]);
            }
        }
    }

    public Probe probe(final Operation operation, final int size, final long[] offsets)
    {
        final String subject = provider + " " + operation + " of " + size + " B";
        return new VerbsProbe(subject, qp, cq, idleStrategy, local, slotStride, remote, operation, size, window,
            offsets);
    }

    public String describe(final Operation operation, final int size)
    {
        return provider + " RC " + operation.opcode();
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
