package io.dkv.verbs.ibv;

import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.WcOpcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvConstants.IBV_WC_RECV;
import static io.dkv.verbs.ibv.IbvConstants.IBV_WC_RECV_RDMA_WITH_IMM;
import static io.dkv.verbs.ibv.IbvLayout.WC;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A completion queue of an RNIC ({@code ibv_create_cq}), polled through the context's {@code poll_cq}, as the static
 * inline {@code ibv_poll_cq} does, into an {@code ibv_wc} array allocated once; each entry is read into the caller's
 * {@link WorkCompletion}.
 */
final class IbvCompletionQueue implements CompletionQueue
{
    /** Completions read per call of poll_cq, at most. */
    static final int BATCH = 64;

    private static final long WR_ID = offset(WC, "wr_id");
    private static final long STATUS = offset(WC, "status");
    private static final long OPCODE = offset(WC, "opcode");
    private static final long BYTE_LEN = offset(WC, "byte_len");
    private static final long IMM_DATA = offset(WC, "anonymous_imm", "imm_data");
    private static final long QP_NUM = offset(WC, "qp_num");
    private static final long SRC_QP = offset(WC, "src_qp");
    private static final long WC_FLAGS = offset(WC, "wc_flags");
    private static final WcOpcode[] SEND_OPCODES =
        {WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.COMP_SWAP, WcOpcode.FETCH_ADD};

    private final IbvDevice device;
    private final IbvFunctions functions;
    private final MemorySegment pollCq;
    private final MemorySegment cq;
    private final int depth;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment entries;
    private boolean closed;

    IbvCompletionQueue(final IbvDevice device, final IbvFunctions functions, final MemorySegment cq, final int depth)
    {
        this(device, functions, device.pollCq, cq, depth);
    }

    /**
     * @param device    the device it belongs to; null for a queue the caller destroys (a test's).
     * @param functions where ibv_destroy_cq is bound; null with a null device.
     * @param pollCq    the poll_cq to call.
     * @param cq        the {@code struct ibv_cq *}.
     * @param depth     the depth it was created with.
     */
    IbvCompletionQueue(
        final IbvDevice device,
        final IbvFunctions functions,
        final MemorySegment pollCq,
        final MemorySegment cq,
        final int depth)
    {
        this.device = device;
        this.functions = functions;
        this.pollCq = pollCq;
        this.cq = cq;
        this.depth = depth;
        entries = arena.allocate(WC.byteSize() * BATCH, 8);
    }

    public int poll(final WorkCompletion[] completions)
    {
        return poll(completions, completions.length);
    }

    public int poll(final WorkCompletion[] completions, final int max)
    {
        final int count;
        try
        {
            count = (int)IbvFunctions.POLL_CQ.invokeExact(pollCq, cq, Math.min(max, BATCH), entries);
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("poll_cq", ex);
        }
        if (count < 0)
        {
            throw IbvFunctions.failure("poll_cq on a CQ of depth " + depth, -count);
        }
        for (int i = 0; i < count; i++)
        {
            read(entries, WC.byteSize() * i, completions[i]);
        }
        return count;
    }

    /** Read the {@code ibv_wc} at {@code at} into {@code completion}. */
    static void read(final MemorySegment entries, final long at, final WorkCompletion completion)
    {
        completion.set(
            entries.get(JAVA_LONG, at + WR_ID),
            WcStatus.fromCode(entries.get(JAVA_INT, at + STATUS)),
            opcode(entries.get(JAVA_INT, at + OPCODE)),
            entries.get(JAVA_INT, at + BYTE_LEN),
            entries.get(JAVA_INT, at + IMM_DATA),
            entries.get(JAVA_INT, at + QP_NUM),
            entries.get(JAVA_INT, at + SRC_QP),
            entries.get(JAVA_INT, at + WC_FLAGS));
    }

    /** @return the opcode of {@code enum ibv_wc_opcode}; opcodes dkv never posts (LOCAL_INV, BIND_MW...) read SEND. */
    static WcOpcode opcode(final int code)
    {
        if (code == IBV_WC_RECV)
        {
            return WcOpcode.RECV;
        }
        if (code == IBV_WC_RECV_RDMA_WITH_IMM)
        {
            return WcOpcode.RECV_RDMA_WITH_IMM;
        }
        return code >= 0 && code < SEND_OPCODES.length ? SEND_OPCODES[code] : WcOpcode.SEND;
    }

    public int depth()
    {
        return depth;
    }

    MemorySegment cq()
    {
        return cq;
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (device == null)
        {
            arena.close();
            return;
        }
        device.disown(this);
        try
        {
            IbvFunctions.destroy(functions.destroyCq, cq, "ibv_destroy_cq");
        }
        finally
        {
            arena.close();
        }
    }
}
