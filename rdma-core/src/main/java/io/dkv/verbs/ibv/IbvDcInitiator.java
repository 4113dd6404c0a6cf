package io.dkv.verbs.ibv;

import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.SendWorkRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_EX_WITH_RDMA_READ;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_EX_WITH_RDMA_WRITE;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_EX_WITH_SEND;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_EX_WITH_SEND_WITH_IMM;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_PATH_MTU;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_STATE;
import static io.dkv.verbs.ibv.IbvConstants.MLX5DV_DCTYPE_DCI;
import static io.dkv.verbs.ibv.IbvLayout.QP_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.QP_INIT_ATTR_EX;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A DC initiator of an mlx5 RNIC: requests are built with the extended queue pair's {@code wr_*} function pointers,
 * each addressed to its target with mlx5dv's {@code wr_set_dc_addr}, and rung in one doorbell by {@code wr_complete}.
 */
final class IbvDcInitiator extends IbvQueuePairBase
{
    private static final int SEND_OPS = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
        IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
        IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;

    private final DcRequestWriter writer;

    private IbvDcInitiator(
        final IbvProtectionDomain pd,
        final IbvFunctions functions,
        final MemorySegment qp,
        final MemorySegment qpEx,
        final MemorySegment dvQpEx,
        final QpInitAttributes attributes)
    {
        super(pd, functions, qp, QpType.DCI, 0, 0);
        writer = new DcRequestWriter(qpEx, dvQpEx, qpNum(), attributes.maxSendWr(), attributes.maxSendSge(),
            Math.min(attributes.maxInlineData(), IbvQueuePair.MAX_INLINE_DATA), arena);
    }

    static IbvDcInitiator create(
        final IbvProtectionDomain pd, final IbvFunctions functions, final QpInitAttributes attributes)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment init = call.allocate(QP_INIT_ATTR_EX);
            final MemorySegment cq = ((IbvCompletionQueue)attributes.sendCq()).cq();
            init.set(ADDRESS, offset(QP_INIT_ATTR_EX, "send_cq"), cq);
            init.set(ADDRESS, offset(QP_INIT_ATTR_EX, "recv_cq"),
                attributes.recvCq() == null ? cq : ((IbvCompletionQueue)attributes.recvCq()).cq());
            final QpInitAttributes sendOnly = new QpInitAttributes().maxSendWr(attributes.maxSendWr())
                .maxSendSge(attributes.maxSendSge()).maxInlineData(attributes.maxInlineData()).maxRecvWr(0)
                .maxRecvSge(0);
            IbvQueuePair.capabilities(init, offset(QP_INIT_ATTR_EX, "cap"), sendOnly);
            init.set(JAVA_INT, offset(QP_INIT_ATTR_EX, "sq_sig_all"), attributes.sqSigAll() ? 1 : 0);
            init.set(JAVA_INT, offset(QP_INIT_ATTR_EX, "comp_mask"), IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
            init.set(JAVA_LONG, offset(QP_INIT_ATTR_EX, "send_ops_flags"), SEND_OPS);
            final MemorySegment qp = DcQueuePairs.create(pd, functions, init, MLX5DV_DCTYPE_DCI, 0, "DC initiator",
                call);
            final MemorySegment qpEx = (MemorySegment)functions.qpToQpEx.invokeExact(qp);
            final MemorySegment dvQpEx = (MemorySegment)functions.mlx5QpExFromIbvQpEx.invokeExact(qpEx);
            return new IbvDcInitiator(pd, functions, qp, qpEx, dvQpEx, attributes);
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("creating a DC initiator", ex);
        }
    }

    int fill(final MemorySegment attr, final QpAttributes attributes)
    {
        return switch (attributes.state())
        {
            case INIT -> IBV_QP_STATE | portAndPkey(attr);
            case RTR ->
            {
                attr.set(JAVA_INT, offset(QP_ATTR, "path_mtu"), pd.ibvDevice().activeMtu());
                yield IBV_QP_STATE | IBV_QP_PATH_MTU;
            }
            case RTS -> IBV_QP_STATE | sendTimers(attr);
            default -> IBV_QP_STATE;
        };
    }

    public void postSend(final SendWorkRequest first)
    {
        writer.post(first);
    }
}
