package io.dkv.verbs;

import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A node that stops frees its address, and a new node may listen there next. Requests to the new
 * node reach it, though the initiator still holds a connection to the old one that nobody has read
 * since its peer closed it.
 */
class TcpAddressReuseTest extends MultiNodeTest
{
    private TestNode node(final String tcpAddress)
    {
        return node(TestNode.context("tcp").tcpAddress(tcpAddress));
    }

    @Test
    void aNewNodeAtAStoppedNodesAddressIsReachedOverANewConnection()
    {
        final TestNode initiator = node("127.0.0.1:0");
        final QueuePair dci = initiator.dci();
        final Completions completions = new Completions(initiator.cq);

        final TestNode first = node("127.0.0.1:0");
        final int port = first.device.address().tcpSocketAddress().getPort();
        readOnce(initiator, dci, completions, first, 11);
        close(first);
        // longer than a link may go unread before a request reads it
        LockSupport.parkNanos(20_000_000L);

        final TestNode second = node("127.0.0.1:" + port);
        assertEquals(first.device.address(), second.device.address());
        readOnce(initiator, dci, completions, second, 22);
        assertEquals(QpState.RTS, dci.state());
    }

    private static void readOnce(
        final TestNode initiator, final QueuePair dci, final Completions completions, final TestNode target,
        final long value)
    {
        final DcTarget dct = target.dct(value);
        target.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        final AddressHandle ah = initiator.pd.createAh(target.device.address());
        dci.postSend(new SendWorkRequest().wrId(value).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(initiator.region, 0, 8).remote(target.region.address(), target.region.rkey())
            .dc(ah, dct.dctNumber(), dct.dcKey()));
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(initiator.cq).status());
        assertEquals(value, initiator.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }
}
