package io.dkv.client.txn;

/**
 * One key as the replication layer below presents it: a linearizable register of a content and the version (write id)
 * that put it there, changed only by a compare-and-set from the version. A compare-and-set whose outcome its client did
 * not learn may be in flight ({@code late}): it reached the chain's tail but not its head, so readers still see the
 * old content until it lands, which it does before any other compare-and-set of the key can (the next writer rolls it
 * forward).
 *
 * @param version     the write id of the content: 0 for the initial one (and, in a variant whose store gives a key
 *                    with no value no write id, for every none).
 * @param content     what readers see.
 * @param lateVersion the write id of the compare-and-set in flight, or 0.
 * @param late        its content, or null when none is in flight.
 */
record Slot(int version, Content content, int lateVersion, Content late)
{
    static final Slot INITIAL = new Slot(0, new Content.Plain(Values.NONE), 0, null);

    static Slot of(final int version, final Content content)
    {
        return new Slot(version, content, 0, null);
    }

    boolean hasLate()
    {
        return late != null;
    }

    Slot withLate(final int version, final Content content)
    {
        return new Slot(this.version, this.content, version, content);
    }

    String describe(final TxnScope scope)
    {
        return scope.version(version) + ":" + content +
            (late == null ? "" : " (in flight: " + scope.version(lateVersion) + ":" + late + ")");
    }
}
