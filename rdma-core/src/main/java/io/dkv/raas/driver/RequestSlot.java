package io.dkv.raas.driver;

import io.dkv.raas.CompletionHandler;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.SendWorkRequest;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One request the driver is carrying: its work request (wr_id = vQPN &lt;&lt; 32 | slot index), its
 * staging memory for the copy path, and what its completion must do. Preallocated, recycled.
 */
final class RequestSlot
{
    static final int FREE = 0;
    static final int PENDING = 1;
    static final int POSTED = 2;

    static final int KIND_ONE_SIDED = 0;
    static final int KIND_MESSAGE = 1;
    static final int KIND_CONTROL = 2;
    /** A READ the receiver issues to fetch a message the sender left in its buffer. */
    static final int KIND_READ_IN = 3;

    final int index;
    final SendWorkRequest wr = new SendWorkRequest(1);
    /** Registered staging memory of this slot. */
    final MemorySegment staging;
    final long stagingOffset;

    int state = FREE;
    int kind;
    int vqpn;
    DriverConnection connection;
    NodeRoute route;
    Opcode opcode;
    long token;
    CompletionHandler handler;
    /** The caller's memory a READ result is copied into (copy path), or null. */
    MemorySegment copyBack;
    /** Registered memory the request used in place of the caller's (staging, a send buffer, a temporary region). */
    MemorySegment bounce;
    long copyBackOffset;
    int length;
    boolean atomicResult;
    PooledQp postedOn;
    int retries;
    /** For messages sent from a borrowed send buffer: its index, or -1. */
    int sendBuffer = -1;
    /** What a message or control request needs when it completes. */
    Object attachment;
    /** For a datagram: the peer's UD queue pair; 0 otherwise. */
    int udQpn;

    static final int WAITING = 0;
    static final int DONE = 1;
    static final int ABANDONED = 2;
    private static final VarHandle SYNC_STATE;
    private static final VarHandle DONE_FLAG;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SYNC_STATE = lookup.findVarHandle(RequestSlot.class, "syncState", int.class);
            DONE_FLAG = lookup.findVarHandle(RequestSlot.class, "done", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    int status;
    long value;
    boolean sync;
    /**
     * Set (release) once status and value are written; read (acquire) by the waiter. Plain writes
     * reset it and syncState: a slot is handed on through the free queue, which publishes them.
     */
    private boolean done;
    /** Of a synchronous request: WAITING, then DONE by the completion or ABANDONED by a waiter that timed out. */
    @SuppressWarnings("unused")
    private int syncState;

    /** @return true when the completion got there first; false when the waiter abandoned the slot to it. */
    boolean markDone()
    {
        return SYNC_STATE.compareAndSet(this, WAITING, DONE);
    }

    /** Completer: status and value are written. */
    void signalDone()
    {
        DONE_FLAG.setRelease(this, true);
    }

    /** Waiter. */
    boolean isDone()
    {
        return (boolean)DONE_FLAG.getAcquire(this);
    }

    /** @return true when the waiter abandoned the slot before it completed. */
    boolean abandon()
    {
        return SYNC_STATE.compareAndSet(this, WAITING, ABANDONED);
    }

    RequestSlot(final int index, final MemorySegment staging, final long stagingOffset)
    {
        this.index = index;
        this.staging = staging;
        this.stagingOffset = stagingOffset;
    }

    long wrId()
    {
        return ((long)vqpn << 32) | index;
    }

    void clear()
    {
        state = FREE;
        connection = null;
        route = null;
        handler = null;
        copyBack = null;
        bounce = null;
        postedOn = null;
        retries = 0;
        sendBuffer = -1;
        attachment = null;
        udQpn = 0;
        atomicResult = false;
        sync = false;
        done = false;
        syncState = WAITING;
        wr.reset();
    }
}
