package io.dkv.verbs.ibv;

import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpState;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvConstants.IBV_QPS_ERR;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QPS_INIT;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QPS_RESET;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QPS_RTR;
import static io.dkv.verbs.ibv.IbvConstants.IBV_QPS_RTS;
import static io.dkv.verbs.ibv.IbvLayout.QP;
import static io.dkv.verbs.ibv.IbvLayout.QP_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * What RC, UD and DC initiator queue pairs of an RNIC share: the state machine through {@code ibv_modify_qp}, with
 * the attributes each transition of each type needs filled in from the device (port, MTU, retries), receive
 * requests through the context's {@code post_recv}, and destruction.
 */
abstract class IbvQueuePairBase implements QueuePair
{
    /** Transport timeout: 4.096 us x 2^14, about 67 ms per try. */
    static final int TIMEOUT = 14;
    static final int RETRY_COUNT = 7;
    /** 7: retry for as long as the receiver has no receive request. */
    static final int RNR_RETRY = 7;
    /** 12: 0.64 ms before a receiver-not-ready request is retried. */
    static final int MIN_RNR_TIMER = 12;
    /** RDMA READs and atomics outstanding per queue pair, at most. */
    static final int MAX_RD_ATOMIC = 16;

    final IbvProtectionDomain pd;
    final IbvFunctions functions;
    final MemorySegment qp;
    final Arena arena = Arena.ofShared();
    private final QpType type;
    private final int qpNum;
    private final RecvPoster recvs;
    private volatile QpState state = QpState.RESET;
    private boolean closed;

    IbvQueuePairBase(
        final IbvProtectionDomain pd,
        final IbvFunctions functions,
        final MemorySegment qp,
        final QpType type,
        final int maxRecvWr,
        final int maxRecvSge)
    {
        this.pd = pd;
        this.functions = functions;
        this.qp = qp.reinterpret(QP.byteSize());
        this.type = type;
        this.qpNum = this.qp.get(JAVA_INT, offset(QP, "qp_num"));
        recvs = maxRecvWr > 0 ? new RecvPoster(pd.ibvDevice().postRecv, this.qp, maxRecvWr, maxRecvSge, arena,
            type + " QP 0x" + Integer.toHexString(qpNum)) : null;
    }

    public int qpNum()
    {
        return qpNum;
    }

    public QpType type()
    {
        return type;
    }

    public QpState state()
    {
        return state;
    }

    public void modify(final QpAttributes attributes)
    {
        final QpState target = attributes.state();
        if (target == null)
        {
            throw new VerbsException("QP 0x" + Integer.toHexString(qpNum) + ": modify without a target state");
        }
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment attr = call.allocate(QP_ATTR);
            attr.set(JAVA_INT, offset(QP_ATTR, "qp_state"), stateCode(target));
            final int mask = fill(attr, attributes);
            IbvFunctions.checked((int)functions.modifyQp.invokeExact(qp, attr, mask), "ibv_modify_qp(" + type +
                " QP 0x" + Integer.toHexString(qpNum) + ", " + state + " -> " + target + ", mask 0x" +
                Integer.toHexString(mask) + ")");
            state = target;
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_modify_qp", ex);
        }
    }

    /**
     * Fill what the transition to {@code attributes.state()} needs for this type.
     *
     * @return the attribute mask, IBV_QP_STATE included.
     */
    abstract int fill(MemorySegment attr, QpAttributes attributes);

    public void postRecv(final RecvWorkRequest wr)
    {
        if (recvs == null)
        {
            throw new VerbsException("QP 0x" + Integer.toHexString(qpNum) + " receives through its SRQ");
        }
        recvs.post(wr);
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        pd.disown(this);
        try
        {
            IbvFunctions.destroy(functions.destroyQp, qp, "ibv_destroy_qp(0x" + Integer.toHexString(qpNum) + ")");
        }
        finally
        {
            arena.close();
        }
    }

    public String toString()
    {
        return type + " QP 0x" + Integer.toHexString(qpNum) + " (" + state + ")";
    }

    /** Port and partition key index: what INIT needs of every type. */
    final int portAndPkey(final MemorySegment attr)
    {
        attr.set(JAVA_BYTE, offset(QP_ATTR, "port_num"), (byte)pd.ibvDevice().port());
        attr.set(JAVA_SHORT, offset(QP_ATTR, "pkey_index"), (short)0);
        return IbvConstants.IBV_QP_PKEY_INDEX | IbvConstants.IBV_QP_PORT;
    }

    /** Send-side timers and counts: what RTS needs of RC and DC initiators. */
    final int sendTimers(final MemorySegment attr)
    {
        attr.set(JAVA_BYTE, offset(QP_ATTR, "timeout"), (byte)TIMEOUT);
        attr.set(JAVA_BYTE, offset(QP_ATTR, "retry_cnt"), (byte)RETRY_COUNT);
        attr.set(JAVA_BYTE, offset(QP_ATTR, "rnr_retry"), (byte)RNR_RETRY);
        attr.set(JAVA_INT, offset(QP_ATTR, "sq_psn"), 0);
        attr.set(JAVA_BYTE, offset(QP_ATTR, "max_rd_atomic"), (byte)rdAtomic());
        return IbvConstants.IBV_QP_TIMEOUT | IbvConstants.IBV_QP_RETRY_CNT | IbvConstants.IBV_QP_RNR_RETRY |
            IbvConstants.IBV_QP_SQ_PSN | IbvConstants.IBV_QP_MAX_QP_RD_ATOMIC;
    }

    final int rdAtomic()
    {
        return Math.max(1, Math.min(MAX_RD_ATOMIC, pd.ibvDevice().maxQpRdAtomic()));
    }

    static int stateCode(final QpState state)
    {
        return switch (state)
        {
            case RESET -> IBV_QPS_RESET;
            case INIT -> IBV_QPS_INIT;
            case RTR -> IBV_QPS_RTR;
            case RTS -> IBV_QPS_RTS;
            case ERROR -> IBV_QPS_ERR;
        };
    }
}
