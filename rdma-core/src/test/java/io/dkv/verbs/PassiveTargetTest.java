package io.dkv.verbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * With shm the target's threads do nothing for one-sided requests: READ, WRITE, CAS and FAA, over RC
 * and over DC, complete while the target process is frozen by SIGSTOP, and what they wrote is there
 * when it resumes.
 */
class PassiveTargetTest
{
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @Test
    @Timeout(60)
    void oneSidedRequestsCompleteWhileTheTargetProcessIsStopped() throws Exception
    {
        try (TestNode node = TestNode.open("shm");
            ChildProcess target = ChildProcess.start("stopped target", List.of(), VerbsPeer.class))
        {
            final String[] opened = target.call("open shm 127.0.0.1:0 65536 65536");
            final PortAddress targetAddress = PortAddress.parse(opened[0]);
            final long base = Long.parseLong(opened[1]);
            final int rkey = Integer.parseInt(opened[2]);
            final int targetQpn = Integer.parseInt(target.call("rc")[0]);
            final int dctNumber = Integer.parseInt(target.call("dct 4242")[0]);
            final QueuePair rc = node.qp(QpType.RC);
            node.bringUp(rc, targetAddress, targetQpn);
            target.call("connect " + node.device.address() + " " + rc.qpNum());
            target.call("fill 0 4096 7");
            target.call("set-word 16384 100");

            final QueuePair dci = node.dci();
            final AddressHandle ah = node.pd.createAh(targetAddress);

            stop(target.pid());
            try
            {
                assertEquals('T', processState(target.pid()), "the target is stopped");
                final Completions completions = new Completions(node.cq);
                final SendWorkRequest wr = new SendWorkRequest();

                rc.postSend(wr.reset().wrId(1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .local(node.region, 0, 4096).remote(base, rkey));
                assertEquals(WcStatus.SUCCESS, completions.awaitOne(node.cq).status());
                assertArrayEquals(VerbsPeer.pattern(4096, 7),
                    node.region.segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE));

                node.region.segment().asSlice(8192, 4096).copyFrom(MemorySegment.ofArray(VerbsPeer.pattern(4096, 8)));
                rc.postSend(wr.reset().wrId(2).opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .local(node.region, 8192, 4096).remote(base + 8192, rkey));
                assertEquals(WcStatus.SUCCESS, completions.awaitOne(node.cq).status());

                rc.postSend(wr.reset().wrId(3).opcode(Opcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                    .local(node.region, 32768, 8).remote(base + 16384, rkey).compareAdd(100).swap(200));
                assertEquals(WcStatus.SUCCESS, completions.awaitOne(node.cq).status());
                assertEquals(100, node.region.segment().get(BE_LONG, 32768));

                dci.postSend(wr.reset().wrId(4).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .local(node.region, 32776, 8).remote(base + 16384, rkey).compareAdd(5).dc(ah, dctNumber, 4242));
                assertEquals(WcStatus.SUCCESS, completions.awaitOne(node.cq).status());
                assertEquals(200, node.region.segment().get(BE_LONG, 32776));

                dci.postSend(wr.reset().wrId(5).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .local(node.region, 40960, 4096).remote(base + 8192, rkey).dc(ah, dctNumber, 4242));
                assertEquals(WcStatus.SUCCESS, completions.awaitOne(node.cq).status());
                assertArrayEquals(VerbsPeer.pattern(4096, 8),
                    node.region.segment().asSlice(40960, 4096).toArray(ValueLayout.JAVA_BYTE));
                assertEquals('T', processState(target.pid()), "the target stayed stopped throughout");
            }
            finally
            {
                resume(target.pid());
            }
            target.call("check 8192 4096 8");
            assertEquals("205", target.call("word 16384")[0]);
        }
    }

    private static void stop(final long pid) throws IOException, InterruptedException
    {
        signal("-STOP", pid);
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (processState(pid) != 'T' && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
    }

    private static void resume(final long pid) throws IOException, InterruptedException
    {
        signal("-CONT", pid);
    }

    private static void signal(final String signal, final long pid) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill " + signal + " " + pid);
    }

    /** @return the state letter of /proc/PID/stat: R running, S sleeping, T stopped. */
    private static char processState(final long pid) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }
}
