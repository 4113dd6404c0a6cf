package io.dkv.raas;

/**
 * Flags of RaaS calls. Zero means adaptive: RaaS picks transport, opcode and copy or
 * registration from the message size and its measured thresholds. Experts may force each choice.
 */
public final class Flags
{
    /** Let RaaS choose everything. */
    public static final int ADAPTIVE = 0;

    /**
     * Use a dedicated RC queue pair to the peer: promote now, and again until it holds, rather than when the peer turns
     * hot.
     */
    public static final int FORCE_RC = 1;
    /** Use the shared DC initiators even for a hot peer. */
    public static final int FORCE_DC = 1 << 1;
    /** Send messages as UD datagrams (at most one MTU). */
    public static final int FORCE_UD = 1 << 2;

    /** Carry the message in a SEND into the receiver's shared receive queue. */
    public static final int USE_SEND = 1 << 4;
    /** WRITE_WITH_IMM the message into the buffer the receiver advertised. */
    public static final int USE_WRITE = 1 << 5;
    /** Let the receiver READ the message from the sender's registered buffer. */
    public static final int USE_READ = 1 << 6;

    /** Carry the payload inline in the work request (small messages only). */
    public static final int INLINE = 1 << 8;
    /** Copy the caller's bytes into registered memory. */
    public static final int COPY = 1 << 9;
    /** Register the caller's memory and send from it directly. */
    public static final int REGISTER = 1 << 10;

    static final int TRANSPORT_MASK = FORCE_RC | FORCE_DC | FORCE_UD;
    static final int OPCODE_MASK = USE_SEND | USE_WRITE | USE_READ;
    static final int KNOWN = TRANSPORT_MASK | OPCODE_MASK | INLINE | COPY | REGISTER;

    private Flags()
    {
    }

    /**
     * @throws RaasException when flags contradict each other or are unknown.
     */
    public static void validate(final int flags)
    {
        if ((flags & ~KNOWN) != 0)
        {
            throw new RaasException(String.format("unknown flags 0x%x", flags & ~KNOWN));
        }
        if (Integer.bitCount(flags & TRANSPORT_MASK) > 1)
        {
            throw new RaasException(String.format("flags 0x%x force more than one transport", flags));
        }
        if (Integer.bitCount(flags & OPCODE_MASK) > 1)
        {
            throw new RaasException(String.format("flags 0x%x force more than one opcode", flags));
        }
        if ((flags & COPY) != 0 && (flags & REGISTER) != 0)
        {
            throw new RaasException(String.format("flags 0x%x ask to both copy and register", flags));
        }
    }
}
