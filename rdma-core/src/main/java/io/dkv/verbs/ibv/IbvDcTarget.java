package io.dkv.verbs.ibv;

import io.dkv.verbs.DcTarget;
import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvConstants.IBV_QPS_INIT;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QPS_RTR;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_ACCESS_FLAGS;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_AV;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_MIN_RNR_TIMER;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_PATH_MTU;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_PKEY_INDEX;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_PORT;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QP_STATE;
import static io.dkv.verbs.ibv.IbvConstants.MLX5DV_DCTYPE_DCT;
import static io.dkv.verbs.ibv.IbvLayout.AH_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.QP;
import static io.dkv.verbs.ibv.IbvLayout.QP_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.QP_INIT_ATTR_EX;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A DC target of an mlx5 RNIC, created ready: in RTR (a target never sends), its SENDs landing in its SRQ.
 */
final class IbvDcTarget implements DcTarget
{
    private final IbvProtectionDomain pd;
    private final IbvFunctions functions;
    private final MemorySegment qp;
    private final int dctNumber;
    private final long dcKey;
    private boolean closed;

    private IbvDcTarget(
        final IbvProtectionDomain pd, final IbvFunctions functions, final MemorySegment qp, final long dcKey)
    {
        this.pd = pd;
        this.functions = functions;
        this.qp = qp.reinterpret(QP.byteSize());
        this.dctNumber = this.qp.get(JAVA_INT, offset(QP, "qp_num"));
        this.dcKey = dcKey;
    }

    static IbvDcTarget create(
        final IbvProtectionDomain pd, final IbvFunctions functions, final DctInitAttributes attributes)
    {
        if (attributes.cq() == null || attributes.srq() == null)
        {
            throw new VerbsException("a DC target needs a completion queue and an SRQ");
        }
        MemorySegment qp = MemorySegment.NULL;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment init = call.allocate(QP_INIT_ATTR_EX);
            final MemorySegment cq = ((IbvCompletionQueue)attributes.cq()).cq();
            init.set(ADDRESS, offset(QP_INIT_ATTR_EX, "send_cq"), cq);
            init.set(ADDRESS, offset(QP_INIT_ATTR_EX, "recv_cq"), cq);
            init.set(ADDRESS, offset(QP_INIT_ATTR_EX, "srq"), ((IbvSharedReceiveQueue)attributes.srq()).srq());
            qp = DcQueuePairs.create(pd, functions, init, MLX5DV_DCTYPE_DCT, attributes.dcKey(), "DC target", call);
            final IbvDcTarget target = new IbvDcTarget(pd, functions, qp, attributes.dcKey());
            target.ready(call, attributes.accessFlags());
            return target;
        }
        catch (final Throwable ex)
        {
            if (!qp.equals(MemorySegment.NULL))
            {
                try
                {
                    final int ignored = (int)functions.destroyQp.invokeExact(qp);
                }
                catch (final Throwable suppressed)
                {
                    ex.addSuppressed(suppressed);
                }
            }
            throw IbvFunctions.unexpected("creating a DC target", ex);
        }
    }

    /** INIT with the remote access it grants, then RTR from this port's GID. */
    private void ready(final Arena call, final int accessFlags) throws Throwable
    {
        final IbvDevice device = pd.ibvDevice();
        final MemorySegment init = call.allocate(QP_ATTR);
        init.set(JAVA_INT, offset(QP_ATTR, "qp_state"), IBV_QPS_INIT);
        init.set(JAVA_BYTE, offset(QP_ATTR, "port_num"), (byte)device.port());
        init.set(JAVA_INT, offset(QP_ATTR, "qp_access_flags"), accessFlags);
        modify(init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT");

        final MemorySegment rtr = call.allocate(QP_ATTR);
        rtr.set(JAVA_INT, offset(QP_ATTR, "qp_state"), IBV_QPS_RTR);
        rtr.set(JAVA_INT, offset(QP_ATTR, "path_mtu"), device.activeMtu());
        rtr.set(JAVA_BYTE, offset(QP_ATTR, "min_rnr_timer"), (byte)IbvQueuePairBase.MIN_RNR_TIMER);
        final MemorySegment av = rtr.asSlice(offset(QP_ATTR, "ah_attr"), AH_ATTR.byteSize());
        pd.addressVector(av, device.address());
        modify(rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER, "RTR");
    }

    private void modify(final MemorySegment attr, final int mask, final String state) throws Throwable
    {
        IbvFunctions.checked((int)functions.modifyQp.invokeExact(qp, attr, mask), "ibv_modify_qp(DC target 0x" +
            Integer.toHexString(dctNumber) + " -> " + state + ")");
    }

    public int dctNumber()
    {
        return dctNumber;
    }

    public long dcKey()
    {
        return dcKey;
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        pd.disown(this);
        IbvFunctions.destroy(functions.destroyQp, qp, "ibv_destroy_qp(DC target 0x" +
            Integer.toHexString(dctNumber) + ")");
    }
}
