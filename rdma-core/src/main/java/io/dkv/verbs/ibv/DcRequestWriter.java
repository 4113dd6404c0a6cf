package io.dkv.verbs.ibv;

import io.dkv.verbs.Opcode;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvLayout.MLX5DV_QP_EX;
import static io.dkv.verbs.ibv.IbvLayout.QP_EX;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Posts chains of send requests on a DC initiator with the extended queue pair's API, as the static inline functions
 * of verbs.h and mlx5dv.h do: {@code wr_start}, then per request its {@code wr_id} and {@code wr_flags}, the
 * operation ({@code wr_rdma_read}, {@code wr_atomic_cmp_swp} ...), the target ({@code mlx5dv_wr_set_dc_addr}) and the
 * local memory ({@code wr_set_sge_list}, or {@code wr_set_inline_data}), and {@code wr_complete} to ring the doorbell
 * once for the batch. Each function is called through the pointer the queue pair holds. Allocates nothing.
 */
final class DcRequestWriter
{
    private static final long WR_ID = offset(QP_EX, "wr_id");
    private static final long WR_FLAGS = offset(QP_EX, "wr_flags");

    private final MemorySegment qpEx;
    private final MemorySegment dvQpEx;
    private final MemorySegment wrStart;
    private final MemorySegment wrComplete;
    private final MemorySegment wrAbort;
    private final MemorySegment wrRdmaRead;
    private final MemorySegment wrRdmaWrite;
    private final MemorySegment wrRdmaWriteImm;
    private final MemorySegment wrSend;
    private final MemorySegment wrSendImm;
    private final MemorySegment wrCmpSwp;
    private final MemorySegment wrFetchAdd;
    private final MemorySegment wrSetSgeList;
    private final MemorySegment wrSetInlineData;
    private final MemorySegment wrSetDcAddr;
    private final int qpNum;
    private final int maxSendSge;
    private final int maxInline;
    private final WorkRequestEncoder sges;

    /**
     * @param qpEx       the {@code struct ibv_qp_ex *} of the initiator.
     * @param dvQpEx     its {@code struct mlx5dv_qp_ex *}.
     * @param qpNum      its number, for errors.
     * @param maxSendWr  most requests per doorbell.
     * @param maxSendSge most scatter/gather entries per request.
     * @param maxInline  most bytes a request may carry inline.
     * @param arena      where the scatter/gather arrays live.
     */
    DcRequestWriter(
        final MemorySegment qpEx,
        final MemorySegment dvQpEx,
        final int qpNum,
        final int maxSendWr,
        final int maxSendSge,
        final int maxInline,
        final Arena arena)
    {
        this.qpEx = qpEx.reinterpret(QP_EX.byteSize());
        this.dvQpEx = dvQpEx.reinterpret(MLX5DV_QP_EX.byteSize());
        this.qpNum = qpNum;
        wrStart = pointer("wr_start");
        wrComplete = pointer("wr_complete");
        wrAbort = pointer("wr_abort");
        wrRdmaRead = pointer("wr_rdma_read");
        wrRdmaWrite = pointer("wr_rdma_write");
        wrRdmaWriteImm = pointer("wr_rdma_write_imm");
        wrSend = pointer("wr_send");
        wrSendImm = pointer("wr_send_imm");
        wrCmpSwp = pointer("wr_atomic_cmp_swp");
        wrFetchAdd = pointer("wr_atomic_fetch_add");
        wrSetSgeList = pointer("wr_set_sge_list");
        wrSetInlineData = pointer("wr_set_inline_data");
        wrSetDcAddr = this.dvQpEx.get(ADDRESS, offset(MLX5DV_QP_EX, "wr_set_dc_addr"));
        this.maxSendSge = maxSendSge;
        this.maxInline = maxInline;
        sges = new WorkRequestEncoder(true, Math.max(1, Math.min(maxSendWr, 64)), maxSendSge, arena);
    }

    void post(final SendWorkRequest first)
    {
        int count = 0;
        SendWorkRequest invalid = null;
        String why = null;
        for (SendWorkRequest wr = first; wr != null; wr = wr.next())
        {
            why = invalidReason(wr);
            if (why != null)
            {
                invalid = wr;
                break;
            }
            count++;
        }
        SendWorkRequest next = first;
        while (count > 0)
        {
            final int batch = Math.min(count, sges.capacity());
            post(next, batch);
            next = WorkRequestEncoder.after(next, batch);
            count -= batch;
        }
        if (invalid != null)
        {
            throw new VerbsException("DC initiator 0x" + Integer.toHexString(qpNum) + ": request " + invalid +
                " " + why + "; those before it were posted");
        }
    }

    private String invalidReason(final SendWorkRequest wr)
    {
        if (!(wr.ah() instanceof IbvAddressHandle))
        {
            return "has no DC target's address handle";
        }
        if (AtomicByteOrder.REVERSED && wr.opcode() == Opcode.ATOMIC_FETCH_AND_ADD)
        {
            return "is a FETCH_AND_ADD, which an RNIC of a little-endian host runs in host order, not on the " +
                "big-endian word the verbs model defines";
        }
        if (wr.sgList().numSge() > maxSendSge)
        {
            return "has " + wr.sgList().numSge() + " SGEs, more than the " + maxSendSge + " the queue allows";
        }
        if ((wr.sendFlags() & SendFlags.INLINE) != 0 &&
            (wr.sgList().numSge() != 1 || wr.sgList().totalLength() > maxInline))
        {
            return "is inline but not one SGE of at most " + maxInline + " bytes";
        }
        return null;
    }

    private void post(final SendWorkRequest first, final int count)
    {
        boolean started = false;
        try
        {
            IbvFunctions.WR_QP.invokeExact(wrStart, qpEx);
            started = true;
            SendWorkRequest wr = first;
            for (int i = 0; i < count; i++, wr = wr.next())
            {
                qpEx.set(JAVA_LONG, WR_ID, wr.wrId());
                qpEx.set(JAVA_INT, WR_FLAGS, wr.sendFlags());
                operation(wr);
                IbvFunctions.WR_SET_DC_ADDR.invokeExact(wrSetDcAddr, dvQpEx, ((IbvAddressHandle)wr.ah()).ah(),
                    wr.dctNumber(), wr.dcKey());
                final int numSge = sges.writeSges(wr.sgList(), i, maxSendSge, wr.wrId());
                if ((wr.sendFlags() & SendFlags.INLINE) != 0)
                {
                    IbvFunctions.WR_SET_INLINE_DATA.invokeExact(wrSetInlineData, qpEx, wr.sgList().sge(0).addr(),
                        (long)wr.sgList().sge(0).length());
                }
                else
                {
                    IbvFunctions.WR_SET_SGE_LIST.invokeExact(wrSetSgeList, qpEx, (long)numSge, sges.sgesAddress(i));
                }
            }
            started = false;
            final int result = (int)IbvFunctions.WR_COMPLETE.invokeExact(wrComplete, qpEx);
            if (result != 0)
            {
                throw IbvFunctions.failure("wr_complete on DC initiator 0x" + Integer.toHexString(qpNum) +
                    " (" + count + " requests from " + first + ")", result);
            }
        }
        catch (final Throwable ex)
        {
            if (started)
            {
                abort(ex);
            }
            throw IbvFunctions.unexpected("posting on a DC initiator", ex);
        }
    }

    private void abort(final Throwable cause)
    {
        try
        {
            IbvFunctions.WR_QP.invokeExact(wrAbort, qpEx);
        }
        catch (final Throwable ex)
        {
            cause.addSuppressed(ex);
        }
    }

    private void operation(final SendWorkRequest wr) throws Throwable
    {
        final Opcode opcode = wr.opcode();
        switch (opcode)
        {
            case RDMA_READ -> IbvFunctions.WR_RDMA.invokeExact(wrRdmaRead, qpEx, wr.rkey(), wr.remoteAddr());
            case RDMA_WRITE -> IbvFunctions.WR_RDMA.invokeExact(wrRdmaWrite, qpEx, wr.rkey(), wr.remoteAddr());
            case RDMA_WRITE_WITH_IMM ->
                IbvFunctions.WR_RDMA_IMM.invokeExact(wrRdmaWriteImm, qpEx, wr.rkey(), wr.remoteAddr(), wr.immData());
            case SEND -> IbvFunctions.WR_QP.invokeExact(wrSend, qpEx);
            case SEND_WITH_IMM -> IbvFunctions.WR_SEND_IMM.invokeExact(wrSendImm, qpEx, wr.immData());
            case ATOMIC_CMP_AND_SWP -> IbvFunctions.WR_CMP_SWP.invokeExact(wrCmpSwp, qpEx, wr.rkey(),
                wr.remoteAddr(), AtomicByteOrder.operand(wr.compareAdd()), AtomicByteOrder.operand(wr.swap()));
            case ATOMIC_FETCH_AND_ADD -> IbvFunctions.WR_FETCH_ADD.invokeExact(wrFetchAdd, qpEx, wr.rkey(),
                wr.remoteAddr(), wr.compareAdd());
        }
    }

    private MemorySegment pointer(final String name)
    {
        return qpEx.get(ADDRESS, offset(QP_EX, name));
    }
}
