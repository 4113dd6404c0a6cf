package io.dkv.verbs;

/**
 * Work completion opcodes, as {@code enum ibv_wc_opcode}.
 */
public enum WcOpcode
{
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    RECV(128),
    RECV_RDMA_WITH_IMM(129);

    private static final WcOpcode[] VALUES = values();

    private final int code;

    WcOpcode(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
    }

    /**
     * @param ordinal as stored in a completion queue entry.
     * @return the opcode with that ordinal.
     */
    public static WcOpcode fromOrdinal(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
