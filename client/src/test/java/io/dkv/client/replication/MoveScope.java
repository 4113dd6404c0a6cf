package io.dkv.client.replication;

/**
 * How much the explorer covers of one key whose placement moves: two writers of one put each, {@code readers}
 * readers of one get each, and the driver of the change, each client acting on its own view of the phase.
 *
 * @param placement       the key's replicas before and after the change.
 * @param writerCrashes   how many writers may crash, at any step after they invoke.
 * @param readers         how many readers there are, each reading once.
 * @param attempts        how many times a writer may try before it gives up and reports failure.
 * @param readersRefresh  whether a reader in SWITCH whose two heads differ may read the membership again before it
 *                        reads them again, as the design has it.
 * @param variant         the design, or a broken form of it.
 */
record MoveScope(Placement placement, int writerCrashes, int readers, int attempts, boolean readersRefresh,
    MoveVariant variant)
{
    MoveScope
    {
        if (readers < 1 || readers > 2 || attempts < 1 || attempts > 3 || writerCrashes < 0 ||
            writerCrashes > Scope.WRITERS)
        {
            throw new IllegalArgumentException("scope out of range: writerCrashes=" + writerCrashes + " readers=" +
                readers + " attempts=" + attempts);
        }
    }

    MoveScope with(final MoveVariant other)
    {
        return new MoveScope(placement, writerCrashes, readers, attempts, readersRefresh, other);
    }

    MoveScope withoutReadersRefresh()
    {
        return new MoveScope(placement, writerCrashes, readers, attempts, false, variant);
    }

    int operations()
    {
        return Scope.WRITERS + readers;
    }

    /** @return how many phases a client may lag the driver by. */
    int lag()
    {
        return variant == MoveVariant.TWO_PHASES_APART ? 2 : 1;
    }

    /** @return the phase the driver moves to from {@code phase}. */
    Phase next(final Phase phase)
    {
        return phase == Phase.FILL && variant == MoveVariant.SKIP_SWITCH ?
            Phase.CLEANUP : Phase.of(phase.ordinal() + 1);
    }

    /** @return how far into the change a phase is, counting only the phases the driver goes through. */
    int position(final Phase phase)
    {
        return phase.ordinal() > Phase.SWITCH.ordinal() && variant == MoveVariant.SKIP_SWITCH ?
            phase.ordinal() - 1 : phase.ordinal();
    }

    @Override
    public String toString()
    {
        return placement + " writerCrashes=" + writerCrashes + " readers=" + readers + " attempts=" + attempts +
            (readersRefresh ? "" : " readers keep their view") + " " + variant;
    }
}
