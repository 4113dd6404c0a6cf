package io.dkv.verbs.soft;

import io.dkv.verbs.WcOpcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;

/**
 * What a responder is: a queue pair or a DC target, found by its number in the device's table.
 * It owns where incoming messages land (its receive queue or an SRQ) and where their completions go.
 */
public abstract class SoftEndpoint
{
    protected final SoftDevice device;
    protected final SoftProtectionDomain pd;
    protected final int number;
    protected final SoftCompletionQueue recvCq;
    protected final SoftSharedReceiveQueue srq;
    protected final ReceiveQueue rq;

    protected SoftEndpoint(
        final SoftDevice device,
        final SoftProtectionDomain pd,
        final int number,
        final SoftCompletionQueue recvCq,
        final SoftSharedReceiveQueue srq,
        final ReceiveQueue rq)
    {
        this.device = device;
        this.pd = pd;
        this.number = number;
        this.recvCq = recvCq;
        this.srq = srq;
        this.rq = rq;
    }

    public final int number()
    {
        return number;
    }

    public final SoftProtectionDomain pd()
    {
        return pd;
    }

    public final SoftDevice softDevice()
    {
        return device;
    }

    /** @return the access flags this responder grants to remote requests. */
    public abstract int responderAccess();

    /** @return true when requests addressed to this endpoint may execute now. */
    public abstract boolean acceptsRequests();

    /**
     * Take the oldest posted receive request.
     *
     * @param into receives a copy.
     * @return false when none is posted (the sender must retry: receiver not ready).
     */
    public final boolean takeReceive(final ReceiveSlot into)
    {
        return srq != null ? srq.queue().take(into) : rq != null && rq.take(into);
    }

    /**
     * Complete a receive request taken with {@link #takeReceive}.
     */
    public final void completeReceive(
        final ReceiveSlot slot,
        final WcStatus status,
        final boolean rdmaWithImm,
        final boolean withImm,
        final int byteLen,
        final int immData,
        final int srcQp)
    {
        completeReceive(slot, status, rdmaWithImm, withImm, byteLen, immData, srcQp, 0);
    }

    /**
     * As {@link #completeReceive(ReceiveSlot, WcStatus, boolean, boolean, int, int, int)}, with more
     * {@code wc_flags} ({@link WorkCompletion#GRH} for a datagram).
     */
    public final void completeReceive(
        final ReceiveSlot slot,
        final WcStatus status,
        final boolean rdmaWithImm,
        final boolean withImm,
        final int byteLen,
        final int immData,
        final int srcQp,
        final int flags)
    {
        if (recvCq != null)
        {
            recvCq.push(
                slot.wrId,
                status,
                rdmaWithImm ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV,
                byteLen,
                withImm ? immData : 0,
                number,
                srcQp,
                (withImm ? WorkCompletion.WITH_IMM : 0) | flags);
        }
        if (status != WcStatus.SUCCESS)
        {
            onReceiveError(status);
        }
    }

    /** A receive failed on this responder's side (buffer too small, bad key). */
    protected void onReceiveError(final WcStatus status)
    {
    }
}
