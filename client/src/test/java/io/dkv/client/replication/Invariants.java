package io.dkv.client.replication;

/**
 * The protocol's invariants over the replicas' slots, checked at every state (client/README.md, "Replication").
 */
final class Invariants
{
    private Invariants()
    {
    }

    /** @return why the state breaks an invariant, or null when it keeps them all. */
    static String violated(final ModelState state, final boolean terminal)
    {
        String why = blocksBeforeSlots(state);
        if (why == null)
        {
            why = chainShape(state);
        }
        if (why == null)
        {
            why = acknowledgedWritesStay(state);
        }
        if (why == null && terminal)
        {
            why = settledAtRest(state);
        }
        return why;
    }

    /** A slot names only a block that its replica holds in full. */
    private static String blocksBeforeSlots(final ModelState state)
    {
        for (int i = 0; i < state.replicas(); i++)
        {
            if (state.live(i) && state.slot(i) != 0 && !state.holdsBlock(i, state.slot(i)))
            {
                return "replica " + i + "'s slot names write " + state.slot(i) + " whose block it does not hold";
            }
        }
        return null;
    }

    /**
     * From head to tail the live replicas name at most two writes, the newer one (the one in flight) on a suffix
     * ending at the tail: the head is never ahead of a backup.
     */
    private static String chainShape(final ModelState state)
    {
        int previous = -1;
        int changes = 0;
        for (int i = 0; i < state.replicas(); i++)
        {
            if (!state.live(i))
            {
                continue;
            }
            final int value = state.slot(i);
            if (previous >= 0 && value != previous)
            {
                changes++;
                if (changes > 1 || state.winOrder(value) < state.winOrder(previous))
                {
                    return "live replicas " + state.replicasToString() + " are not a chain: older write " + value +
                        " after " + previous;
                }
            }
            previous = value;
        }
        return null;
    }

    /** Once a write is acknowledged every live replica names it or a write that won the tail after it. */
    private static String acknowledgedWritesStay(final ModelState state)
    {
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            if (state.status(writer - 1) != History.OK)
            {
                continue;
            }
            for (int i = 0; i < state.replicas(); i++)
            {
                final int value = state.slot(i);
                if (state.live(i) && value != writer && state.winOrder(value) <= state.winOrder(writer))
                {
                    return "write " + writer + " was acknowledged but live replica " + i + " names " + value +
                        " " + state.replicasToString();
                }
            }
        }
        return null;
    }

    /** When every client is done and none crashed, the live replicas agree. */
    private static String settledAtRest(final ModelState state)
    {
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            if (state.crashed(writer))
            {
                return null;
            }
        }
        for (int i = 0; i < state.replicas(); i++)
        {
            if (state.live(i) && state.slot(i) != state.slot(state.head()))
            {
                return "all clients are done but the live replicas disagree " + state.replicasToString();
            }
        }
        return null;
    }
}
