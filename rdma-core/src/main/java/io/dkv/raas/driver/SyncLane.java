package io.dkv.raas.driver;

import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.MemorySegment;

import static io.dkv.raas.driver.CompletionPoller.BIG_ENDIAN_LONG;

/**
 * One thread's own way to a synchronous one-sided request: a DC initiator and a completion queue
 * nobody else posts to or polls, its own work request, completion and registered staging memory.
 * The calling thread posts, polls and copies the result itself, so a request passes no queue, no
 * compare-and-set and no memory another thread writes; only the checks of its connection and the
 * provider's post and poll remain. One request is outstanding at a time, so its completion is the
 * next one, and an error or a timeout leaves nothing behind once the queue pair is flushed.
 */
final class SyncLane
{
    /** A lane's requests are one at a time: room for the one and its flush. */
    static final int DEPTH = 4;
    /** Polls before the request's deadline is taken: well under a microsecond, as {@link RequestPipeline#idle}. */
    private static final int SPINS_BEFORE_CLOCK = 16;

    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion staging;
    private final MemorySegment stagingMemory;
    private final SendWorkRequest wr = new SendWorkRequest(1);
    /** The second of a pair posted together. */
    private final SendWorkRequest second = new SendWorkRequest(1);
    private final WorkCompletion[] completion = {new WorkCompletion()};
    private final Routes routes;
    private final NanoClock nanoClock;
    private final long timeoutNs;
    /** The thread the lane belongs to; the lane goes to another once it has ended. */
    volatile Thread owner;
    /** Requests this lane carried: written by its owner only, read (unordered) by whoever describes it. */
    long requests;
    /** How often its queue pair was brought back after an error or a timeout; written by its owner only. */
    volatile int recycles;
    /** Set when the lane could not be brought back after an error: it is closed and never used again. */
    volatile boolean discarded;
    private long sequence;
    /** The driver's count of recycled queue pairs, which this lane's are among. */
    private final AtomicCounter recycled;

    SyncLane(
        final Device device, final ProtectionDomain pd, final Routes routes, final int stagingBytes,
        final NanoClock nanoClock, final long timeoutMs, final AtomicCounter recycled)
    {
        this.recycled = recycled;
        this.routes = routes;
        this.nanoClock = nanoClock;
        this.timeoutNs = timeoutMs * 1_000_000L;
        cq = device.createCq(DEPTH * 2);
        QueuePair created = null;
        MemoryRegion region = null;
        try
        {
            created = pd.createQp(new QpInitAttributes().type(QpType.DCI).sendCq(cq)
                .maxSendWr(DEPTH).maxSendSge(1).maxInlineData(64));
            QpPool.bringUp(created);
            region = pd.allocate(stagingBytes, Access.LOCAL_WRITE);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(created, region, cq);
            throw ex;
        }
        qp = created;
        staging = region;
        stagingMemory = region.segment();
    }

    /** @return the most bytes a request may move through this lane; larger ones take the shared pipeline. */
    long stagingBytes()
    {
        return stagingMemory.byteSize();
    }

    /**
     * Carry one synchronous request to the route's node and wait for it on this thread.
     *
     * @param local a READ's destination or a WRITE's source (null for an atomic), checked by the connection.
     * @return the completion's outcome: its status, and the word before an atomic in {@link #value()}.
     * @throws RaasException when it does not complete within the timeout (the queue pair is flushed first).
     */
    int execute(
        final NodeRoute route, final int vqpn, final Opcode opcode, final long remoteAddress, final int rkey,
        final MemorySegment local, final long localOffset, final int length, final long compareAdd, final long swap)
    {
        final long wrId = ((long)vqpn << 32) | (++sequence & 0xffff_ffffL);
        wr.reset().wrId(wrId).opcode(opcode).sendFlags(SendFlags.SIGNALED).remote(remoteAddress, rkey)
            .dc(route.ah, route.node.dctNumber(), route.node.dcKey());
        if (opcode.isAtomic())
        {
            wr.local(staging, 0, Long.BYTES).compareAdd(compareAdd).swap(swap);
        }
        else
        {
            wr.local(staging, 0, length);
            if (opcode != Opcode.RDMA_READ)
            {
                RequestStaging.copy(local, localOffset, stagingMemory, 0, length);
            }
        }
        requests++;
        wr.next(null);
        qp.postSend(wr);
        final int status = await(wrId, 1, route);
        if (status == RaasStatus.SUCCESS && opcode == Opcode.RDMA_READ)
        {
            RequestStaging.copy(stagingMemory, 0, local, localOffset, length);
        }
        return status;
    }

    /**
     * Two READs of {@code length} bytes each, posted in one doorbell batch, waited for together; their bytes go to
     * {@code local} one after the other.
     *
     * @return SUCCESS, or the status of the first that failed.
     */
    int executePair(
        final NodeRoute route, final int vqpn, final long firstAddress, final long secondAddress, final int rkey,
        final MemorySegment local, final long localOffset, final int length)
    {
        final long wrId = ((long)vqpn << 32) | (++sequence & 0xffff_ffffL);
        ++sequence;
        wr.reset().wrId(wrId).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).remote(firstAddress, rkey)
            .dc(route.ah, route.node.dctNumber(), route.node.dcKey()).local(staging, 0, length);
        second.reset().wrId(wrId + 1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .remote(secondAddress, rkey).dc(route.ah, route.node.dctNumber(), route.node.dcKey())
            .local(staging, length, length);
        wr.next(second);
        second.next(null);
        requests += 2;
        qp.postSend(wr);
        final int status = await(wrId, 2, route);
        if (status == RaasStatus.SUCCESS)
        {
            MemorySegment.copy(stagingMemory, 0, local, localOffset, 2L * length);
        }
        return status;
    }

    /** @return the word an atomic found, after a successful {@link #execute}. */
    long value()
    {
        return stagingMemory.get(BIG_ENDIAN_LONG, 0);
    }

    /**
     * Wait for the completions of {@code count} requests, numbered from {@code firstWrId}, posted together.
     *
     * @return SUCCESS, or the status of the first that failed (the others are then flushed, and waited for too).
     */
    private int await(final long firstWrId, final int count, final NodeRoute route)
    {
        final WorkCompletion wc = completion[0];
        // the clock is read only once the requests did not complete within a few polls: over shm they are done by the
        // time postSend returns, and reading the clock cost a READ a tenth of its time
        long deadline = 0;
        int spins = 0;
        int completed = 0;
        WcStatus failure = WcStatus.SUCCESS;
        while (true)
        {
            if (cq.poll(completion) > 0)
            {
                final long wrId = wc.wrId();
                if (wrId - firstWrId < 0 || wrId - firstWrId >= count)
                {
                    // not a request of these (a provider that reported one twice): only theirs count
                    continue;
                }
                if (wc.status() != WcStatus.SUCCESS && failure == WcStatus.SUCCESS)
                {
                    failure = wc.status();
                }
                if (++completed == count)
                {
                    return failure == WcStatus.SUCCESS ? RaasStatus.SUCCESS : failed(failure, route);
                }
                continue;
            }
            RequestPipeline.idle(++spins);
            if (spins == SPINS_BEFORE_CLOCK)
            {
                deadline = nanoClock.nanoTime() + timeoutNs;
            }
            else if ((spins & 1023) == 0)
            {
                if (discarded)
                {
                    throw new RaasException("request to node " + route.node.id() + " ended: its driver is closing");
                }
                if (nanoClock.nanoTime() > deadline)
                {
                    flush();
                    throw new RaasException("request to node " + route.node.id() + " did not complete within " +
                        timeoutNs / 1_000_000L + " ms");
                }
            }
        }
    }

    /**
     * The request failed and left the queue pair in ERROR: a peer that is gone or answers with another DC key
     * makes the route stale, as on the shared path, and the queue pair is brought back for the next request.
     */
    private int failed(final WcStatus status, final NodeRoute route)
    {
        if (status == WcStatus.RETRY_EXC_ERR || status == WcStatus.REM_ACCESS_ERR)
        {
            routes.markStale(route);
        }
        recycle();
        return status.code();
    }

    /** A request that outlasted its timeout: fail it and whatever the provider holds, then start again. */
    private void flush()
    {
        try
        {
            qp.modify(QpAttributes.error());
            while (cq.poll(completion) > 0)
            {
                // the abandoned request's flush: nothing of it may reach the next request
            }
        }
        catch (final RuntimeException ex)
        {
            discard();
            return;
        }
        recycle();
    }

    private void recycle()
    {
        recycles++;
        recycled.increment();
        try
        {
            qp.modify(QpAttributes.reset());
            QpPool.bringUp(qp);
        }
        catch (final RuntimeException ex)
        {
            discard();
        }
    }

    /** Closed for good; the owner's next request takes another lane. */
    void discard()
    {
        discarded = true;
        closeQuietly(qp, staging, cq);
    }

    private static void closeQuietly(final QueuePair qp, final MemoryRegion region, final CompletionQueue cq)
    {
        try
        {
            if (qp != null)
            {
                qp.close();
            }
        }
        catch (final RuntimeException ignore)
        {
            // closing anyway
        }
        try
        {
            if (region != null)
            {
                region.deregister();
            }
        }
        catch (final RuntimeException ignore)
        {
            // closing anyway
        }
        try
        {
            cq.close();
        }
        catch (final RuntimeException ignore)
        {
            // closing anyway
        }
    }

    public String toString()
    {
        return "sync lane{qp=" + qp + ", owner=" + owner + ", requests=" + requests + ", recycles=" + recycles + "}";
    }
}
