package io.dkv.raas.driver;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.BYTE;
import static io.dkv.raas.driver.ControlMessages.INT;
import static io.dkv.raas.driver.ControlMessages.LONG;

/**
 * Regions allocated on another node's memory: a MALLOC to its driver, answered by MALLOC_DONE with
 * the region or a refusal; and the allocating end, which gives peers no more of this node's memory
 * than the budget for them ({@code remoteMallocBytes}): a peer is not authenticated here.
 */
final class RemoteAllocation
{
    /*
     * A MALLOC also carries the asker's record after its name, so that the answer reaches a node
     * the allocating driver does not know.
     */
    private static final int REPLY_TO_LENGTH = CONNECT_LENGTH;

    private final ControlMessages control;
    private final ReceiveBuffers receiveBuffers;
    private final RegionTable regions;
    private final Routes routes;
    private final RequestPipeline pipeline;
    private final NanoClock nanoClock;
    private final long timeoutMs;
    private final long remoteMallocBudget;
    private final Long2ObjectHashMap<MallocWait> mallocs = new Long2ObjectHashMap<>();
    private final AtomicLong nextToken = new AtomicLong(1);
    /** Bytes this node allocated for peers that asked: bounded by the context's remoteMallocBytes. */
    private final AtomicLong remoteMallocBytes = new AtomicLong();

    /** A MALLOC waiting for its answer. */
    private static final class MallocWait
    {
        volatile boolean done;
        int status;
        long address;
        int rkey;
        long length;
        long epoch;
        int access;
    }

    RemoteAllocation(
        final ControlMessages control,
        final ReceiveBuffers receiveBuffers,
        final RegionTable regions,
        final Routes routes,
        final RequestPipeline pipeline,
        final long timeoutMs,
        final long remoteMallocBudget)
    {
        this.control = control;
        this.receiveBuffers = receiveBuffers;
        this.regions = regions;
        this.routes = routes;
        this.pipeline = pipeline;
        this.nanoClock = pipeline.nanoClock();
        this.timeoutMs = timeoutMs;
        this.remoteMallocBudget = remoteMallocBudget;
    }

    /** Allocate a region on the route's node and wait for it. */
    RemoteRegion malloc(final NodeRoute route, final long size, final String name, final int access)
    {
        final byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > RemoteRegion.MAX_NAME_LENGTH)
        {
            throw new RaasException(
                "region name of " + nameBytes.length + " bytes exceeds " + RemoteRegion.MAX_NAME_LENGTH);
        }
        final long token = nextToken.getAndIncrement();
        final MallocWait wait = new MallocWait();
        synchronized (mallocs)
        {
            mallocs.put(token, wait);
        }
        try
        {
            final RequestSlot slot =
                control.awaitControlSlot(route, 0, TYPE_MALLOC, 0, 0, MALLOC_FIXED_LENGTH + nameBytes.length);
            slot.staging.set(LONG, MALLOC_SIZE_OFFSET, size);
            slot.staging.set(INT, MALLOC_TOKEN_OFFSET, (int)token);
            slot.staging.set(INT, MALLOC_ACCESS_OFFSET, access);
            slot.staging.set(INT, MALLOC_NAME_LENGTH_OFFSET, nameBytes.length);
            MemorySegment.copy(MemorySegment.ofArray(nameBytes), 0, slot.staging, MALLOC_NAME_OFFSET, nameBytes.length);
            writeSelfForReply(slot);
            control.post(slot, MALLOC_FIXED_LENGTH + nameBytes.length + REPLY_TO_LENGTH);
            awaitAnswer(wait, route, size, name);
            if (wait.status != RaasStatus.SUCCESS)
            {
                throw new RaasException("node " + route.node.id() + " refused malloc of " + size + " bytes named '" +
                    name + "': " + (wait.status == RaasStatus.NOT_PERMITTED ?
                    "the name is taken, or the node allocates no more than that for peers (remoteMallocBytes)" :
                    RaasStatus.describe(wait.status)));
            }
            final RemoteRegion region = new RemoteRegion(name, route.node.id(), wait.epoch, wait.address, wait.rkey,
                wait.length, wait.access, 1);
            regions.trust(region);
            return region;
        }
        finally
        {
            synchronized (mallocs)
            {
                mallocs.remove(token);
            }
        }
    }

    private void awaitAnswer(final MallocWait wait, final NodeRoute route, final long size, final String name)
    {
        final long deadline = nanoClock.nanoTime() + timeoutMs * 1_000_000L;
        int spins = 0;
        while (!wait.done)
        {
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
                if (nanoClock.nanoTime() > deadline)
                {
                    throw new RaasException("malloc of " + size + " bytes named '" + name + "' on node " +
                        route.node.id() + " got no answer within " + timeoutMs + " ms");
                }
            }
        }
    }

    private void writeSelfForReply(final RequestSlot slot)
    {
        final int nameLength = slot.staging.get(INT, MALLOC_NAME_LENGTH_OFFSET);
        final long replyTo = MALLOC_NAME_OFFSET + nameLength;
        final MemorySegment record = slot.staging.asSlice(replyTo - LENGTH, LENGTH + CONNECT_LENGTH);
        final byte[] saved = record.asSlice(0, LENGTH).toArray(BYTE);
        control.writeSelf(record, 0);
        MemorySegment.copy(MemorySegment.ofArray(saved), 0, record, 0, LENGTH);
    }

    /** A peer asks for a region of this node's memory. Called by the poller. */
    void onMalloc(final long base, final int byteLen)
    {
        final MemorySegment memory = receiveBuffers.memory();
        final long size = memory.get(LONG, base + MALLOC_SIZE_OFFSET);
        final int token = memory.get(INT, base + MALLOC_TOKEN_OFFSET);
        final int access = memory.get(INT, base + MALLOC_ACCESS_OFFSET);
        final int nameLength = memory.get(INT, base + MALLOC_NAME_LENGTH_OFFSET);
        if (nameLength < 0 || nameLength > RemoteRegion.MAX_NAME_LENGTH ||
            byteLen < MALLOC_NAME_OFFSET + nameLength + CONNECT_LENGTH)
        {
            return;
        }
        final byte[] nameBytes = new byte[nameLength];
        MemorySegment.copy(memory, BYTE, base + MALLOC_NAME_OFFSET, nameBytes, 0, nameLength);
        final NodeRecord sender = control.readSender(base + MALLOC_NAME_OFFSET + nameLength - LENGTH);
        if (sender == null)
        {
            return;
        }
        final NodeRoute route = routes.routeFor(sender);
        final String name = new String(nameBytes, StandardCharsets.UTF_8);
        int status = RaasStatus.SUCCESS;
        RemoteRegion region = null;
        // a peer is not authenticated here: it gets no more of this node's memory than the budget for peers
        if (size <= 0 || size > remoteMallocBudget - remoteMallocBytes.get())
        {
            status = RaasStatus.NOT_PERMITTED;
        }
        else
        {
            try
            {
                region = regions.allocateLocal(size, name, access);
                remoteMallocBytes.addAndGet(region.length());
            }
            catch (final RuntimeException ex)
            {
                status = RaasStatus.NOT_PERMITTED;
            }
        }
        final RequestSlot slot = control.controlSlot(route, 0, TYPE_MALLOC_DONE, 0, 0, MALLOC_DONE_LENGTH);
        if (slot == null)
        {
            return;
        }
        slot.staging.set(INT, MALLOC_DONE_TOKEN_OFFSET, token);
        slot.staging.set(INT, MALLOC_DONE_STATUS_OFFSET, status);
        if (region != null)
        {
            slot.staging.set(LONG, MALLOC_DONE_ADDRESS_OFFSET, region.address());
            slot.staging.set(INT, MALLOC_DONE_RKEY_OFFSET, region.rkey());
            slot.staging.set(LONG, MALLOC_DONE_LENGTH_OFFSET, region.length());
            slot.staging.set(LONG, MALLOC_DONE_EPOCH_OFFSET, region.nodeEpoch());
            slot.staging.set(INT, MALLOC_DONE_ACCESS_OFFSET, region.access());
        }
        control.post(slot, MALLOC_DONE_LENGTH);
    }

    /** The answer to a MALLOC of this node. Called by the poller. */
    void onMallocDone(final long base)
    {
        final MemorySegment memory = receiveBuffers.memory();
        final int token = memory.get(INT, base + MALLOC_DONE_TOKEN_OFFSET);
        final MallocWait wait;
        synchronized (mallocs)
        {
            wait = mallocs.get(token);
        }
        if (wait == null)
        {
            return;
        }
        wait.status = memory.get(INT, base + MALLOC_DONE_STATUS_OFFSET);
        wait.address = memory.get(LONG, base + MALLOC_DONE_ADDRESS_OFFSET);
        wait.rkey = memory.get(INT, base + MALLOC_DONE_RKEY_OFFSET);
        wait.length = memory.get(LONG, base + MALLOC_DONE_LENGTH_OFFSET);
        wait.epoch = memory.get(LONG, base + MALLOC_DONE_EPOCH_OFFSET);
        wait.access = memory.get(INT, base + MALLOC_DONE_ACCESS_OFFSET);
        wait.done = true;
    }
}
