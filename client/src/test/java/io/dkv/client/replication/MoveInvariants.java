package io.dkv.client.replication;

/**
 * The replication invariants that still hold while a key's placement moves, checked at every state, over the chain
 * the driver's phase writes: the placement before the change up to SWITCH, the one after it from CLEANUP on. And the
 * change's own: once SWITCH is settled every node of both placements names the same write.
 */
final class MoveInvariants
{
    private MoveInvariants()
    {
    }

    /** @return why the state breaks an invariant, or null when it keeps them all. */
    static String violated(final MoveState state, final boolean terminal)
    {
        String why = chainCasFailed(state);
        if (why == null)
        {
            why = blocksBeforeSlots(state);
        }
        // a handover moves the chain writers decide on with the seal; the design with the phase
        final boolean before = state.scope.variant().handsOver() ? !state.sealed() :
            state.phase().ordinal() <= Phase.SWITCH.ordinal();
        final int[] chain = before ? state.placement().before() : state.placement().after();
        if (why == null)
        {
            why = chainShape(state, chain);
        }
        if (why == null)
        {
            why = acknowledgedWritesStay(state, chain);
        }
        if (why == null)
        {
            why = settledInSwitch(state);
        }
        if (why == null && terminal)
        {
            why = settledAtRest(state);
        }
        return why;
    }

    /** A CAS in a writer's chain fails only once the tail it won has died, and no replica dies here. */
    private static String chainCasFailed(final MoveState state)
    {
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            if (state.pc(writer) == MoveState.STUCK)
            {
                return "W" + writer + " (in " + state.view(writer) + ") found " +
                    MoveWriter.name(state, state.aux(writer)) + " changed since it read it, with its tail won: " +
                    state.nodesToString();
            }
        }
        return null;
    }

    private static String blocksBeforeSlots(final MoveState state)
    {
        for (int node = 0; node < state.placement().nodes(); node++)
        {
            final int value = state.slot(node);
            if (value != MoveState.ABSENT && !state.holdsBlock(node, value))
            {
                return MoveWriter.name(state, node) + "'s slot names write " + value + " whose block it does not hold";
            }
        }
        return null;
    }

    /** From head to tail at most two writes, the newer on a suffix ending at the tail. */
    private static String chainShape(final MoveState state, final int[] chain)
    {
        int changes = 0;
        for (int i = 1; i < chain.length; i++)
        {
            final int previous = state.slot(chain[i - 1]);
            final int value = state.slot(chain[i]);
            if (value != previous && (++changes > 1 || state.winOrder(value) < state.winOrder(previous)))
            {
                return "the chain " + state.nodesToString() + " has older write " + MoveWriter.value(value) +
                    " after " + MoveWriter.value(previous);
            }
        }
        return null;
    }

    /** Once a write is acknowledged every replica of the chain names it or a write that won a tail after it. */
    private static String acknowledgedWritesStay(final MoveState state, final int[] chain)
    {
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            if (state.status(writer - 1) != History.OK)
            {
                continue;
            }
            for (final int node : chain)
            {
                final int value = state.slot(node);
                if (value != writer && state.winOrder(value) <= state.winOrder(writer))
                {
                    return "write " + writer + " was acknowledged but " + MoveWriter.name(state, node) + " names " +
                        MoveWriter.value(value) + ": " + state.nodesToString();
                }
            }
        }
        return null;
    }

    /** Before CLEANUP's writers start, both heads, and every other node, name the same write. */
    private static String settledInSwitch(final MoveState state)
    {
        if (state.phase() != Phase.SWITCH || state.driverPc() != MoveState.WORK_DONE ||
            state.scope.variant().handsOver())
        {
            // under a handover writers go on once the key is sealed: its replicas after agree at rest (below)
            return null;
        }
        for (int node = 1; node < state.placement().nodes(); node++)
        {
            if (state.slot(node) != state.slot(0))
            {
                return "SWITCH is settled but the nodes disagree: " + state.nodesToString();
            }
        }
        return null;
    }

    /** When every client is done and none crashed, the replicas after the change agree. */
    private static String settledAtRest(final MoveState state)
    {
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            if (state.crashed(writer))
            {
                return null;
            }
        }
        final int[] after = state.placement().after();
        for (final int node : after)
        {
            if (state.slot(node) != state.slot(after[0]))
            {
                return "all clients are done but the replicas after the change disagree: " + state.nodesToString();
            }
        }
        return null;
    }
}
