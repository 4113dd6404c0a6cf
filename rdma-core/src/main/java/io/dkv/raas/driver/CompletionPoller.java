package io.dkv.raas.driver;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.QpType;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The completion side of the request pipeline: whichever thread holds the polling role (a waiting
 * caller, or the Poller agent) drains the completion queues and finishes each request: its outcome
 * goes to the waiting caller or its connection's handler, a request flushed behind a failure goes
 * again, and receives go to the {@link MessageService}.
 */
final class CompletionPoller
{
    static final ValueLayout.OfLong BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** How often a request flushed behind another's failure goes again before it fails. */
    static final int MAX_RETRIES = 8;
    /** How deep waiting handlers may nest on the polling thread before the wait is refused (a stack, not a queue). */
    static final int MAX_NESTING = 256;
    private static final VarHandle CALLER_POLLED;

    static
    {
        try
        {
            CALLER_POLLED = MethodHandles.lookup().findVarHandle(CompletionPoller.class, "callerPolled", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final RequestPipeline pipeline;
    private final MessageService messages;
    private final Routes routes;
    private final SendBuffers sendBuffers;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final AtomicBoolean polling = new AtomicBoolean();
    private final AtomicCounter requestsFailed;
    private final AtomicCounter requestsRetried;
    private final WorkCompletion[] sendCompletions = new WorkCompletion[64];
    private final WorkCompletion[] recvCompletions = new WorkCompletion[64];
    /** The thread that holds the polling role now; null between polls. Written by that thread alone. */
    private Thread holder;
    /**
     * The send completions polled and not yet delivered are {@code sendCompletions[sendNext, sendPolled)}: a cursor
     * rather than a loop's locals, so that a handler that waits (for a slot, a credit, its own request) on the polling
     * thread delivers the rest of the batch, and then new ones, itself ({@link #pollNested}). Holder's alone.
     */
    private int sendNext;
    private int sendPolled;
    /** How deep handlers that wait are nested on the polling thread now. */
    private int nesting;
    /**
     * The slot of the request whose handler runs now, on the polling thread: that handler's next request takes it
     * ({@link #takeHandoff}). A handler that waited for a free slot would wait for a poll only its own thread could
     * make: with every slot taken, it and every other waiter hung (an {@code AsyncGet} posting its next read).
     */
    private RequestSlot handoff;
    private int pollTurn;
    @SuppressWarnings("unused")
    private boolean callerPolled;

    CompletionPoller(
        final RequestPipeline pipeline,
        final MessageService messages,
        final Routes routes,
        final SendBuffers sendBuffers,
        final CompletionQueue sendCq,
        final CompletionQueue recvCq)
    {
        this.pipeline = pipeline;
        this.messages = messages;
        this.routes = routes;
        this.sendBuffers = sendBuffers;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.requestsFailed = pipeline.counters().get(DriverCounter.REQUESTS_FAILED);
        this.requestsRetried = pipeline.counters().get(DriverCounter.REQUESTS_RETRIED);
        for (int i = 0; i < sendCompletions.length; i++)
        {
            sendCompletions[i] = new WorkCompletion();
            recvCompletions[i] = new WorkCompletion();
        }
    }

    /**
     * The Poller agent's turn: skipped when a caller polled since the last turn, because a caller
     * waiting for its request polls anyway, and two threads polling one queue only pass its cache
     * lines back and forth.
     */
    int pollFromAgent()
    {
        if ((boolean)CALLER_POLLED.getOpaque(this))
        {
            CALLER_POLLED.setOpaque(this, false);
            return 0;
        }
        return pollCompletions();
    }

    /** A caller's poll. @return completions delivered. */
    int poll()
    {
        // read before writing: a store on every poll would take the line from the Poller agent's core each time
        if (!(boolean)CALLER_POLLED.getOpaque(this))
        {
            CALLER_POLLED.setOpaque(this, true);
        }
        return pollCompletions();
    }

    boolean isPolling()
    {
        return polling.get();
    }

    private int pollCompletions()
    {
        if (holder == Thread.currentThread())
        {
            return pollNested();
        }
        if (!polling.compareAndSet(false, true))
        {
            return 0;
        }
        holder = Thread.currentThread();
        int count = 0;
        try
        {
            final int sent = deliverSends();
            // receives are looked at on every other turn that completed sends, and on every idle one:
            // a busy requester pays for the receive queue half as often, and nothing waits long
            if (sent == 0 || (++pollTurn & 1) == 0)
            {
                final int received = recvCq.poll(recvCompletions);
                for (int i = 0; i < received; i++)
                {
                    messages.onReceive(recvCompletions[i]);
                }
                count = received;
            }
            count += sent;
        }
        catch (final RuntimeException ex)
        {
            if (!pipeline.isClosed())
            {
                throw ex;
            }
        }
        finally
        {
            holder = null;
            polling.setRelease(false);
        }
        if (count > 0 && pipeline.hasWaiting())
        {
            pipeline.drainSubmissions();
        }
        return count;
    }

    /**
     * A poll by the thread that holds the role already: a completion handler (or a message's) that waits on the
     * polling thread, for a request slot, a connection credit, room in the queue or its own synchronous request. Only
     * this thread can deliver the completions that end its wait, so it delivers send completions, those of the batch
     * being delivered first. Receives wait for the outer poll: a send's completion is what frees slots and credits.
     */
    private int pollNested()
    {
        if (nesting == MAX_NESTING)
        {
            throw new RaasException("completion handlers nested " + nesting + " deep on " +
                Thread.currentThread().getName() + " each wait for a request slot or a credit: every one is held by " +
                "a handler that waits, or the requests of each need more than the pipeline's " +
                pipeline.slotCount() + " slots");
        }
        nesting++;
        final int count;
        try
        {
            count = deliverSends();
        }
        finally
        {
            nesting--;
        }
        if (count > 0 && pipeline.hasWaiting())
        {
            pipeline.drainSubmissions();
        }
        return count;
    }

    /** Deliver the rest of the batch of send completions, or a new batch once it is all delivered. */
    private int deliverSends()
    {
        if (sendNext == sendPolled)
        {
            sendNext = 0;
            sendPolled = 0;
            sendPolled = sendCq.poll(sendCompletions);
        }
        int delivered = 0;
        while (sendNext < sendPolled)
        {
            final WorkCompletion wc = sendCompletions[sendNext++];
            delivered++;
            // read before delivering: a handler's nested poll may refill the batch, this entry with it
            onSendCompletion(wc.wrId(), wc.status(), wc.byteLen());
        }
        return delivered;
    }

    private void onSendCompletion(final long wrId, final WcStatus status, final int byteLen)
    {
        final RequestSlot slot = pipeline.postedSlot(wrId);
        if (slot == null)
        {
            return;
        }
        final PooledQp qp = slot.postedOn;
        qp.addCompleted();
        if (status == WcStatus.SUCCESS)
        {
            onSuccess(slot, byteLen);
            return;
        }
        qp.broken = true;
        pipeline.requestMaintenance();
        if (qp.stalled)
        {
            // the request the queue pair stalled on: its peer neither answers nor fails, so it does not go again
            qp.stalled = false;
            qp.outcomeUnknown = true;
            routes.markStale(slot.route);
            complete(slot, RaasStatus.UNREACHABLE, 0);
            return;
        }
        if (status == WcStatus.RETRY_EXC_ERR)
        {
            qp.outcomeUnknown = true;
        }
        if (status == WcStatus.WR_FLUSH_ERR && qp.outcomeUnknown && !repeatable(slot.wr.opcode()))
        {
            // flushed behind a request the transport gave up on: it may have been executed and its answer lost, and
            // a compare-and-swap or fetch-and-add done twice is wrong (a second CAS fails on the first one's word), a
            // message delivered twice is two messages (a WRITE_WITH_IMM twice announces bytes never written there)
            complete(slot, RaasStatus.OUTCOME_UNKNOWN, 0);
            return;
        }
        if (status == WcStatus.WR_FLUSH_ERR && slot.retries < MAX_RETRIES &&
            !(slot.connection != null && slot.connection.isClosed()))
        {
            // flushed behind a failure the responder answered (which drops what follows) or unexecuted, or a READ or
            // WRITE, which may run twice: it goes again on a recycled queue pair
            slot.retries++;
            requestsRetried.increment();
            slot.state = RequestSlot.PENDING;
            slot.postedOn = null;
            pipeline.resubmit(slot);
            return;
        }
        if (status == WcStatus.RETRY_EXC_ERR || (status == WcStatus.REM_ACCESS_ERR && qp.type == QpType.DCI))
        {
            // gone, or (over DC) answering with another DC key: a new incarnation, or another node at its address
            routes.markStale(slot.route);
        }
        complete(slot, status.code(), 0);
    }

    /**
     * @return true when doing the request twice leaves what doing it once does: a READ, or a WRITE of the same bytes
     * to the same place. Not an atomic, nor a message: each message the receiver takes is one more message.
     */
    static boolean repeatable(final Opcode opcode)
    {
        return opcode == Opcode.RDMA_READ || opcode == Opcode.RDMA_WRITE;
    }

    private void onSuccess(final RequestSlot slot, final int byteLen)
    {
        long value = byteLen;
        if (slot.atomicResult)
        {
            value = slot.staging.get(BIG_ENDIAN_LONG, 0);
        }
        else if (slot.copyBack != null && !slot.sync)
        {
            // an asynchronous READ's result goes to its caller's memory here, as nobody waits to take it; a
            // synchronous one's waits for its caller (see copyBackToCaller)
            try
            {
                RequestStaging.copy(slot.bounce, 0, slot.copyBack, slot.copyBackOffset, slot.length);
            }
            catch (final RuntimeException ex)
            {
                // memory this thread may not touch (confined to the caller's thread) or already freed: the request
                // fails, and the completions polled with it are still delivered
                complete(slot, WcStatus.LOC_PROT_ERR.code(), 0);
                return;
            }
        }
        complete(slot, RaasStatus.SUCCESS, value);
    }

    /**
     * A synchronous READ succeeded: its waiting caller copies the result into its own memory, which
     * may be confined to its thread (an {@code Arena.ofConfined()}), where the thread that polled
     * the completion (the Poller agent, another caller) could not write it; then the bounce memory
     * goes back. Its caller only: a caller that gave up does not get its memory written later.
     */
    void copyBackToCaller(final RequestSlot slot)
    {
        try
        {
            RequestStaging.copy(slot.bounce, 0, slot.copyBack, slot.copyBackOffset, slot.length);
        }
        finally
        {
            releaseStaging(slot);
        }
    }

    /** Give back the memory a one-sided request was bounced through, if it was not the slot's own. */
    private void releaseStaging(final RequestSlot slot)
    {
        if (slot.sendBuffer >= 0)
        {
            sendBuffers.release(slot.sendBuffer);
            slot.sendBuffer = -1;
        }
        if (slot.attachment instanceof MemoryRegion temporary)
        {
            temporary.deregister();
            slot.attachment = null;
        }
    }

    /**
     * Finish a request: hand its outcome to the waiting caller or to its connection's handler.
     */
    void complete(final RequestSlot slot, final int status, final long value)
    {
        if (status != RaasStatus.SUCCESS)
        {
            requestsFailed.increment();
        }
        final DriverConnection connection = slot.connection;
        if (slot.kind != RequestSlot.KIND_ONE_SIDED)
        {
            messages.onSent(slot, status);
        }
        if (slot.kind == RequestSlot.KIND_ONE_SIDED)
        {
            if (connection != null && !slot.sync)
            {
                connection.onCompleted();
            }
            if (!(slot.sync && slot.copyBack != null && status == RaasStatus.SUCCESS))
            {
                releaseStaging(slot);
            }
        }
        if (slot.sync)
        {
            slot.status = status;
            slot.value = value;
            if (slot.markDone())
            {
                slot.signalDone();
            }
            else
            {
                // its waiter gave up on it: nobody else will release it, nor its bounce memory kept for the copy back
                releaseStaging(slot);
                pipeline.releaseSlot(slot);
            }
            return;
        }
        final CompletionHandler handler = slot.handler;
        final long token = slot.token;
        if (handler == null || holder != Thread.currentThread() || handoff != null)
        {
            pipeline.releaseSlot(slot);
            if (handler != null)
            {
                handler.onCompletion(token, status, value);
            }
            return;
        }
        slot.clear();
        handoff = slot;
        try
        {
            handler.onCompletion(token, status, value);
        }
        finally
        {
            final RequestSlot unused = handoff;
            handoff = null;
            if (unused != null)
            {
                pipeline.releaseSlot(unused);
            }
        }
    }

    /** @return the slot a handler running on this (the polling) thread may take for its next request, or null. */
    RequestSlot takeHandoff()
    {
        if (holder != Thread.currentThread())
        {
            return null;
        }
        final RequestSlot slot = handoff;
        handoff = null;
        return slot;
    }
}
