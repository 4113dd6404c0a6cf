package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The responder checks every remote request as an RNIC does. A violation completes with the verbs
 * error status, moves the requester's QP to ERROR, writes nothing, and the responder carries on
 * serving others. Deregistration revokes access at once.
 */
class ProtectionTest extends TwoNodeTest
{
    private static final long CANARY = 0x0BAD_F00D_0BAD_F00DL;

    private void fillCanary(final MemoryRegion region)
    {
        for (long offset = 0; offset < region.length(); offset += 8)
        {
            region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, CANARY);
        }
    }

    /**
     * Post one request on a fresh RC QP and check it fails with {@code expected}, the QP goes to
     * ERROR, the target region is untouched, and a second QP still works against the same responder.
     */
    private void assertViolation(
        final String provider,
        final WcStatus expected,
        final Function<MemoryRegion, MemoryRegion> chooseTarget,
        final Function<MemoryRegion, SendWorkRequest> request)
    {
        open(provider);
        final MemoryRegion target = chooseTarget.apply(b.region);
        fillCanary(b.region);
        final byte[] before = b.region.segment().toArray(ValueLayout.JAVA_BYTE);
        a.region.segment().fill((byte)0x5A);

        final QueuePair[] qps = a.connectRc(b);
        qps[0].postSend(request.apply(target).wrId(42).sendFlags(SendFlags.SIGNALED));
        final Completions.Wc wc = completions.awaitOne(a.cq);
        assertEquals(42, wc.wrId());
        assertEquals(expected, wc.status());
        assertEquals(QpState.ERROR, qps[0].state());
        assertArrayEquals(before, b.region.segment().toArray(ValueLayout.JAVA_BYTE), "the violation wrote nothing");

        qps[0].postSend(new SendWorkRequest().wrId(43).opcode(Opcode.RDMA_WRITE).local(a.region, 0, 8)
            .remote(b.region.address(), b.region.rkey()));
        assertEquals(WcStatus.WR_FLUSH_ERR, completions.awaitOne(a.cq).status(), "post after ERROR is flushed");

        final QueuePair[] healthy = a.connectRc(b);
        healthy[0].postSend(new SendWorkRequest().wrId(44).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address() + 8, b.region.rkey()));
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status(), "the responder still serves others");
        assertEquals(0x5A5A5A5A5A5A5A5AL, b.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void anUnknownRkeyIsARemoteAccessError(final String provider)
    {
        assertViolation(provider, WcStatus.REM_ACCESS_ERR, r -> r, r -> new SendWorkRequest().opcode(Opcode.RDMA_WRITE)
            .local(a.region, 0, 8).remote(r.address(), r.rkey() ^ 0x7F00));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aWriteBeyondTheRegionIsARemoteAccessErrorAndWritesNothing(final String provider)
    {
        assertViolation(provider, WcStatus.REM_ACCESS_ERR, r -> r, r -> new SendWorkRequest().opcode(Opcode.RDMA_WRITE)
            .local(a.region, 0, 64).remote(r.address() + r.length() - 32, r.rkey()));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aReadBeforeTheRegionIsARemoteAccessError(final String provider)
    {
        assertViolation(provider, WcStatus.REM_ACCESS_ERR, r -> r, r -> new SendWorkRequest().opcode(Opcode.RDMA_READ)
            .local(a.region, 0, 8).remote(r.address() - 8, r.rkey()));
    }

    /** Each one-sided operation and the remote right it needs. */
    static Stream<Arguments> operationsAndTheirRights()
    {
        return TestNode.providers().flatMap(provider -> Stream.of(
            Arguments.of(provider, Opcode.RDMA_WRITE, Access.REMOTE_WRITE),
            Arguments.of(provider, Opcode.RDMA_READ, Access.REMOTE_READ),
            Arguments.of(provider, Opcode.ATOMIC_FETCH_AND_ADD, Access.REMOTE_ATOMIC)));
    }

    @ParameterizedTest
    @MethodSource("operationsAndTheirRights")
    void anOperationOnARegionGrantingAllButItsRightIsARemoteAccessError(
        final String provider, final Opcode opcode, final int right)
    {
        assertViolation(provider, WcStatus.REM_ACCESS_ERR, r -> b.pd.allocate(4096, Access.ALL & ~right),
            r -> new SendWorkRequest().opcode(opcode).compareAdd(1).local(a.region, 0, 8)
                .remote(r.address(), r.rkey()));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aMisalignedAtomicIsAnInvalidRequestAndChangesNothing(final String provider)
    {
        assertViolation(provider, WcStatus.REM_INV_REQ_ERR, r -> r,
            r -> new SendWorkRequest().opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .compareAdd(CANARY).swap(1).local(a.region, 0, 8).remote(r.address() + 4, r.rkey()));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aRegionOfAnotherProtectionDomainIsARemoteAccessError(final String provider)
    {
        assertViolation(provider, WcStatus.REM_ACCESS_ERR,
            r -> b.device.allocPd().allocate(4096, Access.ALL),
            r -> new SendWorkRequest().opcode(Opcode.RDMA_READ).local(a.region, 0, 8).remote(r.address(), r.rkey()));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aResponderQpWithoutRemoteAccessRefusesOneSidedRequests(final String provider)
    {
        open(provider);
        final QueuePair[] qps = a.connectRcToPeerInReset(b);
        final QueuePair qp = qps[0];
        final QueuePair peer = qps[1];
        peer.modify(QpAttributes.init(Access.REMOTE_READ));
        peer.modify(QpAttributes.rtr(a.device.address(), qp.qpNum()));
        qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey()));
        assertEquals(WcStatus.REM_ACCESS_ERR, completions.awaitOne(a.cq).status());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void deregistrationRevokesRemoteAccessAtOnce(final String provider)
    {
        open(provider);
        final MemoryRegion doomed = b.pd.allocate(4096, Access.ALL);
        final QueuePair[] qps = a.connectRc(b);
        final SendWorkRequest read =
            new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(doomed.address(), doomed.rkey());
        qps[0].postSend(read);
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());

        doomed.deregister();
        assertFalse(doomed.isRegistered());
        qps[0].postSend(read.wrId(2));
        final Completions.Wc wc = completions.awaitOne(a.cq);
        assertEquals(2, wc.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());

        final MemoryRegion successor = b.pd.allocate(4096, Access.ALL);
        final QueuePair[] fresh = a.connectRc(b);
        fresh[0].postSend(read.wrId(3));
        assertEquals(WcStatus.REM_ACCESS_ERR, completions.awaitOne(a.cq).status(),
            "a stale rkey never reaches a new region");
        fresh[0].modify(QpAttributes.reset());
        assertEquals(QpState.RESET, fresh[0].state());
        successor.deregister();
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aBadLocalKeyIsALocalProtectionError(final String provider)
    {
        open(provider);
        final QueuePair[] qps = a.connectRc(b);
        final SendWorkRequest wr = new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey());
        wr.sgList().sge(0).lkey(a.region.lkey() + 1);
        qps[0].postSend(wr);
        final Completions.Wc wc = completions.awaitOne(a.cq);
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
        assertEquals(QpState.ERROR, qps[0].state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void registrationChecksItsArguments(final String provider)
    {
        a = TestNode.open(provider);
        assertThrows(VerbsException.class, () -> a.pd.allocate(4096, Access.REMOTE_WRITE),
            "remote write needs local write");
        assertThrows(VerbsException.class, () -> a.pd.allocate(0, Access.ALL));
        assertThrows(VerbsException.class,
            () -> a.pd.register(MemorySegment.ofArray(new byte[64]), Access.LOCAL_WRITE));
        final byte[] bytes = new byte[16];
        Arrays.fill(bytes, (byte)1);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined())
        {
            final MemoryRegion local = a.pd.register(arena.allocate(64), Access.LOCAL_WRITE);
            assertEquals(64, local.length());
            local.deregister();
        }
    }
}
