package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * RC is ordered and reliable per QP under load: with the send queue kept full, writes land in
 * posting order (a READ after them sees all of them), every SEND arrives exactly once and in order,
 * and completions come out in posting order.
 */
class ReliableOrderingTest extends TwoNodeTest
{
    private static final int OPERATIONS = 20_000;

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void writesSendsAndReadsStayInOrderUnderLoad(final String provider)
    {
        open(provider);
        final int depth = 64;
        final QueuePair[] qps = a.connectRc(b,
            new QpInitAttributes().type(QpType.RC).cq(a.cq).maxSendWr(depth),
            new QpInitAttributes().type(QpType.RC).cq(b.cq).maxRecvWr(depth * 2));
        for (int i = 0; i < depth * 2; i++)
        {
            qps[1].postRecv(new RecvWorkRequest().wrId(i).local(b.region, 512 * 1024 + (i % (depth * 2)) * 8L, 8));
        }

        final SendWorkRequest wr = new SendWorkRequest();
        final long counterAddress = b.region.address();
        long posted = 0;
        long completed = 0;
        long receivedSends = 0;
        long nextExpectedWrId = 0;
        long nextExpectedSend = 0;
        final WorkCompletion[] wcs = new WorkCompletion[32];
        for (int i = 0; i < wcs.length; i++)
        {
            wcs[i] = new WorkCompletion();
        }
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (completed < OPERATIONS)
        {
            while (posted < OPERATIONS && posted - completed < depth)
            {
                final long n = posted;
                final int slot = (int)(n % 1024);
                a.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 4096 + slot * 8L, n);
                if (n % 8 == 7)
                {
                    wr.reset().opcode(Opcode.SEND).local(a.region, 4096 + slot * 8L, 8);
                }
                else
                {
                    wr.reset().opcode(Opcode.RDMA_WRITE).local(a.region, 4096 + slot * 8L, 8)
                        .remote(counterAddress, b.region.rkey());
                }
                qps[0].postSend(wr.wrId(n).sendFlags(SendFlags.SIGNALED));
                posted++;
            }
            final int n = a.cq.poll(wcs);
            for (int i = 0; i < n; i++)
            {
                assertEquals(WcStatus.SUCCESS, wcs[i].status(), wcs[i].toString());
                assertEquals(nextExpectedWrId++, wcs[i].wrId(), "completions come in posting order");
                completed++;
            }
            final int r = b.cq.poll(wcs);
            for (int i = 0; i < r; i++)
            {
                assertEquals(WcStatus.SUCCESS, wcs[i].status());
                final long value =
                    b.region.segment()
                    .get(ValueLayout.JAVA_LONG_UNALIGNED, 512 * 1024 + (wcs[i].wrId() % (depth * 2)) * 8L);
                assertEquals(nextExpectedSend * 8 + 7, value, "each SEND arrives once, in order");
                nextExpectedSend++;
                receivedSends++;
                qps[1].postRecv(new RecvWorkRequest().wrId(wcs[i].wrId())
                    .local(b.region, 512 * 1024 + (wcs[i].wrId() % (depth * 2)) * 8L, 8));
                if (b.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) < value - 1)
                {
                    throw new AssertionError("a SEND overtook the WRITE posted before it");
                }
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("only " + completed + " of " + OPERATIONS + " completed");
            }
        }
        while (receivedSends < OPERATIONS / 8)
        {
            completions.pollAll();
            final int r = b.cq.poll(wcs);
            receivedSends += r;
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("only " + receivedSends + " sends received");
            }
        }

        qps[0].postSend(wr.reset().wrId(-1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(counterAddress, b.region.rkey()));
        final List<Completions.Wc> last = completions.await(a.cq, 1);
        assertEquals(WcStatus.SUCCESS, last.get(0).status());
        assertEquals(OPERATIONS - 2, a.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0),
            "the READ sees the last WRITE posted before it");
    }
}
