package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEND, SEND_WITH_IMM and RDMA_WRITE_WITH_IMM over RC: messages land in posted receives in order,
 * immediate data and the sender's QP number reach the receiver's completion, a message waits for a
 * receive to be posted, and a receive too small fails on both sides.
 */
class TwoSidedMessagingTest extends TwoNodeTest
{
    private QueuePair[] connect(final String provider)
    {
        open(provider);
        return a.connectRc(b);
    }

    private static void postReceives(final QueuePair qp, final MemoryRegion region, final int count, final int size)
    {
        for (int i = 0; i < count; i++)
        {
            qp.postRecv(new RecvWorkRequest().wrId(1000 + i).local(region, (long)i * size, size));
        }
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void sendsLandInPostedReceivesInOrderWithImmediateData(final String provider)
    {
        final QueuePair[] qps = connect(provider);
        postReceives(qps[1], b.region, 10, 256);

        final SendWorkRequest wr = new SendWorkRequest();
        for (int i = 0; i < 10; i++)
        {
            a.region.segment().set(ValueLayout.JAVA_INT_UNALIGNED, i * 256L, i);
            wr.reset().wrId(i).opcode(i % 2 == 0 ? Opcode.SEND : Opcode.SEND_WITH_IMM).immData(0xABC0 + i)
                .sendFlags(SendFlags.SIGNALED).local(a.region, i * 256L, 4 + i);
            qps[0].postSend(wr);
        }
        final List<Completions.Wc> received = completions.await(b.cq, 10);
        for (int i = 0; i < 10; i++)
        {
            final Completions.Wc wc = received.get(i);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(1000 + i, wc.wrId(), "receives are consumed in posting order");
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertEquals(4 + i, wc.byteLen());
            assertEquals(qps[1].qpNum(), wc.qpNum());
            assertEquals(qps[0].qpNum(), wc.srcQp());
            assertEquals(i % 2 == 1, wc.hasImm());
            if (i % 2 == 1)
            {
                assertEquals(0xABC0 + i, wc.immData());
            }
            assertEquals(i, b.region.segment().get(ValueLayout.JAVA_INT_UNALIGNED, i * 256L));
        }
        final List<Completions.Wc> sent = completions.await(a.cq, 10);
        for (int i = 0; i < 10; i++)
        {
            assertEquals(i, sent.get(i).wrId());
            assertEquals(WcOpcode.SEND, sent.get(i).opcode());
            assertEquals(WcStatus.SUCCESS, sent.get(i).status());
        }
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aSendScattersOverSeveralReceiveBuffers(final String provider)
    {
        final QueuePair[] qps = connect(provider);
        final byte[] data = new byte[50_000];
        ThreadLocalRandom.current().nextBytes(data);
        a.region.segment().asSlice(0, data.length).copyFrom(MemorySegment.ofArray(data));
        final RecvWorkRequest recv = new RecvWorkRequest().wrId(1);
        recv.sgList().numSge(2).sge(0).set(b.region, 0, 10_000);
        recv.sgList().sge(1).set(b.region, 100_000, 60_000);
        qps[1].postRecv(recv);

        qps[0].postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, data.length));
        final Completions.Wc wc = completions.awaitOne(b.cq);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(data.length, wc.byteLen());
        final byte[] got = new byte[data.length];
        MemorySegment.copy(b.region.segment(), ValueLayout.JAVA_BYTE, 0, got, 0, 10_000);
        MemorySegment.copy(b.region.segment(), ValueLayout.JAVA_BYTE, 100_000, got, 10_000, 40_000);
        assertArrayEquals(data, got);
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void writeWithImmediatePlacesDataAndConsumesAReceive(final String provider)
    {
        final QueuePair[] qps = connect(provider);
        final RecvWorkRequest noBuffer = new RecvWorkRequest().wrId(77);
        noBuffer.sgList().numSge(0);
        qps[1].postRecv(noBuffer);
        a.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x5555_6666_7777_8888L);

        qps[0].postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_WRITE_WITH_IMM).immData(0x1234)
            .sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address() + 512, b.region.rkey()));
        final Completions.Wc received = completions.awaitOne(b.cq);
        assertEquals(77, received.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, received.opcode());
        assertTrue(received.hasImm());
        assertEquals(0x1234, received.immData());
        assertEquals(8, received.byteLen());
        assertEquals(0x5555_6666_7777_8888L, b.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 512));
        final Completions.Wc sent = completions.awaitOne(a.cq);
        assertEquals(WcOpcode.RDMA_WRITE, sent.opcode());
        assertEquals(WcStatus.SUCCESS, sent.status());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aSendWaitsUntilTheReceiverPostsAReceive(final String provider)
    {
        final QueuePair[] qps = connect(provider);
        a.region.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, 99);
        qps[0].postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 4));
        assertTrue(completions.drain(a.cq, Duration.ofMillis(300)).isEmpty(),
            "no completion before the receiver is ready");

        qps[1].postRecv(new RecvWorkRequest().wrId(9).local(b.region, 64, 4));
        assertEquals(9, completions.awaitOne(b.cq).wrId());
        assertEquals(99, b.region.segment().get(ValueLayout.JAVA_INT_UNALIGNED, 64));
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aReceiveTooSmallFailsTheReceiverWithLengthErrorAndTheSenderWithInvalidRequest(final String provider)
    {
        final QueuePair[] qps = connect(provider);
        qps[1].postRecv(new RecvWorkRequest().wrId(5).local(b.region, 0, 16));
        qps[0].postSend(new SendWorkRequest().wrId(6).opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 100));

        final Completions.Wc received = completions.awaitOne(b.cq);
        assertEquals(5, received.wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, received.status());
        final Completions.Wc sent = completions.awaitOne(a.cq);
        assertEquals(6, sent.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, sent.status());
        assertEquals(QpState.ERROR, qps[0].state());
        assertEquals(QpState.ERROR, qps[1].state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void sendsLargerThanTheMaximumAreRejectedAtPost(final String provider)
    {
        final QueuePair[] qps = connect(provider);
        final int max = a.device.attributes().maxSendSize();
        final VerbsException error = assertThrows(VerbsException.class, () -> qps[0].postSend(
            new SendWorkRequest().opcode(Opcode.SEND).local(a.region, 0, max + 1)));
        assertTrue(error.getMessage().contains(String.valueOf(max + 1)), error.getMessage());
        assertEquals(QpState.RTS, qps[0].state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aSharedReceiveQueueFeedsSeveralQueuePairs(final String provider)
    {
        open(provider);
        final SharedReceiveQueue srq = b.pd.createSrq(64, 1);
        final QpInitAttributes withSrq = new QpInitAttributes().type(QpType.RC).cq(b.cq).srq(srq);
        final QueuePair[] first = a.connectRc(b, new QpInitAttributes().type(QpType.RC).cq(a.cq), withSrq);
        final QueuePair[] second = a.connectRc(b, new QpInitAttributes().type(QpType.RC).cq(a.cq), withSrq);
        assertThrows(VerbsException.class, () -> first[1].postRecv(new RecvWorkRequest().local(b.region, 0, 8)));
        for (int i = 0; i < 4; i++)
        {
            srq.postRecv(new RecvWorkRequest().wrId(i).local(b.region, i * 64L, 64));
        }
        first[0].postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8));
        second[0].postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8));
        final List<Completions.Wc> received = completions.await(b.cq, 2);
        assertEquals(java.util.Set.of(first[1].qpNum(), second[1].qpNum()),
            java.util.Set.of(received.get(0).qpNum(), received.get(1).qpNum()));
        assertEquals(java.util.Set.of(0L, 1L), java.util.Set.of(received.get(0).wrId(), received.get(1).wrId()));
        assertEquals(2, completions.await(a.cq, 2).size());
        assertFalse(received.stream().anyMatch(wc -> wc.status() != WcStatus.SUCCESS));
    }
}
