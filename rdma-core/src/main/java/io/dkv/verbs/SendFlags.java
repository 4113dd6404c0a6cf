package io.dkv.verbs;

/**
 * Send work request flags, with the values of {@code enum ibv_send_flags}.
 */
public final class SendFlags
{
    /** Wait for earlier RDMA READs and atomics on this QP to complete before starting. */
    public static final int FENCE = 1;
    /** Produce a work completion on success (errors always produce one). */
    public static final int SIGNALED = 1 << 1;
    /** Mark the message solicited for the receiver's event. */
    public static final int SOLICITED = 1 << 2;
    /** Copy the payload at post time; the buffer may be reused as soon as post returns. */
    public static final int INLINE = 1 << 3;

    private SendFlags()
    {
    }
}
