package io.dkv.client.replication;

/**
 * The phases a moving key goes through while its placement changes (client/README.md, "Membership change"), in
 * order. A client acts on the phase of the membership it read last, its view, which lags the driver's.
 */
enum Phase
{
    /** Writers chain over the placement before the change; readers read its head. */
    STEADY_BEFORE,

    /** As before, and writers force their write onto the members entering the placement; the driver fills them. */
    FILL,

    /** No write starts; readers answer once the heads of both placements name the same write. */
    SWITCH,

    /** Writers chain over the placement after the change and force the members leaving it; readers read its head. */
    CLEANUP,

    /** Writers chain over the placement after the change; the members leaving it are no longer written. */
    STEADY_AFTER;

    private static final Phase[] PHASES = values();

    static Phase of(final int ordinal)
    {
        return PHASES[ordinal];
    }
}
