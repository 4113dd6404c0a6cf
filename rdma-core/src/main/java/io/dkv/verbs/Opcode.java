package io.dkv.verbs;

/**
 * Send work request opcodes, as {@code enum ibv_wr_opcode}.
 */
public enum Opcode
{
    RDMA_WRITE(0, WcOpcode.RDMA_WRITE),
    RDMA_WRITE_WITH_IMM(1, WcOpcode.RDMA_WRITE),
    SEND(2, WcOpcode.SEND),
    SEND_WITH_IMM(3, WcOpcode.SEND),
    RDMA_READ(4, WcOpcode.RDMA_READ),
    ATOMIC_CMP_AND_SWP(5, WcOpcode.COMP_SWAP),
    ATOMIC_FETCH_AND_ADD(6, WcOpcode.FETCH_ADD);

    private static final Opcode[] BY_CODE = values();

    private final int code;
    private final WcOpcode completionOpcode;

    Opcode(final int code, final WcOpcode completionOpcode)
    {
        this.code = code;
        this.completionOpcode = completionOpcode;
    }

    public int code()
    {
        return code;
    }

    /**
     * @return the opcode the sender's work completion reports for this request.
     */
    public WcOpcode completionOpcode()
    {
        return completionOpcode;
    }

    public boolean isTwoSided()
    {
        return this == SEND || this == SEND_WITH_IMM;
    }

    public boolean isAtomic()
    {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** @return true when the receiver consumes a receive work request for this opcode. */
    public boolean consumesReceive()
    {
        return this == SEND || this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    public boolean carriesImmediate()
    {
        return this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    /** @return true when the local scatter/gather list is the source of the data sent. */
    public boolean carriesPayload()
    {
        return this == SEND || this == SEND_WITH_IMM || this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM;
    }

    public static Opcode fromCode(final int code)
    {
        if (code < 0 || code >= BY_CODE.length)
        {
            return null;
        }
        return BY_CODE[code];
    }
}
