package io.dkv.load.check.nemesis;

import java.util.List;

/**
 * A change of the memory tier, as an operator makes one while clients run ({@link MemoryTierChanges}): it waits until
 * its change is over, uninterrupted, since a change left half done would hold the tier in its phase. Asked both, the
 * nemesis adds and drains in turn, whichever of the two it drew.
 */
abstract class MemoryTierFault extends FaultKind
{
    MemoryTierFault(final String name)
    {
        super(name, Trait.READS_MEMBERSHIP, Trait.CHANGES_MEMORY_TIER, Trait.RUNS_TO_ITS_END);
    }

    final String unfit(final List<FaultKind> asked, final NemesisTargets targets)
    {
        return targets.tier().changes() ? null :
            AddMemoryFault.NAME + " and " + DrainMemoryFault.NAME + " need memory nodes to change: " + asked;
    }

    final FaultKind inTurn(final List<FaultKind> asked, final NemesisTargets targets)
    {
        final boolean both =
            FaultKinds.asks(asked, AddMemoryFault.NAME) && FaultKinds.asks(asked, DrainMemoryFault.NAME);
        return both ? FaultKinds.named(targets.tier().next()) : this;
    }

    final void strike(final Nemesis nemesis, final Strike strike)
    {
        final NemesisEvent event = change(nemesis.targets().tier(), strike.pick());
        if (event != null)
        {
            nemesis.caused(event);
        }
    }

    /**
     * Make the change and wait until it is over.
     *
     * @param pick picks the member to change, where the change picks one.
     * @return what happened, or null when it was skipped (logged with the reason).
     */
    abstract NemesisEvent change(MemoryTierChanges tier, int pick);
}
