package io.dkv.verbs.ibv;

import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvConstants.IBV_QPT_RC;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QPT_UD;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_ACCESS_FLAGS;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_AV;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_DEST_QPN;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_MAX_DEST_RD_ATOMIC;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_MIN_RNR_TIMER;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_PATH_MTU;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_QKEY;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_RQ_PSN;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_SQ_PSN;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_STATE;
import static io.dkv.verbs.ibv.IbvLayout.QP_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.QP_INIT_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * An RC or UD queue pair of an RNIC ({@code ibv_create_qp}): send requests are written out as {@code ibv_send_wr}
 * lists and posted through the context's {@code post_send}, as the static inline {@code ibv_post_send} does.
 */
final class IbvQueuePair extends IbvQueuePairBase
{
    /** Bytes a request may carry inline: what every RNIC dkv targets accepts. */
    static final int MAX_INLINE_DATA = 64;

    private final SendPoster sends;

    private IbvQueuePair(
        final IbvProtectionDomain pd, final IbvFunctions functions, final MemorySegment qp,
        final QpInitAttributes attributes)
    {
        super(pd, functions, qp, attributes.type(), attributes.srq() == null ? attributes.maxRecvWr() : 0,
            attributes.maxRecvSge());
        sends = new SendPoster(pd.ibvDevice().postSend, this.qp, attributes.maxSendWr(), attributes.maxSendSge(),
            arena, attributes.type() + " QP 0x" + Integer.toHexString(qpNum()));
    }

    static IbvQueuePair create(
        final IbvProtectionDomain pd, final IbvFunctions functions, final QpInitAttributes attributes)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment init = call.allocate(QP_INIT_ATTR);
            init.set(ADDRESS, offset(QP_INIT_ATTR, "send_cq"), ((IbvCompletionQueue)attributes.sendCq()).cq());
            init.set(ADDRESS, offset(QP_INIT_ATTR, "recv_cq"), ((IbvCompletionQueue)attributes.recvCq()).cq());
            if (attributes.srq() != null)
            {
                init.set(ADDRESS, offset(QP_INIT_ATTR, "srq"), ((IbvSharedReceiveQueue)attributes.srq()).srq());
            }
            capabilities(init, offset(QP_INIT_ATTR, "cap"), attributes);
            init.set(JAVA_INT, offset(QP_INIT_ATTR, "qp_type"), attributes.type() == QpType.RC ? IBV_QPT_RC :
                IBV_QPT_UD);
            init.set(JAVA_INT, offset(QP_INIT_ATTR, "sq_sig_all"), attributes.sqSigAll() ? 1 : 0);
            final MemorySegment state = IbvFunctions.callState(call);
            final MemorySegment qp = IbvFunctions.checked(
                (MemorySegment)functions.createQp.invokeExact(state, pd.pd(), init), state,
                "ibv_create_qp(" + attributes.type() + ", send " + attributes.maxSendWr() + "x" +
                attributes.maxSendSge() + ", recv " + attributes.maxRecvWr() + "x" + attributes.maxRecvSge() + ")");
            return new IbvQueuePair(pd, functions, qp, attributes);
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_create_qp", ex);
        }
    }

    /** Write an {@code ibv_qp_cap} at {@code at}. */
    static void capabilities(final MemorySegment init, final long at, final QpInitAttributes attributes)
    {
        init.set(JAVA_INT, at + offset(IbvLayout.QP_CAP, "max_send_wr"), attributes.maxSendWr());
        init.set(JAVA_INT, at + offset(IbvLayout.QP_CAP, "max_recv_wr"),
            attributes.srq() == null ? attributes.maxRecvWr() : 0);
        init.set(JAVA_INT, at + offset(IbvLayout.QP_CAP, "max_send_sge"), attributes.maxSendSge());
        init.set(JAVA_INT, at + offset(IbvLayout.QP_CAP, "max_recv_sge"),
            attributes.srq() == null ? attributes.maxRecvSge() : 0);
        init.set(JAVA_INT, at + offset(IbvLayout.QP_CAP, "max_inline_data"),
            Math.min(attributes.maxInlineData(), MAX_INLINE_DATA));
    }

    int fill(final MemorySegment attr, final QpAttributes attributes)
    {
        final boolean rc = type() == QpType.RC;
        switch (attributes.state())
        {
            case INIT:
                if (rc)
                {
                    attr.set(JAVA_INT, offset(QP_ATTR, "qp_access_flags"), attributes.accessFlags());
                    return IBV_QP_STATE | portAndPkey(attr) | IBV_QP_ACCESS_FLAGS;
                }
                attr.set(JAVA_INT, offset(QP_ATTR, "qkey"), attributes.qkey());
                return IBV_QP_STATE | portAndPkey(attr) | IBV_QP_QKEY;

            case RTR:
                if (!rc)
                {
                    return IBV_QP_STATE;
                }
                final PortAddress destination = attributes.destAddress();
                if (destination == null)
                {
                    throw new VerbsException("RC QP 0x" + Integer.toHexString(qpNum()) + " to RTR needs the " +
                        "remote port's address and QP number");
                }
                pd.addressVector(attr.asSlice(offset(QP_ATTR, "ah_attr"), IbvLayout.AH_ATTR.byteSize()), destination);
                attr.set(JAVA_INT, offset(QP_ATTR, "path_mtu"),
                    Math.min(pd.ibvDevice().activeMtu(), destination.verbsMtu()));
                attr.set(JAVA_INT, offset(QP_ATTR, "dest_qp_num"), attributes.destQpn());
                attr.set(JAVA_INT, offset(QP_ATTR, "rq_psn"), 0);
                attr.set(JAVA_BYTE, offset(QP_ATTR, "max_dest_rd_atomic"), (byte)rdAtomic());
                attr.set(JAVA_BYTE, offset(QP_ATTR, "min_rnr_timer"), (byte)MIN_RNR_TIMER);
                return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;

            case RTS:
                if (!rc)
                {
                    attr.set(JAVA_INT, offset(QP_ATTR, "sq_psn"), 0);
                    return IBV_QP_STATE | IBV_QP_SQ_PSN;
                }
                return IBV_QP_STATE | sendTimers(attr);

            default:
                return IBV_QP_STATE;
        }
    }

    public void postSend(final SendWorkRequest wr)
    {
        sends.post(wr);
    }
}
