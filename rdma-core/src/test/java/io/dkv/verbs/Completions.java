package io.dkv.verbs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Polls a set of completion queues together (the shm provider advances when queues are polled)
 * and keeps what each produced, so a test can wait for completions on one of them.
 */
final class Completions
{
    /** A completion copied out of the reused {@link WorkCompletion}. */
    record Wc(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, boolean hasImm, boolean hasGrh,
        int qpNum, int srcQp)
    {
    }

    private final Map<CompletionQueue, List<Wc>> collected = new IdentityHashMap<>();
    private final List<CompletionQueue> queues = new ArrayList<>();
    private final WorkCompletion[] scratch = new WorkCompletion[16];

    Completions(final CompletionQueue... cqs)
    {
        for (int i = 0; i < scratch.length; i++)
        {
            scratch[i] = new WorkCompletion();
        }
        for (final CompletionQueue cq : cqs)
        {
            add(cq);
        }
    }

    Completions add(final CompletionQueue cq)
    {
        if (!collected.containsKey(cq))
        {
            queues.add(cq);
            collected.put(cq, new ArrayList<>());
        }
        return this;
    }

    /** Poll every queue once. */
    void pollAll()
    {
        for (final CompletionQueue cq : queues)
        {
            final int n = cq.poll(scratch);
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = scratch[i];
                collected.get(cq)
                    .add(new Wc(wc.wrId(), wc.status(), wc.opcode(), wc.byteLen(), wc.immData(), wc.hasImm(),
                    wc.hasGrh(), wc.qpNum(), wc.srcQp()));
            }
        }
    }

    /**
     * Poll until {@code cq} has produced {@code count} completions not yet taken, then take them.
     */
    List<Wc> await(final CompletionQueue cq, final int count)
    {
        return await(cq, count, Duration.ofSeconds(10));
    }

    List<Wc> await(final CompletionQueue cq, final int count, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final List<Wc> list = collected.get(cq);
        while (list.size() < count)
        {
            pollAll();
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("waited " + timeout + " for " + count + " completions on " + cq + ", got " +
                    list);
            }
            Thread.onSpinWait();
        }
        final List<Wc> taken = new ArrayList<>(list.subList(0, count));
        list.subList(0, count).clear();
        return taken;
    }

    Wc awaitOne(final CompletionQueue cq)
    {
        return await(cq, 1).get(0);
    }

    /**
     * Poll for a while and return whatever {@code cq} produced (for asserting that nothing came).
     */
    List<Wc> drain(final CompletionQueue cq, final Duration period)
    {
        final long deadline = System.nanoTime() + period.toNanos();
        while (System.nanoTime() < deadline)
        {
            pollAll();
            Thread.onSpinWait();
        }
        final List<Wc> list = collected.get(cq);
        final List<Wc> taken = new ArrayList<>(list);
        list.clear();
        return taken;
    }
}
