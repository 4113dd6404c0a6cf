package io.dkv.verbs;

/**
 * Send work request opcodes, as {@code enum ibv_wr_opcode}: declared in its order, so that an opcode's
 * {@link #code()}, its ordinal, is its number there (RDMA_WRITE 0, RDMA_READ 4, ATOMIC_FETCH_AND_ADD 6).
 */
public enum Opcode
{
    RDMA_WRITE(WcOpcode.RDMA_WRITE),
    RDMA_WRITE_WITH_IMM(WcOpcode.RDMA_WRITE),
    SEND(WcOpcode.SEND),
    SEND_WITH_IMM(WcOpcode.SEND),
    RDMA_READ(WcOpcode.RDMA_READ),
    ATOMIC_CMP_AND_SWP(WcOpcode.COMP_SWAP),
    ATOMIC_FETCH_AND_ADD(WcOpcode.FETCH_ADD);

    private static final Opcode[] BY_CODE = values();

    private final WcOpcode completionOpcode;

    Opcode(final WcOpcode completionOpcode)
    {
        this.completionOpcode = completionOpcode;
    }

    public int code()
    {
        return ordinal();
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
