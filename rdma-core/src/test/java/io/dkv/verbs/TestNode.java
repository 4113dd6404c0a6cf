package io.dkv.verbs;

import org.agrona.CloseHelper;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One device with a protection domain, a completion queue and a region peers may reach: the usual
 * starting point of a conformance test.
 */
final class TestNode implements AutoCloseable
{
    static final int REGION_LENGTH = 1 << 20;

    final Device device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final MemoryRegion region;
    private final List<AutoCloseable> owned = new ArrayList<>();

    private TestNode(final VerbsContext context)
    {
        device = Verbs.open(context);
        pd = device.allocPd();
        cq = device.createCq(4096);
        region = pd.allocate(REGION_LENGTH, Access.ALL);
    }

    /** Why the verbs provider cannot run here, once looked up; "" where it can. */
    private static String verbsUnavailable;

    /**
     * @return the providers every conformance test runs against: the software ones, and {@code verbs}, which runs
     * where an RNIC is usable and is skipped elsewhere with the reason ({@link #context}).
     */
    static Stream<String> providers()
    {
        return Stream.of("shm", "tcp", PortAddress.VERBS);
    }

    static TestNode open(final String provider)
    {
        return new TestNode(context(provider));
    }

    static TestNode open(final VerbsContext context)
    {
        return new TestNode(context);
    }

    static VerbsContext context(final String provider)
    {
        final VerbsContext context = new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0");
        if (PortAddress.VERBS.equals(provider))
        {
            assumeTrue(verbsUnavailable().isEmpty(), () -> "no RNIC for the verbs provider: " + verbsUnavailable);
        }
        return context;
    }

    private static synchronized String verbsUnavailable()
    {
        if (verbsUnavailable == null)
        {
            final String reason = Verbs.provider(PortAddress.VERBS).unavailableReason(new VerbsContext());
            verbsUnavailable = reason == null ? "" : reason;
            if (reason != null)
            {
                System.out.println("conformance tests skip the verbs provider: " + reason);
            }
        }
        return verbsUnavailable;
    }

    QueuePair qp(final QpType type)
    {
        return qp(new QpInitAttributes().type(type).cq(cq));
    }

    QueuePair qp(final QpInitAttributes attributes)
    {
        final QueuePair qp = pd.createQp(attributes);
        owned.add(qp);
        return qp;
    }

    /**
     * Create an RC QP here and one on {@code peer}, connected to each other and in RTS.
     *
     * @return [this side, peer side].
     */
    QueuePair[] connectRc(final TestNode peer)
    {
        return connectRc(peer, new QpInitAttributes().type(QpType.RC).cq(cq),
            new QpInitAttributes().type(QpType.RC).cq(peer.cq));
    }

    QueuePair[] connectRc(final TestNode peer, final QpInitAttributes local, final QpInitAttributes remote)
    {
        final QueuePair a = qp(local);
        final QueuePair b = peer.qp(remote);
        bringUp(a, peer.device.address(), b.qpNum());
        peer.bringUp(b, device.address(), a.qpNum());
        return new QueuePair[]{a, b};
    }

    /**
     * Create an RC QP here, in RTS towards a new one on {@code peer} that stays in RESET: the caller
     * brings it up as far as the test needs, or not at all.
     *
     * @return [this side, peer side].
     */
    QueuePair[] connectRcToPeerInReset(final TestNode peer)
    {
        final QueuePair qp = qp(QpType.RC);
        final QueuePair peerQp = peer.qp(QpType.RC);
        bringUp(qp, peer.device.address(), peerQp.qpNum());
        return new QueuePair[]{qp, peerQp};
    }

    /** @return a DC target with that key, completing into this node's CQ, with a small SRQ of its own. */
    DcTarget dct(final long dcKey)
    {
        final SharedReceiveQueue srq = pd.createSrq(4, 1);
        return pd.createDct(new DctInitAttributes().cq(cq).srq(srq).dcKey(dcKey));
    }

    /** @return a DC initiator completing into this node's CQ, in RTS. */
    QueuePair dci()
    {
        final QueuePair qp = qp(new QpInitAttributes().type(QpType.DCI).sendCq(cq));
        qp.modify(QpAttributes.init(0));
        qp.modify(QpAttributes.rtr());
        qp.modify(QpAttributes.rts());
        return qp;
    }

    void bringUp(final QueuePair qp, final PortAddress peer, final int peerQpn)
    {
        qp.modify(QpAttributes.init(Access.ALL));
        qp.modify(QpAttributes.rtr(peer, peerQpn));
        qp.modify(QpAttributes.rts());
    }

    public void close()
    {
        for (final AutoCloseable closeable : owned)
        {
            CloseHelper.quietClose(closeable);
        }
        device.close();
    }
}
