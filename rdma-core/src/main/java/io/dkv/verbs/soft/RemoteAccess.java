package io.dkv.verbs.soft;

import io.dkv.verbs.Access;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The responder's checks on a one-sided request, as an RNIC makes them: the rkey names a
 * registered region of the responder's protection domain, the range lies inside it, the region
 * and the responder (QP or DC target) grant the access, and atomics address an aligned 8-byte
 * word. Any failure means nothing is touched.
 */
public final class RemoteAccess
{
    /** The word an atomic addresses is in network order, as InfiniBand defines it. */
    private static final VarHandle BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    private RemoteAccess()
    {
    }

    /**
     * Execute a checked atomic on the responder's memory, as one indivisible step.
     *
     * @param opcode     ATOMIC_CMP_AND_SWP or ATOMIC_FETCH_AND_ADD.
     * @param compareAdd what a compare-and-swap compares with, or what a fetch-and-add adds.
     * @param swap       what a compare-and-swap stores when the word equals {@code compareAdd}.
     * @return the word before the atomic.
     * @throws IllegalStateException when the memory was released meanwhile.
     */
    public static long atomic(
        final Opcode opcode, final MemorySegment memory, final long offset, final long compareAdd, final long swap)
    {
        return opcode == Opcode.ATOMIC_CMP_AND_SWP ?
            (long)BIG_ENDIAN_LONG.compareAndExchange(memory, offset, compareAdd, swap) :
            (long)BIG_ENDIAN_LONG.getAndAdd(memory, offset, compareAdd);
    }

    /**
     * Check a request against an in-process region.
     *
     * @param region         the region the rkey resolved to, or null.
     * @param rkey           the key the request carried.
     * @param pdId           the responder's protection domain id.
     * @param responderFlags access flags of the responding QP or DC target.
     * @param requiredAccess {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE} or {@link Access#REMOTE_ATOMIC}.
     * @param addr           remote virtual address.
     * @param length         bytes.
     * @return SUCCESS, REM_ACCESS_ERR (key, domain, bounds, permission) or REM_INV_REQ_ERR (misaligned atomic).
     */
    public static WcStatus check(
        final SoftMemoryRegion region,
        final int rkey,
        final int pdId,
        final int responderFlags,
        final int requiredAccess,
        final long addr,
        final long length)
    {
        if (region == null || region.rkey() != rkey || !region.isRegistered())
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        return check(region.pd().id(), region.access(), region.address(), region.length(),
            pdId, responderFlags, requiredAccess, addr, length);
    }

    /**
     * Check a request against a region described by its fields (a registered, key-matching entry).
     *
     * @return SUCCESS, REM_ACCESS_ERR or REM_INV_REQ_ERR.
     */
    public static WcStatus check(
        final int regionPdId,
        final int regionAccess,
        final long regionAddress,
        final long regionLength,
        final int pdId,
        final int responderFlags,
        final int requiredAccess,
        final long addr,
        final long length)
    {
        if (regionPdId != pdId)
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        if ((regionAccess & requiredAccess) == 0 || (responderFlags & requiredAccess) == 0)
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        if (length < 0 || addr < regionAddress || addr - regionAddress > regionLength - length)
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        if (requiredAccess == Access.REMOTE_ATOMIC && (addr & 7) != 0)
        {
            return WcStatus.REM_INV_REQ_ERR;
        }
        return WcStatus.SUCCESS;
    }
}
