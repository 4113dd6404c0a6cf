package io.dkv.agent;

import org.agrona.concurrent.AtomicBuffer;

import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * A doorbell in memory two processes share: a thread out of work sleeps on it ({@link Futex}) rather than spinning,
 * yielding or parking on a timer, and whoever gives it work rings it, which wakes it at once. On a small host a thread
 * that waits by spinning or yielding takes the core the other process needs to answer it (measured on 2 cores: a node
 * behind the host's driver stalled 200-500 ms while another JVM started, when both sides yielded); a thread parked on
 * a timer costs nothing but answers a timer's slack late (about 60 µs a wait). A sleeper is woken by the ring, and
 * still by its timeout, so a ring lost to a crashed peer only slows it down.
 *
 * <pre>
 *   0  sequence  int   rings so far while someone slept: the futex word a sleeper waits to see change
 *   4  sleepers  int   threads between {@link #prepare()} and {@link #finish()}: a ring that finds none costs a
 *                      fence and a read, no system call
 * </pre>
 *
 * <p>A sleeper counts itself in, reads the sequence, then looks for work, and sleeps only if the sequence is still what
 * it read; a ringer publishes the work, then (after a full fence) reads the count and, if anyone is in, moves the
 * sequence and wakes them. Either the sleeper's look finds the work or the ringer's read finds the sleeper, so no work
 * waits for a timeout. A process that dies inside a sleep leaves the count raised: later rings then each make a system
 * call, nothing worse.
 */
public final class Doorbell
{
    public static final int SEQUENCE_OFFSET = 0;
    public static final int SLEEPERS_OFFSET = 4;
    public static final int LENGTH = 8;

    private final AtomicBuffer buffer;
    private final int sequenceIndex;
    private final int sleepersIndex;
    private final long sequenceAddress;

    /**
     * @param buffer shared memory, by address (not a heap array).
     * @param offset the doorbell's offset in it, 4-byte aligned.
     */
    public Doorbell(final AtomicBuffer buffer, final int offset)
    {
        if (buffer.byteArray() != null || ((buffer.addressOffset() + offset) & 3) != 0)
        {
            throw new IllegalArgumentException("a doorbell needs 4-byte aligned off-heap memory: offset " + offset +
                " of a buffer at address " + buffer.addressOffset() + (buffer.byteArray() != null ? " (heap)" : ""));
        }
        this.buffer = buffer;
        this.sequenceIndex = offset + SEQUENCE_OFFSET;
        this.sleepersIndex = offset + SLEEPERS_OFFSET;
        this.sequenceAddress = buffer.addressOffset() + sequenceIndex;
    }

    /**
     * This thread may sleep: from now on a ring wakes it. Look for work after this, and call {@link #finish()} in any
     * case.
     *
     * @return the sequence to pass to {@link #sleep}.
     */
    public int prepare()
    {
        buffer.getAndAddInt(sleepersIndex, 1);
        return buffer.getIntVolatile(sequenceIndex);
    }

    /** No work was found since {@link #prepare()}: sleep until a ring, or at most {@code timeoutNs}. */
    public void sleep(final int sequence, final long timeoutNs)
    {
        Futex.await(sequenceAddress, sequence, timeoutNs);
    }

    /**
     * The whole protocol for a sleeper: count in, look for work, sleep if there is none, count out.
     *
     * @param workWaiting whether work was given that the caller has not taken yet.
     * @param timeoutNs   the longest sleep.
     */
    public void sleepUnless(final BooleanSupplier workWaiting, final long timeoutNs)
    {
        final int sequence = prepare();
        try
        {
            if (!workWaiting.getAsBoolean())
            {
                sleep(sequence, timeoutNs);
            }
        }
        finally
        {
            finish();
        }
    }

    /** This thread no longer sleeps here. */
    public void finish()
    {
        buffer.getAndAddInt(sleepersIndex, -1);
    }

    /** Work was published (before this call): wake whoever sleeps here. */
    public void ring()
    {
        VarHandle.fullFence();
        if (buffer.getIntVolatile(sleepersIndex) > 0)
        {
            buffer.getAndAddInt(sequenceIndex, 1);
            Futex.wakeAll(sequenceAddress);
        }
    }

    /** @return threads inside {@link #prepare()}/{@link #finish()} now. */
    public int sleepers()
    {
        return buffer.getIntVolatile(sleepersIndex);
    }
}
