package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UD: datagrams of at most one MTU to any UD QP that holds the right queue key, landing behind a
 * 40-byte global route header as on an RNIC; larger ones are rejected, wrong keys are dropped
 * silently, and one-sided opcodes are refused.
 */
class UnreliableDatagramTest extends TwoNodeTest
{
    private static final int QKEY = 0x1111_2222;

    private QueuePair sender;
    private QueuePair receiver;
    /** Of b's port, on a. */
    private AddressHandle ah;

    /** Open both nodes with a UD QP in RTS on each: a sends, b receives. */
    private void openUd(final String provider)
    {
        open(provider);
        sender = udQp(a);
        receiver = udQp(b);
        ah = a.pd.createAh(b.device.address());
    }

    private QueuePair udQp(final TestNode node)
    {
        final QueuePair qp = node.qp(QpType.UD);
        qp.modify(QpAttributes.init(0).qkey(QKEY));
        qp.modify(QpAttributes.rtr());
        qp.modify(QpAttributes.rts());
        return qp;
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void datagramsReachAnyUdQpHoldingTheQueueKey(final String provider)
    {
        openUd(provider);
        final int mtu = a.device.attributes().mtu();
        final int room = WorkCompletion.GRH_LENGTH + mtu;
        receiver.postRecv(new RecvWorkRequest().wrId(1).local(b.region, 0, room));
        receiver.postRecv(new RecvWorkRequest().wrId(2).local(b.region, room, room));
        a.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 4242);

        sender.postSend(new SendWorkRequest().wrId(10).opcode(Opcode.SEND_WITH_IMM).immData(5)
            .sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, mtu).ud(ah, receiver.qpNum(), QKEY));
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());
        final Completions.Wc wc = completions.awaitOne(b.cq);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(1, wc.wrId());
        assertEquals(WorkCompletion.GRH_LENGTH + mtu, wc.byteLen(), "the message behind its global route header");
        assertEquals(sender.qpNum(), wc.srcQp());
        assertTrue(wc.hasImm());
        assertTrue(wc.hasGrh());
        assertEquals(4242, b.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, WorkCompletion.GRH_LENGTH));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aReceiveWithoutRoomForTheHeaderFailsWithALengthError(final String provider)
    {
        openUd(provider);
        receiver.postRecv(new RecvWorkRequest().wrId(1).local(b.region, 0, 64));

        sender.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 64).ud(ah, receiver.qpNum(), QKEY));

        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status(), "UD completes locally");
        assertEquals(WcStatus.LOC_LEN_ERR, completions.awaitOne(b.cq).status(),
            "64 bytes of message and 40 of header do not fit 64");
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aDatagramLargerThanTheMtuIsRejected(final String provider)
    {
        openUd(provider);
        final int mtu = a.device.attributes().mtu();
        final VerbsException error = assertThrows(VerbsException.class, () -> sender.postSend(
            new SendWorkRequest().opcode(Opcode.SEND).local(a.region, 0, mtu + 1).ud(ah, receiver.qpNum(), QKEY)));
        assertTrue(error.getMessage().contains("MTU"), error.getMessage());
        assertEquals(QpState.RTS, sender.state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aWrongQueueKeyIsDroppedAndOneSidedOpcodesAreRefused(final String provider)
    {
        openUd(provider);
        receiver.postRecv(new RecvWorkRequest().wrId(1).local(b.region, 0, 64));
        sender.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).ud(ah, receiver.qpNum(), QKEY + 1));
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status(), "UD completes locally");
        assertTrue(completions.drain(b.cq, Duration.ofMillis(200)).isEmpty(), "the datagram was dropped");

        assertThrows(VerbsException.class, () -> sender.postSend(new SendWorkRequest().opcode(Opcode.RDMA_WRITE)
            .local(a.region, 0, 8).ud(ah, receiver.qpNum(), QKEY)));
        assertThrows(VerbsException.class, () -> sender.postSend(new SendWorkRequest().opcode(Opcode.SEND)
            .local(a.region, 0, 8)), "a UD request needs an address handle");
    }
}
