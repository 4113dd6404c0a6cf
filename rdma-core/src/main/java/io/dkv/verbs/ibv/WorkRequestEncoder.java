package io.dkv.verbs.ibv;

import io.dkv.verbs.Opcode;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.ScatterGatherElement;
import io.dkv.verbs.ScatterGatherList;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvLayout.RECV_WR;
import static io.dkv.verbs.ibv.IbvLayout.SEND_WR;
import static io.dkv.verbs.ibv.IbvLayout.SGE;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Writes chains of {@link SendWorkRequest}s and {@link RecvWorkRequest}s out as the linked {@code ibv_send_wr} and
 * {@code ibv_recv_wr} lists, and their scatter/gather lists as {@code ibv_sge} arrays, that the provider's
 * {@code post_send} and {@code post_recv} read: into native memory allocated once per queue, so posting allocates
 * nothing. One thread uses an encoder at a time, as one posts to a queue at a time.
 *
 * <pre>
 *   requests: [wr 0][wr 1]...[wr capacity-1]     each SEND_WR (128 B) or RECV_WR (32 B), linked by next
 *   sges:     [wr 0's maxSge x ibv_sge][wr 1's]...
 *   bad:      one pointer: the request post_* stopped at
 * </pre>
 */
final class WorkRequestEncoder
{
    static final long WR_ID = offset(SEND_WR, "wr_id");
    static final long NEXT = offset(SEND_WR, "next");
    static final long SG_LIST = offset(SEND_WR, "sg_list");
    static final long NUM_SGE = offset(SEND_WR, "num_sge");
    static final long OPCODE = offset(SEND_WR, "opcode");
    static final long SEND_FLAGS = offset(SEND_WR, "send_flags");
    static final long IMM_DATA = offset(SEND_WR, "anonymous_imm", "imm_data");
    static final long RDMA_REMOTE_ADDR = offset(SEND_WR, "wr", "rdma", "remote_addr");
    static final long RDMA_RKEY = offset(SEND_WR, "wr", "rdma", "rkey");
    static final long ATOMIC_REMOTE_ADDR = offset(SEND_WR, "wr", "atomic", "remote_addr");
    static final long ATOMIC_COMPARE_ADD = offset(SEND_WR, "wr", "atomic", "compare_add");
    static final long ATOMIC_SWAP = offset(SEND_WR, "wr", "atomic", "swap");
    static final long ATOMIC_RKEY = offset(SEND_WR, "wr", "atomic", "rkey");
    static final long UD_AH = offset(SEND_WR, "wr", "ud", "ah");
    static final long UD_REMOTE_QPN = offset(SEND_WR, "wr", "ud", "remote_qpn");
    static final long UD_REMOTE_QKEY = offset(SEND_WR, "wr", "ud", "remote_qkey");
    static final long RECV_WR_ID = offset(RECV_WR, "wr_id");
    static final long RECV_NEXT = offset(RECV_WR, "next");
    static final long RECV_SG_LIST = offset(RECV_WR, "sg_list");
    static final long RECV_NUM_SGE = offset(RECV_WR, "num_sge");
    static final long SGE_ADDR = offset(SGE, "addr");
    static final long SGE_LENGTH = offset(SGE, "length");
    static final long SGE_LKEY = offset(SGE, "lkey");

    private final boolean send;
    private final int capacity;
    private final int maxSge;
    private final long stride;
    private final MemorySegment requests;
    private final MemorySegment sges;
    private final MemorySegment bad;

    /**
     * @param send     whether it writes send requests (else receive requests).
     * @param capacity most requests written per post.
     * @param maxSge   most scatter/gather entries per request.
     * @param arena    where the native lists live: as long as the queue.
     */
    WorkRequestEncoder(final boolean send, final int capacity, final int maxSge, final Arena arena)
    {
        this.send = send;
        this.capacity = capacity;
        this.maxSge = Math.max(1, maxSge);
        this.stride = send ? SEND_WR.byteSize() : RECV_WR.byteSize();
        requests = arena.allocate(stride * capacity, 8);
        sges = arena.allocate(SGE.byteSize() * this.maxSge * capacity, 8);
        bad = arena.allocate(ADDRESS);
    }

    /** @return most requests written per post. */
    int capacity()
    {
        return capacity;
    }

    /** @return the first request written. */
    MemorySegment requests()
    {
        return requests;
    }

    /** @return where post_* leaves the request it stopped at. */
    MemorySegment bad()
    {
        return bad;
    }

    /** @return the scatter/gather array written for request {@code index}. */
    MemorySegment sges(final int index)
    {
        return sges.asSlice(SGE.byteSize() * maxSge * index, SGE.byteSize() * maxSge);
    }

    /** @return the address of the scatter/gather array of request {@code index}. */
    long sgesAddress(final int index)
    {
        return sges.address() + SGE.byteSize() * maxSge * index;
    }

    /** @return which request post_* stopped at, from {@link #bad()}. */
    int badIndex()
    {
        final long address = bad.get(ADDRESS, 0).address();
        return address == 0 ? -1 : (int)((address - requests.address()) / stride);
    }

    /**
     * Write up to {@link #capacity} send requests from {@code first}, linked in order, the last one's next NULL.
     *
     * @param sgeLimit most entries a request may have on this queue.
     * @return how many were written.
     * @throws VerbsException for a request with more entries than the queue allows, naming it.
     */
    int encodeSend(final SendWorkRequest first, final int sgeLimit)
    {
        int count = 0;
        for (SendWorkRequest wr = first; wr != null && count < capacity; wr = wr.next())
        {
            final long base = stride * count;
            final int numSge = writeSges(wr.sgList(), count, sgeLimit, wr.wrId());
            requests.set(JAVA_LONG, base + WR_ID, wr.wrId());
            requests.set(JAVA_LONG, base + NEXT, 0L);
            requests.set(JAVA_LONG, base + SG_LIST, sgesAddress(count));
            requests.set(JAVA_INT, base + NUM_SGE, numSge);
            final Opcode opcode = wr.opcode();
            requests.set(JAVA_INT, base + OPCODE, opcode.code());
            requests.set(JAVA_INT, base + SEND_FLAGS, wr.sendFlags());
            requests.set(JAVA_INT, base + IMM_DATA, wr.immData());
            if (opcode.isAtomic())
            {
                AtomicByteOrder.check(opcode, wr.wrId());
                requests.set(JAVA_LONG, base + ATOMIC_REMOTE_ADDR, wr.remoteAddr());
                requests.set(JAVA_LONG, base + ATOMIC_COMPARE_ADD, AtomicByteOrder.operand(wr.compareAdd()));
                requests.set(JAVA_LONG, base + ATOMIC_SWAP, AtomicByteOrder.operand(wr.swap()));
                requests.set(JAVA_INT, base + ATOMIC_RKEY, wr.rkey());
            }
            else if (opcode.isTwoSided() && wr.ah() != null)
            {
                // a datagram's destination; a one-sided request's target shares the union and always wins
                requests.set(JAVA_LONG, base + UD_AH, ((IbvAddressHandle)wr.ah()).nativeAddress());
                requests.set(JAVA_INT, base + UD_REMOTE_QPN, wr.remoteQpn());
                requests.set(JAVA_INT, base + UD_REMOTE_QKEY, wr.remoteQkey());
            }
            else
            {
                requests.set(JAVA_LONG, base + RDMA_REMOTE_ADDR, wr.remoteAddr());
                requests.set(JAVA_INT, base + RDMA_RKEY, wr.rkey());
            }
            if (count > 0)
            {
                requests.set(JAVA_LONG, base - stride + NEXT, requests.address() + base);
            }
            count++;
        }
        return count;
    }

    /** As {@link #encodeSend}, for receive requests. */
    int encodeRecv(final RecvWorkRequest first, final int sgeLimit)
    {
        int count = 0;
        for (RecvWorkRequest wr = first; wr != null && count < capacity; wr = wr.next())
        {
            final long base = stride * count;
            final int numSge = writeSges(wr.sgList(), count, sgeLimit, wr.wrId());
            requests.set(JAVA_LONG, base + RECV_WR_ID, wr.wrId());
            requests.set(JAVA_LONG, base + RECV_NEXT, 0L);
            requests.set(JAVA_LONG, base + RECV_SG_LIST, sgesAddress(count));
            requests.set(JAVA_INT, base + RECV_NUM_SGE, numSge);
            if (count > 0)
            {
                requests.set(JAVA_LONG, base - stride + RECV_NEXT, requests.address() + base);
            }
            count++;
        }
        return count;
    }

    /** @return the request after the {@code count} written from {@code first}. */
    static SendWorkRequest after(final SendWorkRequest first, final int count)
    {
        SendWorkRequest wr = first;
        for (int i = 0; i < count && wr != null; i++)
        {
            wr = wr.next();
        }
        return wr;
    }

    static RecvWorkRequest after(final RecvWorkRequest first, final int count)
    {
        RecvWorkRequest wr = first;
        for (int i = 0; i < count && wr != null; i++)
        {
            wr = wr.next();
        }
        return wr;
    }

    /** @return request {@code index}'s entries, written into its array; how many. */
    int writeSges(final ScatterGatherList list, final int index, final int sgeLimit, final long wrId)
    {
        final int numSge = list.numSge();
        if (numSge > Math.min(sgeLimit, maxSge))
        {
            throw new VerbsException("request wrId=" + wrId + " has " + numSge + " SGEs; the queue allows " +
                Math.min(sgeLimit, maxSge));
        }
        final long base = SGE.byteSize() * maxSge * index;
        for (int i = 0; i < numSge; i++)
        {
            final ScatterGatherElement sge = list.sge(i);
            final long at = base + SGE.byteSize() * i;
            sges.set(JAVA_LONG, at + SGE_ADDR, sge.addr());
            sges.set(JAVA_INT, at + SGE_LENGTH, sge.length());
            sges.set(JAVA_INT, at + SGE_LKEY, sge.lkey());
        }
        return numSge;
    }
}
