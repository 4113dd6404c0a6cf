package io.dkv.raas.driver;

import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.SendWorkRequest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Where the local bytes of a one-sided request travel from or into: the slot's staging memory for
 * small transfers, a borrowed send buffer or a temporary region for larger copies, the caller's own
 * memory (registered once and cached) beyond the copy threshold, or registered memory the request
 * named (a client's data area). Copying small transfers costs less than registering the caller's
 * memory, and spares callers from registering anything.
 */
final class RequestStaging
{
    private final RequestPipeline pipeline;
    private final ProtectionDomain pd;
    private final Registrations registrations;
    private final SendBuffers sendBuffers;
    private final int copyThreshold;

    RequestStaging(
        final RequestPipeline pipeline,
        final ProtectionDomain pd,
        final Registrations registrations,
        final SendBuffers sendBuffers,
        final int copyThreshold)
    {
        this.pipeline = pipeline;
        this.pd = pd;
        this.registrations = registrations;
        this.sendBuffers = sendBuffers;
        this.copyThreshold = copyThreshold;
    }

    /**
     * Fill in the local memory of a one-sided request's work request, and its destination. An
     * atomic's result lands in the slot's staging memory, whence its completion reads it.
     */
    void stage(final RequestSlot slot)
    {
        final SendWorkRequest wr = slot.wr;
        final MemorySegment local = slot.local;
        final int length = slot.length;
        if (slot.opcode.isAtomic())
        {
            slot.atomicResult = true;
            wr.local(slot.stagingRegion, slot.stagingOffset, 8);
        }
        else if (slot.registered != null)
        {
            wr.local(slot.registered, slot.registeredOffset, length);
        }
        else if (local.isNative() && length > slot.staging.byteSize() && length > copyThreshold)
        {
            final MemoryRegion registered = registrations.registered(local);
            wr.local(registered, local.address() - registered.address() + slot.localOffset, length);
        }
        else
        {
            bounce(slot, local, length);
        }
        slot.targetRoute();
    }

    /** Copy through registered memory: the caller's bytes now for a WRITE, the READ's result on completion. */
    private void bounce(final RequestSlot slot, final MemorySegment local, final int length)
    {
        final MemoryRegion bounceRegion;
        final long bounceOffset;
        if (length <= slot.staging.byteSize())
        {
            bounceRegion = slot.stagingRegion;
            bounceOffset = slot.stagingOffset;
            slot.bounce = slot.staging;
        }
        else if (length <= sendBuffers.bufferBytes())
        {
            final SendBuffers.SendBuffer buffer = sendBuffers.acquire(pipeline);
            slot.sendBuffer = buffer.index();
            bounceRegion = sendBuffers.region();
            bounceOffset = buffer.offset();
            slot.bounce = sendBuffers.memory(buffer, length);
        }
        else
        {
            bounceRegion = pd.allocate(length, Access.LOCAL_WRITE);
            bounceOffset = 0;
            slot.attachment = bounceRegion;
            slot.bounce = bounceRegion.segment();
        }
        if (slot.opcode == Opcode.RDMA_READ)
        {
            slot.copyBack = local;
            slot.copyBackOffset = slot.localOffset;
        }
        else
        {
            MemorySegment.copy(local, slot.localOffset, slot.bounce, 0, length);
        }
        slot.wr.local(bounceRegion, bounceOffset, length);
    }

    /**
     * Copy a one-sided request's bytes between the caller's memory and registered memory. A word goes by one load
     * and store: the bulk copy's overlap and size checks cost more than the 8 bytes a lookup or a CAS-guarded read
     * brings.
     */
    static void copy(
        final MemorySegment from, final long fromOffset, final MemorySegment to, final long toOffset, final int length)
    {
        if (length == Long.BYTES)
        {
            to.set(ValueLayout.JAVA_LONG_UNALIGNED, toOffset, from.get(ValueLayout.JAVA_LONG_UNALIGNED, fromOffset));
        }
        else
        {
            MemorySegment.copy(from, fromOffset, to, toOffset, length);
        }
    }
}
