package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RDMA READ, WRITE and the atomics over RC: the data lands where the request says, wr_id comes back,
 * unsignaled requests stay silent, and a list of requests posted at once completes in order.
 */
class OneSidedOperationsTest extends TwoNodeTest
{
    static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private QueuePair connect(final String provider)
    {
        open(provider);
        return a.connectRc(b)[0];
    }

    /** @return the initiator's next completion, checked to be the success of the request with this wr_id. */
    private Completions.Wc awaitSuccess(final long wrId, final WcOpcode opcode)
    {
        final Completions.Wc wc = completions.awaitOne(a.cq);
        assertEquals(wrId, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(opcode, wc.opcode());
        return wc;
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void writeThenReadMovesTheBytesAndReportsWrId(final String provider)
    {
        final QueuePair qp = connect(provider);
        final byte[] data = new byte[64];
        ThreadLocalRandom.current().nextBytes(data);
        a.region.segment().asSlice(0, 64).copyFrom(java.lang.foreign.MemorySegment.ofArray(data));

        final SendWorkRequest wr = new SendWorkRequest()
            .wrId(11).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 64).remote(b.region.address() + 4096, b.region.rkey());
        qp.postSend(wr);
        awaitSuccess(11, WcOpcode.RDMA_WRITE);
        assertArrayEquals(data, b.region.segment().asSlice(4096, 64).toArray(ValueLayout.JAVA_BYTE));

        wr.reset().wrId(12).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 8192, 64).remote(b.region.address() + 4096, b.region.rkey());
        qp.postSend(wr);
        assertEquals(64, awaitSuccess(12, WcOpcode.RDMA_READ).byteLen());
        assertArrayEquals(data, a.region.segment().asSlice(8192, 64).toArray(ValueLayout.JAVA_BYTE));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void largeTransfersSpanManyBuffersAndSges(final String provider)
    {
        final QueuePair qp = connect(provider);
        final int length = 600_000;
        final byte[] data = new byte[length];
        ThreadLocalRandom.current().nextBytes(data);
        a.region.segment().asSlice(0, length).copyFrom(java.lang.foreign.MemorySegment.ofArray(data));

        final SendWorkRequest wr = new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .remote(b.region.address() + 100, b.region.rkey());
        final ScatterGatherList sgList = wr.sgList().numSge(3);
        sgList.sge(0).set(a.region, 0, 1000);
        sgList.sge(1).set(a.region, 1000, 299_000);
        sgList.sge(2).set(a.region, 300_000, 300_000);
        qp.postSend(wr);
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());
        assertArrayEquals(data, b.region.segment().asSlice(100, length).toArray(ValueLayout.JAVA_BYTE));

        wr.reset().wrId(2).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .remote(b.region.address() + 100, b.region.rkey()).local(a.region, 400_000, length);
        qp.postSend(wr);
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());
        assertArrayEquals(data, a.region.segment().asSlice(400_000, length).toArray(ValueLayout.JAVA_BYTE));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void compareAndSwapAndFetchAndAddReturnTheOriginalWord(final String provider)
    {
        final QueuePair qp = connect(provider);
        b.region.segment().set(BE_LONG, 64, 40);

        final SendWorkRequest wr =
            new SendWorkRequest().wrId(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address() + 64, b.region.rkey()).compareAdd(2);
        qp.postSend(wr);
        final Completions.Wc faa = completions.awaitOne(a.cq);
        assertEquals(WcStatus.SUCCESS, faa.status());
        assertEquals(WcOpcode.FETCH_ADD, faa.opcode());
        assertEquals(40, a.region.segment().get(BE_LONG, 0));
        assertEquals(42, b.region.segment().get(BE_LONG, 64));

        wr.reset().wrId(2).opcode(Opcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 8, 8).remote(b.region.address() + 64, b.region.rkey()).compareAdd(41).swap(7);
        qp.postSend(wr);
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());
        assertEquals(42, a.region.segment().get(BE_LONG, 8), "failed compare returns the current value");
        assertEquals(42, b.region.segment().get(BE_LONG, 64), "failed compare leaves the word alone");

        wr.compareAdd(42);
        qp.postSend(wr);
        final Completions.Wc cas = completions.awaitOne(a.cq);
        assertEquals(WcOpcode.COMP_SWAP, cas.opcode());
        assertEquals(42, a.region.segment().get(BE_LONG, 8));
        assertEquals(7, b.region.segment().get(BE_LONG, 64));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aBatchCompletesInOrderAndUnsignaledRequestsStaySilent(final String provider)
    {
        final QueuePair qp = connect(provider);
        final SendWorkRequest[] batch = new SendWorkRequest[32];
        for (int i = 0; i < batch.length; i++)
        {
            a.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, i * 8L, i * 1000L);
            batch[i] = new SendWorkRequest().wrId(100 + i).opcode(Opcode.RDMA_WRITE)
                .sendFlags(i % 4 == 3 ? SendFlags.SIGNALED : 0)
                .local(a.region, i * 8L, 8).remote(b.region.address() + i * 8L, b.region.rkey());
            if (i > 0)
            {
                batch[i - 1].next(batch[i]);
            }
        }
        qp.postSend(batch[0]);
        final List<Completions.Wc> wcs = completions.await(a.cq, 8);
        for (int i = 0; i < 8; i++)
        {
            assertEquals(100 + i * 4 + 3, wcs.get(i).wrId());
            assertEquals(WcStatus.SUCCESS, wcs.get(i).status());
        }
        assertTrue(completions.drain(a.cq, java.time.Duration.ofMillis(50)).isEmpty());
        for (int i = 0; i < batch.length; i++)
        {
            assertEquals(i * 1000L, b.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, i * 8L));
        }
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void inlineDataIsTakenAtPostTime(final String provider)
    {
        final QueuePair qp = connect(provider);
        a.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x1122334455667788L);
        qp.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.RDMA_WRITE)
            .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey()));
        a.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0);
        assertEquals(WcStatus.SUCCESS, completions.awaitOne(a.cq).status());
        assertEquals(0x1122334455667788L, b.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }
}
