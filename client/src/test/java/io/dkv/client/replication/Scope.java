package io.dkv.client.replication;

/**
 * How much the explorer covers: two writers of one put each and one reader, over {@code replicas} replicas of one
 * key's slot.
 *
 * @param replicas       replicas of the key (r), the first the primary (the chain's head), the last its tail.
 * @param replicaCrashes how many replicas may crash (fail-stop, never back within a run).
 * @param writerCrashes  how many writers may crash, at any step after they invoke.
 * @param reads          how many reads the reader makes, one after the other.
 * @param attempts       how many times a writer may try before it gives up and reports failure.
 * @param variant        the protocol, or a broken form of it.
 */
record Scope(int replicas, int replicaCrashes, int writerCrashes, int reads, int attempts, Variant variant)
{
    static final int WRITERS = 2;

    Scope
    {
        if (replicas < 1 || replicas > 4 || reads < 0 || reads > 2 || attempts < 1 || attempts > 3 ||
            replicaCrashes < 0 || replicaCrashes >= replicas || writerCrashes < 0 || writerCrashes > WRITERS)
        {
            throw new IllegalArgumentException("scope out of range: replicas=" + replicas + " replicaCrashes=" +
                replicaCrashes + " writerCrashes=" + writerCrashes + " reads=" + reads + " attempts=" + attempts);
        }
    }

    Scope with(final Variant other)
    {
        return new Scope(replicas, replicaCrashes, writerCrashes, reads, attempts, other);
    }

    int operations()
    {
        return WRITERS + reads;
    }

    @Override
    public String toString()
    {
        return "r=" + replicas + " replicaCrashes=" + replicaCrashes + " writerCrashes=" + writerCrashes +
            " reads=" + reads + " attempts=" + attempts + " " + variant;
    }
}
