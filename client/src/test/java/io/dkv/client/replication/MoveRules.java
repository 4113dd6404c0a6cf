package io.dkv.client.replication;

/**
 * Which placement a writer's put chains over and which members it forces while a key's placement moves, and whether
 * a CAS lands: by the writer's view of the phase, and under {@link MoveVariant#HANDOVER} by the seal on the key's
 * tail before the change, which a CAS over the placement before expects absent and one over the placement after
 * expects present (and keeps).
 */
final class MoveRules
{
    private MoveRules()
    {
    }

    /**
     * @return whether the writer's put chains over the placement after the change: by its view, or in SWITCH under
     * {@link MoveVariant#HANDOVER} by the seal it read.
     */
    static boolean chainsAfter(final MoveState state, final int writer)
    {
        final Phase view = state.view(writer);
        if (view == Phase.SWITCH && state.scope.variant().handsOver())
        {
            return state.rule(writer) == MoveState.RULE_AFTER;
        }
        return view.ordinal() > Phase.SWITCH.ordinal();
    }

    /** @return the replicas the writer's put chains over, head first; the last is the tail it must win. */
    static int[] serving(final MoveState state, final int writer)
    {
        return chainsAfter(state, writer) ? state.placement().after() : state.placement().before();
    }

    /** @return the members the writer's put forces its write onto right after winning the tail. */
    static int[] forced(final MoveState state, final int writer)
    {
        final Phase view = state.view(writer);
        if (view == Phase.SWITCH && state.scope.variant().handsOver())
        {
            return chainsAfter(state, writer) ? state.placement().leaving() : state.placement().entering();
        }
        return switch (view)
        {
            case FILL -> state.placement().entering();
            case CLEANUP -> state.scope.variant() == MoveVariant.CLEANUP_SKIPS_LEAVING ?
                new int[0] : state.placement().leaving();
            default -> new int[0];
        };
    }

    /** @return the tail of the placement before the change: the node a handover seals. */
    static int beforeTail(final MoveState state)
    {
        final int[] before = state.placement().before();
        return before[before.length - 1];
    }

    /**
     * @return whether a CAS from {@code expected} lands on the node now. Under a handover the tail before the change
     * is sealed once: a CAS of a chain over the placement before expects it unsealed, one over the placement after
     * expects it sealed (and keeps the seal).
     */
    static boolean lands(final MoveState state, final boolean chainsAfter, final int node, final int expected)
    {
        if (state.slot(node) != expected)
        {
            return false;
        }
        if (!state.scope.variant().handsOver() || node != beforeTail(state))
        {
            return true;
        }
        return chainsAfter ? state.sealed() || state.scope.variant() == MoveVariant.HANDOVER_DROPS_SEAL :
            !state.sealed();
    }

    /** A CAS that {@link #lands}: the node names the value, sealed as it was (unless the broken variant drops it). */
    static void land(final MoveState next, final boolean chainsAfter, final int node, final int value)
    {
        next.slot(node, value);
        if (chainsAfter && node == beforeTail(next) && next.scope.variant() == MoveVariant.HANDOVER_DROPS_SEAL)
        {
            next.sealed(false);
        }
    }

    /**
     * @return whether forcing READs the member, READs the tail and CASes the member from the word read only while the
     * tail names the write, as the built client does: under {@link MoveVariant#FORCE_WHILE_TAIL_NAMES_IT} and every
     * handover (a later force landing over a newer write would be sealed in at one copy).
     */
    static boolean forcesWhileTailNamesIt(final MoveState state)
    {
        return state.scope.variant() == MoveVariant.FORCE_WHILE_TAIL_NAMES_IT || state.scope.variant().handsOver();
    }
}
