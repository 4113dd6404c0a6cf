package io.dkv.verbs;

/**
 * Queue pair states, as {@code enum ibv_qp_state} (SQD and SQE are not modelled).
 */
public enum QpState
{
    RESET,
    INIT,
    RTR,
    RTS,
    ERROR;

    private static final QpState[] VALUES = values();

    public static QpState fromOrdinal(final int ordinal)
    {
        return VALUES[ordinal];
    }

    /** @return true when a queue pair in this state accepts incoming requests. */
    public boolean canReceive()
    {
        return this == RTR || this == RTS;
    }
}
