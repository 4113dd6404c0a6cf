package io.dkv.verbs;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tcp peer that keeps WRITING a counter into a victim and READING it back over an RC queue pair,
 * checking every value, for as long as an attack on the victim goes on.
 */
final class WellBehavedPeer implements AutoCloseable
{
    /** Where in the victim's region the counter lives: everything else there belongs to the test. */
    static final int COUNTER_OFFSET = 8192;

    final TestNode node;
    final QueuePair[] qps;
    private final TestNode victim;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong operations = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;

    private WellBehavedPeer(final TestNode victim)
    {
        this.victim = victim;
        this.node = TestNode.open("tcp");
        this.qps = node.connectRc(victim);
        this.thread = new Thread(this::traffic, "well-behaved-peer");
        thread.start();
    }

    /** Start the traffic and wait for its first operation (the victim's QP takes requests from the link spoken on
     * first). */
    static WellBehavedPeer start(final TestNode victim)
    {
        final WellBehavedPeer peer = new WellBehavedPeer(victim);
        final long deadline = System.nanoTime() + RawTcpPeer.WAIT.toNanos();
        while (peer.operations.get() == 0 && peer.failure.get() == null && System.nanoTime() < deadline)
        {
            Thread.yield();
        }
        assertNull(peer.failure.get(), "the well-behaved peer saw an error before any attack");
        assertTrue(peer.operations.get() > 0, "the well-behaved peer completed an operation before any attack");
        return peer;
    }

    long operations()
    {
        return operations.get();
    }

    /** Another hundred operations complete, none of them with an error or a wrong value. */
    void assertUnharmed() throws InterruptedException
    {
        final long before = operations.get();
        final long deadline = System.nanoTime() + RawTcpPeer.WAIT.toNanos();
        while (operations.get() < before + 100 && System.nanoTime() < deadline && failure.get() == null)
        {
            Thread.sleep(1);
        }
        assertNull(failure.get(), "the well-behaved peer saw an error");
        assertTrue(operations.get() >= before + 100, "the well-behaved peer kept going");
    }

    private void traffic()
    {
        final WorkCompletion[] wcs = {new WorkCompletion()};
        final SendWorkRequest write = new SendWorkRequest().opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(node.region, 0, 8).remote(victim.region.address() + COUNTER_OFFSET, victim.region.rkey());
        final SendWorkRequest read = new SendWorkRequest().opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(node.region, 64, 8).remote(victim.region.address() + COUNTER_OFFSET, victim.region.rkey());
        try
        {
            long value = 1;
            while (running.get())
            {
                node.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
                qps[0].postSend(write);
                await(wcs);
                qps[0].postSend(read);
                await(wcs);
                final long readBack = node.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 64);
                if (readBack != value)
                {
                    throw new AssertionError("read back " + readBack + " after writing " + value);
                }
                operations.addAndGet(2);
                value++;
            }
        }
        catch (final Throwable ex)
        {
            failure.set(ex);
        }
    }

    private void await(final WorkCompletion[] wcs)
    {
        final long deadline = System.nanoTime() + RawTcpPeer.WAIT.toNanos();
        while (node.cq.poll(wcs) == 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("a well-behaved operation took more than " + RawTcpPeer.WAIT);
            }
            Thread.onSpinWait();
        }
        if (!wcs[0].isSuccess())
        {
            throw new AssertionError("a well-behaved operation failed: " + wcs[0]);
        }
    }

    /** @return the region's bytes with the counter zeroed: what an attack must leave as it was. */
    static byte[] withoutCounter(final byte[] region)
    {
        final byte[] copy = region.clone();
        java.util.Arrays.fill(copy, COUNTER_OFFSET, COUNTER_OFFSET + 8, (byte)0);
        return copy;
    }

    public void close() throws InterruptedException
    {
        running.set(false);
        thread.join(RawTcpPeer.WAIT.toMillis());
        node.close();
    }
}
