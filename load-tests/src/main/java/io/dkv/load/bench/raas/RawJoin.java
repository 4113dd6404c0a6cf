package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.Access;
import io.dkv.verbs.AddressHandle;
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

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * Raw verbs reaching a node for the first time, from a device of this process of the same
 * provider. {@link #joinRc}: the plain way, an RC queue pair created on this device and one on the
 * node's, each connected to the other (INIT, RTR with the other's number, RTS), then the first
 * READ; the exchange of queue pair numbers is a method call here, between hosts it is a network
 * round trip more. {@link #joinDc}: the floor under any join, the first READ from a ready DC
 * initiator to the node's DC target, its number and key given (no metadata read, no connection):
 * what the provider itself costs to meet a device it never met. Use one instance per way, so that
 * neither meets the node first for the other.
 */
final class RawJoin implements AutoCloseable
{
    private final Device device;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion local;
    private final QueuePair dci;
    private final SendWorkRequest read = new SendWorkRequest(1);
    private final WorkCompletion[] completion = {new WorkCompletion()};
    private final IdleStrategy idleStrategy = Waiting.newIdleStrategy();

    RawJoin(final Provider provider)
    {
        device = Verbs.open(new VerbsContext().provider(provider.verbsName()).tcpAddress(RaasNodes.LOOPBACK_ADDRESS));
        try
        {
            pd = device.allocPd();
            cq = device.createCq(4);
            local = pd.allocate(Long.BYTES, Access.LOCAL_WRITE);
            dci = pd.createQp(new QpInitAttributes().type(QpType.DCI).sendCq(cq).maxSendWr(1).maxSendSge(1)
                .maxInlineData(0));
            dci.modify(QpAttributes.init(0));
            dci.modify(QpAttributes.rtr());
            dci.modify(QpAttributes.rts());
        }
        catch (final RuntimeException ex)
        {
            device.close();
            throw ex;
        }
    }

    /**
     * Reach the node for the first time and READ 8 bytes of the region.
     *
     * @param node     the node, whose protection domain holds the region.
     * @param region   a region of the node.
     * @param targetCq a CQ of the node's device for its end, made beforehand.
     * @return the nanoseconds from creating the first queue pair to the READ's completion; the
     * queue pairs are destroyed after.
     */
    long joinRc(final RaasDriver node, final RemoteRegion region, final CompletionQueue targetCq)
    {
        final ProtectionDomain targetPd = node.protectionDomain();
        final long start = System.nanoTime();
        final QueuePair qp = pd.createQp(RawVerbsPair.lean(cq, 1));
        QueuePair peer = null;
        try
        {
            peer = targetPd.createQp(RawVerbsPair.lean(targetCq, 1));
            RawVerbsPair.connect(qp, targetPd.device().address(), peer.qpNum());
            RawVerbsPair.connect(peer, device.address(), qp.qpNum());
            read.wrId(1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).local(local, 0, Long.BYTES)
                .remote(region.address(), region.rkey());
            qp.postSend(read);
            await(qp, start);
            return System.nanoTime() - start;
        }
        finally
        {
            qp.close();
            if (peer != null)
            {
                peer.close();
            }
        }
    }

    /**
     * READ 8 bytes of the region over this device's DC initiator, with a new address handle.
     *
     * @return the nanoseconds from creating the address handle to the READ's completion.
     */
    long joinDc(final RaasDriver node, final RemoteRegion region)
    {
        final NodeRecord record = node.self();
        final long start = System.nanoTime();
        final AddressHandle ah = pd.createAh(record.address());
        try
        {
            read.wrId(1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).local(local, 0, Long.BYTES)
                .remote(region.address(), region.rkey()).dc(ah, record.dctNumber(), record.dcKey());
            dci.postSend(read);
            await(dci, start);
            return System.nanoTime() - start;
        }
        finally
        {
            ah.close();
        }
    }

    /** @return the 8 bytes the last READ brought. */
    long lastValue()
    {
        return local.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    private void await(final QueuePair qp, final long start)
    {
        idleStrategy.reset();
        while (cq.poll(completion, 1) == 0)
        {
            if (System.nanoTime() - start > Waiting.TIMEOUT_NANOS)
            {
                throw new IllegalStateException("first READ on " + qp + " did not complete within " +
                    TimeUnit.NANOSECONDS.toMillis(Waiting.TIMEOUT_NANOS) + " ms");
            }
            idleStrategy.idle();
        }
        if (!completion[0].isSuccess())
        {
            throw new IllegalStateException("first READ on " + qp + " failed: " + completion[0]);
        }
    }

    public void close()
    {
        device.close();
    }
}
