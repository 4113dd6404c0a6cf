package io.dkv.verbs.ibv;

import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvConstants.IBV_QPT_DRIVER;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_INIT_ATTR_PD;
import static io.dkv.verbs.ibv.IbvConstants.MLX5DV_QP_INIT_ATTR_MASK_DC;
import static io.dkv.verbs.ibv.IbvLayout.MLX5DV_QP_INIT_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.QP_INIT_ATTR_EX;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Creates the DC queue pairs of mlx5 RNICs ({@code mlx5dv_create_qp}, type IBV_QPT_DRIVER), and refuses, saying why
 * and what to run instead, on an RNIC that has no DC transport.
 */
final class DcQueuePairs
{
    private DcQueuePairs()
    {
    }

    /** @return null when {@code device} can create DC queue pairs, else why not. */
    static String unavailableReason(final IbvDevice device, final IbvFunctions functions)
    {
        if (functions.mlx5Missing != null)
        {
            return functions.mlx5Missing;
        }
        if (!device.isMlx5())
        {
            return device.name() + " is not driven by mlx5 (DC transport is a ConnectX feature, reached through " +
                "mlx5dv)";
        }
        return null;
    }

    /**
     * @param init     a zeroed {@code ibv_qp_init_attr_ex} with the queues, capabilities and send operations set.
     * @param dcType   MLX5DV_DCTYPE_DCT or MLX5DV_DCTYPE_DCI.
     * @param dcKey    the target's access key (DCT only).
     * @param what     what is created, for errors.
     * @return the queue pair.
     */
    static MemorySegment create(
        final IbvProtectionDomain pd,
        final IbvFunctions functions,
        final MemorySegment init,
        final int dcType,
        final long dcKey,
        final String what,
        final Arena call) throws Throwable
    {
        final String reason = unavailableReason(pd.ibvDevice(), functions);
        if (reason != null)
        {
            throw new VerbsException("cannot create a " + what + ": " + reason + "; run RaaS without DC " +
                "(dkv.raas.rc.only=true on every node of the cluster)");
        }
        init.set(JAVA_INT, offset(QP_INIT_ATTR_EX, "qp_type"), IBV_QPT_DRIVER);
        init.set(JAVA_INT, offset(QP_INIT_ATTR_EX, "comp_mask"),
            init.get(JAVA_INT, offset(QP_INIT_ATTR_EX, "comp_mask")) | IBV_QP_INIT_ATTR_PD);
        init.set(ADDRESS, offset(QP_INIT_ATTR_EX, "pd"), pd.pd());
        final MemorySegment dv = call.allocate(MLX5DV_QP_INIT_ATTR);
        dv.set(JAVA_LONG, offset(MLX5DV_QP_INIT_ATTR, "comp_mask"), MLX5DV_QP_INIT_ATTR_MASK_DC);
        dv.set(JAVA_INT, offset(MLX5DV_QP_INIT_ATTR, "dc_init_attr", "dc_type"), dcType);
        dv.set(JAVA_LONG, offset(MLX5DV_QP_INIT_ATTR, "dc_init_attr", "anonymous_key", "dct_access_key"), dcKey);
        final MemorySegment state = IbvFunctions.callState(call);
        return IbvFunctions.checked((MemorySegment)functions.mlx5CreateQp.invokeExact(
            state, pd.ibvDevice().context(), init, dv), state, "mlx5dv_create_qp(" + what + ")");
    }
}
