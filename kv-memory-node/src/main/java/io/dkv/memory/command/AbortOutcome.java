package io.dkv.memory.command;

import io.dkv.raas.Membership;

/**
 * Whether a membership read back is the outcome of aborting a given change: what a driver whose abort got no answer,
 * and whose retry was refused because no change runs any more, needs to know before it calls the change aborted.
 * <p>
 * An abort goes back to STEADY over the before placement, in a later epoch: every member placed after only (being
 * added) is gone, every member placed before only (being drained) is placed again. The change completing instead
 * leaves the opposite (the added placed, the drained gone), and a change moves at least one member, so the two are
 * never taken for each other. A change begun after the abort that moved one of the same members is not recognised
 * either: the driver then reports the refusal, as before.
 */
final class AbortOutcome
{
    private AbortOutcome()
    {
    }

    /**
     * @param changing the membership the abort was asked of: in FILL or SWITCH.
     * @param now      the membership read after the abort's retry was refused.
     * @return true when {@code now} is what aborting {@code changing} leaves.
     */
    static boolean tookEffect(final Membership changing, final Membership now)
    {
        if (now.phase() != Membership.STEADY || now.epoch() <= changing.epoch())
        {
            return false;
        }
        boolean moved = false;
        for (final long id : changing.memberIds())
        {
            final int placement = changing.placement(id);
            if (placement == Membership.PLACED_AFTER)
            {
                moved = true;
                if (now.state(id) != 0)
                {
                    return false;
                }
            }
            else if (placement == Membership.PLACED_BEFORE)
            {
                moved = true;
                if (now.placement(id) != Membership.PLACED)
                {
                    return false;
                }
            }
        }
        return moved;
    }
}
