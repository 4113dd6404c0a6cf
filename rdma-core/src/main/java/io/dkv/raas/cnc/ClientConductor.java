package io.dkv.raas.cnc;

import io.dkv.agent.Doorbell;
import io.dkv.agent.Waits;
import io.dkv.raas.CompletionHandler;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import org.agrona.BitUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * An attached client's side of the conversation with its driver: the request slots (a slot's
 * correlation id names its command's response), commands claimed in the driver's ring, responses
 * read from the client's own ring by whichever thread waits (the polling role), and the driver's
 * liveness, which every wait checks so that a dead driver fails calls rather than hanging them.
 */
final class ClientConductor implements MessageHandler
{
    /** Responses read at most in one poll. */
    static final int READ_LIMIT = 64;
    /** How deep waiting handlers may nest on the polling thread before the wait is refused (a stack, not a queue). */
    static final int MAX_NESTING = 256;

    private final long clientId;
    private final String driverName;
    private final long timeoutMs;
    private final long driverTimeoutMs;
    private final EpochClock heartbeatClock;
    private final NanoClock nanoClock;
    private final CncHeaderFlyweight cnc;
    private final ClientHeaderFlyweight clientHeader;
    private final ManyToOneRingBuffer commands;
    private final ManyToOneRingBuffer responses;
    private final ClientDataArea area;
    /** Rung with each command: the driver's conductor sleeps on it when idle. */
    private final Doorbell driverDoorbell;
    /** The driver rings it with each response: a thread waiting for one sleeps on it. */
    private final Doorbell responseDoorbell;
    private final BooleanSupplier responsesWaiting;
    private final ClientSlot[] slots;
    private final ManyToManyConcurrentArrayQueue<ClientSlot> freeSlots;
    private final AtomicBoolean polling = new AtomicBoolean();
    /** The thread that holds the polling role now; null between polls. Written by that thread alone. */
    private Thread holder;
    /**
     * Asynchronous requests whose completions were read and are not yet delivered: {@code completed[completedNext,
     * completedCount)}. Their handlers run after the ring read that found them, not inside it, so that a handler that
     * waits (for a slot, a credit, a response) on the polling thread reads on itself ({@link #poll}): a read nested in
     * the ring's own would deliver the message being handled again. A slot is here at most once: it is given back
     * when delivered.
     */
    private final ClientSlot[] completed;
    private int completedNext;
    private int completedCount;
    /** How deep handlers that wait are nested on the polling thread now. */
    private int nesting;
    /**
     * Slots taken and not given back, and threads about to sleep on the response doorbell: what may still touch the
     * mapped files.
     */
    private final AtomicInteger slotsInUse = new AtomicInteger();
    /** Decoders of responses: only the thread holding the polling role reads responses. */
    private final CorrelatedFlyweight response = new CorrelatedFlyweight();
    private final OkFlyweight ok = new OkFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private final CompletionFlyweight completion = new CompletionFlyweight();
    private final RegionFlyweight region = new RegionFlyweight();
    private final ClientReadyFlyweight ready = new ClientReadyFlyweight();
    private volatile boolean closed;
    /** Why the driver this conductor talks to is gone for good, once it is: every call fails, saying so. */
    private volatile String gone;

    ClientConductor(
        final long clientId,
        final String driverName,
        final long timeoutMs,
        final long driverTimeoutMs,
        final EpochClock heartbeatClock,
        final NanoClock nanoClock,
        final CncHeaderFlyweight cnc,
        final ClientHeaderFlyweight clientHeader,
        final ManyToOneRingBuffer commands,
        final ManyToOneRingBuffer responses,
        final ClientDataArea area,
        final int slotCount)
    {
        this.clientId = clientId;
        this.driverName = driverName;
        this.timeoutMs = timeoutMs;
        this.driverTimeoutMs = driverTimeoutMs;
        this.heartbeatClock = heartbeatClock;
        this.nanoClock = nanoClock;
        this.cnc = cnc;
        this.clientHeader = clientHeader;
        this.commands = commands;
        this.responses = responses;
        this.area = area;
        this.driverDoorbell = cnc.doorbell();
        this.responseDoorbell = clientHeader.doorbell();
        this.responsesWaiting = () -> responses.size() > 0;
        slots = new ClientSlot[slotCount];
        completed = new ClientSlot[slotCount];
        freeSlots = new ManyToManyConcurrentArrayQueue<>(BitUtil.findNextPositivePowerOfTwo(slotCount));
        for (int i = 0; i < slotCount; i++)
        {
            slots[i] = new ClientSlot(i, (long)i * ClientDataArea.CHUNK_BYTES);
            freeSlots.offer(slots[i]);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // liveness

    /**
     * @throws RaasException when the driver closed or stopped heartbeating, or removed this client.
     */
    void requireDriver()
    {
        requireDriver(cnc, driverName, driverTimeoutMs, heartbeatClock);
        if (clientHeader.isClosed())
        {
            throw new RaasException("standalone driver '" + driverName + "' removed this client");
        }
    }

    /**
     * @param clock the client's heartbeat clock ({@link CncDescriptor#heartbeatClock}), which the driver's last
     *              heartbeat is judged by.
     * @throws RaasException when the driver closed or stopped heartbeating.
     */
    static void requireDriver(
        final CncHeaderFlyweight cnc, final String driverName, final long driverTimeoutMs, final EpochClock clock)
    {
        if (cnc.isClosed())
        {
            throw new RaasException(
                "standalone driver '" + driverName + "' (pid " + cnc.driverPid() + ") has shut down");
        }
        if (!io.dkv.verbs.soft.ProcessLiveness.isAlive(cnc.driverPid()))
        {
            throw new RaasException(
                "standalone driver '" + driverName + "' (pid " + cnc.driverPid() + ") is gone: its process has exited");
        }
        final long silent = clock.time() - cnc.heartbeat();
        if (silent > driverTimeoutMs)
        {
            throw new RaasException("standalone driver '" + driverName + "' (pid " + cnc.driverPid() +
                ") has not been alive for " + silent + " ms");
        }
    }

    /** @return why the driver is gone, or null while it is alive and this client attached to it. */
    String lost()
    {
        if (gone != null)
        {
            return gone;
        }
        try
        {
            requireDriver();
            return null;
        }
        catch (final RaasException ex)
        {
            return ex.getMessage();
        }
    }

    /** @return why the driver is gone for good, once {@link #fail} said so; else null. */
    String gone()
    {
        return gone;
    }

    /** @throws RaasException saying why, once the driver is gone for good. */
    void requireLive()
    {
        final String reason = gone;
        if (reason != null)
        {
            throw new RaasException(reason);
        }
    }

    /**
     * The driver is gone for good: calls fail from now on, saying why, and the asynchronous requests it held complete
     * with {@link RaasStatus#OUTCOME_UNKNOWN} (the driver may have carried them out before it went), so nothing waits
     * for an answer that cannot come.
     */
    void fail(final String reason)
    {
        gone = reason;
        int spins = 0;
        // completions are delivered by the holder of the polling role alone: take it, unless the attachment closes
        while (!polling.compareAndSet(false, true))
        {
            if (closed)
            {
                return;
            }
            idle(++spins);
        }
        holder = Thread.currentThread();
        try
        {
            deliverCompleted();
            for (final ClientSlot slot : slots)
            {
                if (slot.async && slot.committed && slot.finish())
                {
                    slot.status = RaasStatus.OUTCOME_UNKNOWN;
                    slot.value = 0;
                    slot.copyBack = null;
                    completeAsync(slot);
                }
            }
        }
        finally
        {
            holder = null;
            polling.set(false);
        }
    }

    /** The attachment closes: commands not yet claimed fail. */
    void markClosed()
    {
        closed = true;
    }

    boolean isClosed()
    {
        return closed;
    }

    private void requireOpen()
    {
        if (closed)
        {
            throw new RaasException("this attachment to driver '" + driverName + "' is closed");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // slots and commands

    ClientSlot acquire()
    {
        requireOpen();
        requireLive();
        ClientSlot slot;
        int spins = 0;
        while ((slot = freeSlots.poll()) == null)
        {
            if (poll() == 0)
            {
                requireOpen();
                // a handler that waits here holds the polling role, which a driver's failure needs to end the wait
                requireLive();
                awaitResponse(++spins);
            }
        }
        slotsInUse.incrementAndGet();
        slot.reset();
        return slot;
    }

    void release(final ClientSlot slot)
    {
        if (slot.block >= 0)
        {
            area.release(slot.block);
            slot.block = -1;
        }
        slot.handler = null;
        slot.connection = null;
        slot.copyBack = null;
        freeSlots.offer(slot);
        slotsInUse.decrementAndGet();
    }

    /**
     * The attachment is closing: wait until no thread reads responses and every slot is given back, so that the
     * mapped files can go without a thread still reading them (a read of unmapped memory would end the process).
     * Polling stays taken from then on.
     *
     * @param timeoutNanos how long to wait.
     * @return true when nothing uses the mappings any more; false when something still does after the wait (a
     * received message the application holds, a caller that outlived its timeout).
     */
    boolean quiesce(final long timeoutNanos)
    {
        final long deadline = nanoClock.nanoTime() + timeoutNanos;
        boolean polled = false;
        while (nanoClock.nanoTime() < deadline)
        {
            polled = polled || polling.compareAndSet(false, true);
            if (polled && slotsInUse.get() == 0)
            {
                return true;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return false;
    }

    /**
     * Room for a command in the driver's ring, wrapped by the command's flyweight, with the client id
     * and the slot's correlation id written.
     *
     * @return the flyweight, to write the command's fields with, then {@link #commit} it.
     */
    <T extends CorrelatedFlyweight> T claim(final int type, final int length, final ClientSlot slot, final T command)
    {
        int spins = 0;
        while (true)
        {
            final int index = commands.tryClaim(type, length);
            if (index >= 0)
            {
                command.wrap(commands.buffer(), index).clientId(clientId).correlationId(slot.correlation());
                return command;
            }
            requireOpen();
            requireLive();
            requireDriver();
            idle(++spins);
        }
    }

    /** The command is written: the driver may read it. */
    void commit(final CorrelatedFlyweight command)
    {
        commands.commit(command.offset());
        driverDoorbell.ring();
    }

    // ---------------------------------------------------------------------------------------------
    // responses

    /**
     * Wait for a command's response, reading responses meanwhile.
     *
     * @throws RaasException with the driver's message when the command failed.
     */
    void await(final ClientSlot slot, final String what)
    {
        awaitUntil(slot, what, nanoClock.nanoTime() + timeoutMs * 1_000_000L);
    }

    /**
     * @param driverTimeout how long the driver waits on a command it times itself (a receive, an accept).
     * @return the deadline for {@link #awaitUntil}: the driver's timeout and a second more, by this client's clock.
     */
    long deadlineAfter(final Duration driverTimeout)
    {
        return nanoClock.nanoTime() + driverTimeout.toNanos() + 1_000_000_000L;
    }

    void awaitUntil(final ClientSlot slot, final String what, final long deadline)
    {
        int spins = 0;
        while (!slot.done)
        {
            if (closed)
            {
                release(slot);
                throw new RaasException(what + ": the attachment to driver '" + driverName + "' was closed");
            }
            final String reason = gone;
            if (reason != null)
            {
                throw new RaasException(what + ": " + reason);
            }
            if (poll() == 0)
            {
                // the driver may answer in milliseconds (a receive waits on a peer): sleep rather than take a core
                awaitResponse(++spins);
                if ((spins & 255) == 0)
                {
                    requireDriver();
                    if (nanoClock.nanoTime() > deadline)
                    {
                        throw new RaasException(what + ": no answer from driver '" + driverName + "' within " +
                            timeoutMs + " ms");
                    }
                }
            }
        }
        if (slot.error != null)
        {
            final String error = slot.error;
            release(slot);
            throw new RaasException(what + ": " + error);
        }
    }

    /** Back off while waiting for the driver or a credit ({@link Waits}): spin, yield, then park. */
    static void idle(final int spins)
    {
        Waits.idle(spins);
    }

    /**
     * Back off while waiting for a response: spin, then sleep on the doorbell the driver rings with each response, for
     * at most a park's time ({@link Waits#parkNanos}), as a response read by another thread of this client rings
     * nothing. No yields: on a small host a yield gives the core away for a time slice, to whatever runs, and the
     * driver needs one to answer (see {@link io.dkv.agent.Doorbell}).
     */
    void awaitResponse(final int spins)
    {
        if (spins <= Waits.SPINS)
        {
            Thread.onSpinWait();
            return;
        }
        // counted in use, so that closing does not unmap the doorbell under a thread that holds no slot (acquire)
        slotsInUse.incrementAndGet();
        try
        {
            if (closed)
            {
                return;
            }
            responseDoorbell.sleepUnless(responsesWaiting, Waits.parkNanos(spins - Waits.SPINS));
        }
        finally
        {
            slotsInUse.decrementAndGet();
        }
    }

    /**
     * Read the responses that arrived and deliver the completions among them, if no other thread is. The thread that
     * holds the role already (a completion handler that waits on it, for a slot, a credit or a response) reads on:
     * nobody else could read what ends its wait.
     *
     * @return responses read and completions delivered.
     */
    int poll()
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
        try
        {
            // closing waits for this flag: once closed, the responses' memory may be going
            return closed ? 0 : readAndDeliver();
        }
        finally
        {
            holder = null;
            polling.set(false);
        }
    }

    private int pollNested()
    {
        if (nesting == MAX_NESTING)
        {
            throw new RaasException("completion handlers nested " + nesting + " deep on " +
                Thread.currentThread().getName() + " each wait for a slot, a credit or a response of driver '" +
                driverName + "': every one of the " + slots.length + " slots is held by a handler that waits");
        }
        nesting++;
        try
        {
            return closed ? 0 : readAndDeliver();
        }
        finally
        {
            nesting--;
        }
    }

    /** Deliver the completions read before; once none is left, read more and deliver those. */
    private int readAndDeliver()
    {
        int count = 0;
        if (completedNext == completedCount)
        {
            completedNext = 0;
            completedCount = 0;
            count = responses.read(this, Math.min(READ_LIMIT, completed.length));
        }
        return count + deliverCompleted();
    }

    private int deliverCompleted()
    {
        int delivered = 0;
        while (completedNext < completedCount)
        {
            final ClientSlot slot = completed[completedNext];
            completed[completedNext++] = null;
            delivered++;
            completeAsync(slot);
        }
        return delivered;
    }

    public void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final long correlation = response.wrap(buffer, index).correlationId();
        final int slotIndex = (int)correlation;
        if (slotIndex < 0 || slotIndex >= slots.length)
        {
            return;
        }
        final ClientSlot slot = slots[slotIndex];
        if (slot.generation != (int)(correlation >>> 32) || slot.done)
        {
            return;
        }
        switch (type)
        {
            case RSP_OK ->
            {
                ok.wrap(buffer, index);
                slot.value = ok.value();
                slot.value2 = ok.value2();
            }
            case RSP_ERROR ->
            {
                if (slot.async)
                {
                    // the driver refused the request before it reached a queue pair (its connection closed there, a
                    // region of an earlier incarnation of its node) and sends no completion after this: the request
                    // was not carried out, and this is its completion. Kept as an error, which only a synchronous
                    // caller reads, its handler never heard and its slot and credit were held for ever
                    completeLater(slot, RaasStatus.UNREACHABLE, 0);
                    return;
                }
                slot.error = error.wrap(buffer, index).message(length);
                slot.status = RaasStatus.UNREACHABLE;
            }
            case RSP_COMPLETION ->
            {
                completion.wrap(buffer, index);
                if (slot.async)
                {
                    completeLater(slot, completion.status(), completion.value());
                    return;
                }
                slot.status = completion.status();
                slot.value = completion.value();
            }
            case RSP_REGION ->
            {
                region.wrap(buffer, index);
                slot.regionHandle = region.handle();
                slot.region = region.region();
            }
            case RSP_CLIENT_READY -> slot.ready = ready.wrap(buffer, index).node();
            default ->
            {
                return;
            }
        }
        slot.done = true;
    }

    /**
     * An asynchronous request's outcome, delivered to its handler once the ring read that found it is over
     * ({@link #deliverCompleted}); nothing when the caller that submitted it failed it already, having found the driver
     * gone.
     */
    private void completeLater(final ClientSlot slot, final int status, final long value)
    {
        if (slot.finish())
        {
            slot.status = status;
            slot.value = value;
            completed[completedCount++] = slot;
        }
    }

    private void completeAsync(final ClientSlot slot)
    {
        if (slot.status == RaasStatus.SUCCESS && slot.copyBack != null)
        {
            MemorySegment.copy(area.memory(), slot.dataOffset, slot.copyBack, slot.copyBackOffset, slot.length);
        }
        final CompletionHandler handler = slot.handler;
        final long token = slot.userToken;
        final int status = slot.status;
        final long value = slot.value;
        final AttachedConnection connection = slot.connection;
        release(slot);
        if (connection != null)
        {
            connection.onCompleted();
        }
        if (handler != null)
        {
            handler.onCompletion(token, status, value);
        }
    }
}
