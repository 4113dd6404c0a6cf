package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The QP state machine RESET → INIT → RTR → RTS and ERROR: legal transitions only, posting only in
 * the states that allow it, and ERROR flushing every outstanding request with WR_FLUSH_ERR.
 */
class QueuePairStateMachineTest extends TwoNodeTest
{
    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void onlyTheVerbsTransitionsAreAllowed(final String provider)
    {
        open(provider);
        final QueuePair qp = a.qp(QpType.RC);
        final QueuePair peer = b.qp(QpType.RC);
        assertEquals(QpState.RESET, qp.state());
        assertThrows(VerbsException.class, () -> qp.modify(QpAttributes.rts()));
        assertThrows(VerbsException.class, () -> qp.modify(QpAttributes.rtr(b.device.address(), peer.qpNum())));
        qp.modify(QpAttributes.init(Access.REMOTE_READ));
        assertEquals(QpState.INIT, qp.state());
        assertThrows(VerbsException.class, () -> qp.modify(QpAttributes.rts()));
        final VerbsException missingPeer = assertThrows(VerbsException.class, () -> qp.modify(QpAttributes.rtr()));
        assertTrue(missingPeer.getMessage().contains("destAddress"), missingPeer.getMessage());
        qp.modify(QpAttributes.rtr(b.device.address(), peer.qpNum()));
        assertEquals(QpState.RTR, qp.state());
        qp.modify(QpAttributes.rts());
        assertEquals(QpState.RTS, qp.state());
        assertThrows(VerbsException.class, () -> qp.modify(QpAttributes.init(0)));
        qp.modify(QpAttributes.error());
        assertEquals(QpState.ERROR, qp.state());
        qp.modify(QpAttributes.reset());
        assertEquals(QpState.RESET, qp.state());
        qp.modify(QpAttributes.init(0));
        assertEquals(QpState.INIT, qp.state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aRequestToAResponderStillBeingSetUpIsRetriedUntilItIsReady(final String provider) throws InterruptedException
    {
        open(provider);
        final QueuePair[] qps = a.connectRcToPeerInReset(b);
        final QueuePair qp = qps[0];
        final QueuePair peer = qps[1];
        peer.modify(QpAttributes.init(Access.ALL));
        qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey()));
        assertTrue(completions.drain(a.cq, Duration.ofMillis(100)).isEmpty(), "waits while the responder is in INIT");

        peer.modify(QpAttributes.rtr(a.device.address(), qp.qpNum()));
        final Completions.Wc wc = completions.awaitOne(a.cq);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(QpState.RTS, qp.state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aResponderThatNeverBecomesReadyFailsTheRequestAfterTheRetryTimeout(final String provider)
    {
        open(TestNode.context(provider).retryTimeoutMs(200), TestNode.context(provider));
        final QueuePair qp = a.connectRcToPeerInReset(b)[0];
        final long start = System.nanoTime();
        qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey()));
        final Completions.Wc wc = completions.awaitOne(a.cq);
        assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
        assertTrue(System.nanoTime() - start >= 200_000_000L, "failed only after the retry timeout");
        assertEquals(QpState.ERROR, qp.state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void postingNeedsTheRightState(final String provider)
    {
        a = TestNode.open(provider);
        final QueuePair qp = a.qp(QpType.RC);
        final SendWorkRequest send = new SendWorkRequest().opcode(Opcode.SEND).local(a.region, 0, 8);
        final RecvWorkRequest recv = new RecvWorkRequest().local(a.region, 0, 8);
        final VerbsException inReset = assertThrows(VerbsException.class, () -> qp.postSend(send));
        assertTrue(inReset.getMessage().contains("RESET"), inReset.getMessage());
        assertThrows(VerbsException.class, () -> qp.postRecv(recv));
        qp.modify(QpAttributes.init(0));
        qp.postRecv(recv);
        assertThrows(VerbsException.class, () -> qp.postSend(send));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void postingAfterErrorCompletesEveryRequestWithFlushError(final String provider)
    {
        open(provider);
        final QueuePair[] qps = a.connectRc(b);
        qps[0].modify(QpAttributes.error());

        final SendWorkRequest second = new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey());
        final SendWorkRequest first = new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey()).next(second);
        qps[0].postSend(first);
        qps[0].postRecv(new RecvWorkRequest().wrId(3).local(a.region, 0, 8));
        final List<Completions.Wc> wcs = completions.await(a.cq, 3);
        assertEquals(List.of(1L, 2L, 3L), wcs.stream().map(Completions.Wc::wrId).toList());
        wcs.forEach(wc -> assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), "unsignaled requests are flushed too"));
        assertEquals(WcOpcode.RECV, wcs.get(2).opcode());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void movingToErrorFlushesOutstandingSendsAndPostedReceives(final String provider)
    {
        open(provider);
        final QueuePair[] qps = a.connectRc(b);
        for (int i = 0; i < 3; i++)
        {
            qps[0].postRecv(new RecvWorkRequest().wrId(100 + i).local(a.region, 0, 8));
        }
        // the peer posts no receive: these SENDs stay outstanding
        for (int i = 0; i < 4; i++)
        {
            qps[0].postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND).local(a.region, 0, 8));
        }
        assertTrue(completions.drain(a.cq, Duration.ofMillis(200)).isEmpty());

        qps[0].modify(QpAttributes.error());
        final List<Completions.Wc> wcs = completions.await(a.cq, 7);
        assertEquals(List.of(0L, 1L, 2L, 3L, 100L, 101L, 102L), wcs.stream().map(Completions.Wc::wrId).toList());
        wcs.forEach(wc -> assertEquals(WcStatus.WR_FLUSH_ERR, wc.status()));
        assertTrue(completions.drain(a.cq, Duration.ofMillis(100)).isEmpty(), "nothing completes twice");
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aFullSendQueueRefusesMoreUntilCompletionsFreeIt(final String provider)
    {
        open(provider);
        final QueuePair[] qps = a.connectRc(b,
            new QpInitAttributes().type(QpType.RC).cq(a.cq).maxSendWr(4),
            new QpInitAttributes().type(QpType.RC).cq(b.cq));
        final SendWorkRequest send =
            new SendWorkRequest().opcode(Opcode.SEND).sendFlags(SendFlags.SIGNALED).local(a.region, 0, 8);
        for (int i = 0; i < 4; i++)
        {
            qps[0].postSend(send.wrId(i));
        }
        final VerbsException full = assertThrows(VerbsException.class, () -> qps[0].postSend(send.wrId(4)));
        assertTrue(full.getMessage().contains("full"), full.getMessage());
        qps[1].postRecv(new RecvWorkRequest().local(b.region, 0, 8));
        assertEquals(0, completions.awaitOne(a.cq).wrId());
        qps[0].postSend(send.wrId(4));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void requestsTheDeviceCannotCarryAreRejectedWithTheValuesThatCausedIt(final String provider)
    {
        open(provider);
        final QueuePair[] qps = a.connectRc(b,
            new QpInitAttributes().type(QpType.RC).cq(a.cq).maxSendSge(2).maxInlineData(16),
            new QpInitAttributes().type(QpType.RC).cq(b.cq));
        final SendWorkRequest threeSges = new SendWorkRequest().opcode(Opcode.RDMA_WRITE);
        threeSges.sgList().numSge(3);
        final VerbsException tooManySges = assertThrows(VerbsException.class, () -> qps[0].postSend(threeSges));
        assertTrue(tooManySges.getMessage().contains("3 SGEs"), tooManySges.getMessage());
        final VerbsException inlineTooLarge = assertThrows(VerbsException.class, () -> qps[0].postSend(
            new SendWorkRequest().opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.INLINE).local(a.region, 0, 17)));
        assertTrue(inlineTooLarge.getMessage().contains("17"), inlineTooLarge.getMessage());
        final VerbsException atomicLength = assertThrows(VerbsException.class, () -> qps[0].postSend(
            new SendWorkRequest().opcode(Opcode.ATOMIC_FETCH_AND_ADD).local(a.region, 0, 4)));
        assertTrue(atomicLength.getMessage().contains("8-byte"), atomicLength.getMessage());
    }
}
