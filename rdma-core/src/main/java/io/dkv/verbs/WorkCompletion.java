package io.dkv.verbs;

/**
 * A work completion, as {@code struct ibv_wc}: filled by {@link CompletionQueue#poll}, reused by
 * the caller across polls.
 */
public final class WorkCompletion
{
    /**
     * {@code wc_flags} bit: the receive buffer starts with the packet's global route header, {@link #GRH_LENGTH}
     * bytes before the message, as every datagram (UD) receive does: an RNIC puts it there, and the software
     * providers do the same so that code written against them is right on one.
     */
    public static final int GRH = 1;
    /** Bytes of the global route header at the start of a datagram's receive buffer. */
    public static final int GRH_LENGTH = 40;
    /** {@code wc_flags} bit: {@link #immData()} is valid. */
    public static final int WITH_IMM = 1 << 1;

    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int byteLen;
    private int immData;
    private int qpNum;
    private int srcQp;
    private int wcFlags;

    /**
     * Fill every field; called by providers when a completion is polled.
     */
    public void set(
        final long wrId,
        final WcStatus status,
        final WcOpcode opcode,
        final int byteLen,
        final int immData,
        final int qpNum,
        final int srcQp,
        final int wcFlags)
    {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLen = byteLen;
        this.immData = immData;
        this.qpNum = qpNum;
        this.srcQp = srcQp;
        this.wcFlags = wcFlags;
    }

    public long wrId()
    {
        return wrId;
    }

    public WcStatus status()
    {
        return status;
    }

    public boolean isSuccess()
    {
        return status == WcStatus.SUCCESS;
    }

    /**
     * Opcode of the completed request. As with ibverbs, it is meaningful for error completions
     * only when the provider knows it; flushed completions report the posted opcode here.
     */
    public WcOpcode opcode()
    {
        return opcode;
    }

    /** @return bytes transferred: received for RECV, read for RDMA_READ, 8 for atomics. */
    public int byteLen()
    {
        return byteLen;
    }

    public int immData()
    {
        return immData;
    }

    public boolean hasImm()
    {
        return (wcFlags & WITH_IMM) != 0;
    }

    /** @return whether the received bytes start with a {@link #GRH_LENGTH}-byte global route header. */
    public boolean hasGrh()
    {
        return (wcFlags & GRH) != 0;
    }

    /** @return number of the local queue pair (or DC target) this completion belongs to. */
    public int qpNum()
    {
        return qpNum;
    }

    /** @return for receive completions, the number of the sending queue pair. */
    public int srcQp()
    {
        return srcQp;
    }

    public int wcFlags()
    {
        return wcFlags;
    }

    public String toString()
    {
        return "wc{wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen +
            (hasImm() ? ", imm=0x" + Integer.toHexString(immData) : "") + ", qp=0x" + Integer.toHexString(qpNum) +
            ", srcQp=0x" + Integer.toHexString(srcQp) + '}';
    }
}
