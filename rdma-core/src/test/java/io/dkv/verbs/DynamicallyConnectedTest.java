package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One DC initiator reaches any DC target from its address, number and key alone: no handshake per
 * target. Wrong keys are refused and break only the initiator that used them.
 */
class DynamicallyConnectedTest extends MultiNodeTest
{
    private TestNode node(final String provider)
    {
        return node(TestNode.context(provider));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void oneInitiatorReachesThreeTargets(final String provider)
    {
        final TestNode initiator = node(provider);
        final QueuePair dci = initiator.dci();
        final Completions completions = new Completions(initiator.cq);
        final List<TestNode> targets = new ArrayList<>();
        final List<DcTarget> dcts = new ArrayList<>();
        final List<SharedReceiveQueue> srqs = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            final TestNode target = node(provider);
            final SharedReceiveQueue srq = target.pd.createSrq(16, 1);
            srq.postRecv(new RecvWorkRequest().wrId(500 + i).local(target.region, 0, 64));
            dcts.add(target.pd.createDct(new DctInitAttributes().cq(target.cq).srq(srq).dcKey(0xDC00L + i)));
            targets.add(target);
            srqs.add(srq);
            completions.add(target.cq);
        }

        final SendWorkRequest wr = new SendWorkRequest();
        for (int i = 0; i < 3; i++)
        {
            final TestNode target = targets.get(i);
            final AddressHandle ah = initiator.pd.createAh(target.device.address());
            final DcTarget dct = dcts.get(i);
            initiator.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1000 + i);

            dci.postSend(wr.reset().wrId(i * 10).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .local(initiator.region, 0, 8).remote(target.region.address() + 128, target.region.rkey())
                .dc(ah, dct.dctNumber(), dct.dcKey()));
            assertEquals(WcStatus.SUCCESS, completions.awaitOne(initiator.cq).status());
            assertEquals(1000 + i, target.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 128));

            dci.postSend(wr.reset().wrId(i * 10 + 1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).compareAdd(5)
                .sendFlags(SendFlags.SIGNALED)
                .local(initiator.region, 8, 8).remote(target.region.address() + 256, target.region.rkey())
                .dc(ah, dct.dctNumber(), dct.dcKey()));
            assertEquals(WcStatus.SUCCESS, completions.awaitOne(initiator.cq).status());

            dci.postSend(wr.reset().wrId(i * 10 + 2).opcode(Opcode.SEND_WITH_IMM).immData(i)
                .sendFlags(SendFlags.SIGNALED)
                .local(initiator.region, 0, 8).dc(ah, dct.dctNumber(), dct.dcKey()));
            final Completions.Wc received = completions.awaitOne(target.cq);
            assertEquals(500 + i, received.wrId());
            assertEquals(dct.dctNumber(), received.qpNum());
            assertEquals(dci.qpNum(), received.srcQp());
            assertEquals(i, received.immData());
            assertEquals(1000 + i, target.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            final Completions.Wc sent = completions.awaitOne(initiator.cq);
            assertEquals(i * 10 + 2, sent.wrId());
            assertEquals(WcStatus.SUCCESS, sent.status());
        }
        assertEquals(QpState.RTS, dci.state());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aWrongDcKeyIsRefusedAndTheTargetServesOthers(final String provider)
    {
        final TestNode initiator = node(provider);
        final TestNode target = node(provider);
        final DcTarget dct = target.dct(77);
        final AddressHandle ah = initiator.pd.createAh(target.device.address());
        final Completions completions = new Completions(initiator.cq, target.cq);
        target.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 9);

        final QueuePair bad = initiator.dci();
        final SendWorkRequest write =
            new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(initiator.region, 0, 8).remote(target.region.address(), target.region.rkey())
            .dc(ah, dct.dctNumber(), 78);
        bad.postSend(write);
        assertEquals(WcStatus.REM_ACCESS_ERR, completions.awaitOne(initiator.cq).status());
        assertEquals(QpState.ERROR, bad.state());
        assertEquals(9, target.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));

        final QueuePair good = initiator.dci();
        good.postSend(write.dc(ah, dct.dctNumber(), 77));
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(initiator.cq).status());
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void everyRegionOfATargetWithManyIsReachable(final String provider)
    {
        final TestNode initiator = node(provider);
        final TestNode target = node(provider);
        final DcTarget dct = target.dct(5);
        final List<MemoryRegion> regions = new ArrayList<>();
        for (int i = 0; i < 70; i++)
        {
            final MemoryRegion region = target.pd.allocate(4096, Access.ALL);
            region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 64, 7000 + i);
            regions.add(region);
        }
        final AddressHandle ah = initiator.pd.createAh(target.device.address());
        final QueuePair dci = initiator.dci();
        final SendWorkRequest read = new SendWorkRequest();
        // from the last registered down: a peer meets high table indexes before low ones
        for (int i = regions.size() - 1; i >= 0; i--)
        {
            final MemoryRegion region = regions.get(i);
            dci.postSend(read.reset().wrId(i).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .local(initiator.region, 0, 8).remote(region.address() + 64, region.rkey()).dc(ah, dct.dctNumber(), 5));
            assertEquals(WcStatus.SUCCESS, new Completions(initiator.cq).awaitOne(initiator.cq).status());
            assertEquals(7000 + i, initiator.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "region " + i);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aDeviceWithoutDcRefusesDcTargetsAndInitiatorsSayingSo(final String provider)
    {
        try (TestNode node = TestNode.open(TestNode.context(provider).dc(false)))
        {
            assertFalse(node.device.supportsDc());
            final VerbsException target = assertThrows(VerbsException.class, () -> node.pd.createDct(
                new DctInitAttributes().cq(node.cq).srq(node.pd.createSrq(16, 1)).dcKey(1)));
            final VerbsException initiator = assertThrows(VerbsException.class,
                () -> node.pd.createQp(new QpInitAttributes().type(QpType.DCI).cq(node.cq)));
            assertTrue(target.getMessage().contains("dkv.verbs.dc=false"), target.getMessage());
            assertTrue(initiator.getMessage().contains("a DC initiator"), initiator.getMessage());
            node.qp(QpType.RC);
        }
    }
}
