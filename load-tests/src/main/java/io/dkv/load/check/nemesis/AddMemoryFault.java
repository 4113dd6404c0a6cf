package io.dkv.load.check.nemesis;

/**
 * A memory node started with {@code --join} (a node id never used, a data directory of its own), which moves keys to
 * itself through the change's phases; the tier grows to a bound at most. Struck after as the other memory nodes.
 */
final class AddMemoryFault extends MemoryTierFault
{
    static final String NAME = "add-memory";

    AddMemoryFault()
    {
        super(NAME);
    }

    NemesisEvent change(final MemoryTierChanges tier, final int pick)
    {
        return tier.add();
    }
}
