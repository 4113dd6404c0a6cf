package io.dkv.raas.driver;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One request the driver is carrying: its work request (wr_id = vQPN &lt;&lt; 32 | slot index), its
 * staging memory for the copy path, and what its completion must do. Preallocated, recycled.
 *
 * <p>A slot is also the description of its request: a connection fills one in ({@link #oneSided},
 * {@link #localMemory}, {@link #operands}, {@link #awaited} or {@link #notifying}) and hands it to
 * {@link RequestPipeline#submit}, the one entry for a request, so no request travels as a list of
 * arguments and none allocates.
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
    /** Registered staging memory of this slot: its bytes of {@link #stagingRegion}, from {@link #stagingOffset}. */
    final MemorySegment staging;
    final MemoryRegion stagingRegion;
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
    /** Of a one-sided request not yet staged: the caller's memory, or registered memory in place of it. */
    MemorySegment local;
    long localOffset;
    MemoryRegion registered;
    long registeredOffset;

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

    RequestSlot(final int index, final MemoryRegion stagingRegion, final long stagingOffset, final int stagingBytes)
    {
        this.index = index;
        this.stagingRegion = stagingRegion;
        this.stagingOffset = stagingOffset;
        this.staging = stagingRegion.segment().asSlice(stagingOffset, stagingBytes);
    }

    long wrId()
    {
        return ((long)vqpn << 32) | index;
    }

    /**
     * Describe a one-sided request of a connection: its work request goes to the region's memory;
     * where its local bytes live is left to {@link RequestStaging} when the pipeline takes it.
     */
    RequestSlot oneSided(
        final DriverConnection connection,
        final Opcode opcode,
        final RemoteRegion region,
        final long offset,
        final int length)
    {
        kind = KIND_ONE_SIDED;
        this.connection = connection;
        route = connection.route();
        vqpn = connection.vqpn();
        this.opcode = opcode;
        this.length = length;
        wr.reset().wrId(wrId()).opcode(opcode).sendFlags(SendFlags.SIGNALED)
            .remote(region.address() + offset, region.rkey());
        return this;
    }

    /** The caller's memory a one-sided request reads into or writes from. */
    RequestSlot localMemory(final MemorySegment memory, final long offset)
    {
        local = memory;
        localOffset = offset;
        return this;
    }

    /** Registered memory a one-sided request uses as it is (a standalone driver's client data area). */
    RequestSlot registeredMemory(final MemoryRegion region, final long offset)
    {
        registered = region;
        registeredOffset = offset;
        return this;
    }

    /** The operands of a compare-and-swap (compare, swap) or fetch-and-add (add, unused). */
    RequestSlot operands(final long compareAdd, final long swap)
    {
        wr.compareAdd(compareAdd).swap(swap);
        return this;
    }

    /** The caller waits for the outcome ({@link RequestPipeline#awaitStatus}). */
    RequestSlot awaited()
    {
        sync = true;
        return this;
    }

    /** The outcome goes to the handler, with the caller's token. */
    RequestSlot notifying(final long token, final CompletionHandler handler)
    {
        sync = false;
        this.token = token;
        this.handler = handler;
        return this;
    }

    /** Send the first {@code bytes} of the staging memory (a control message, or a message that fits). */
    void sendStaged(final int bytes)
    {
        wr.local(stagingRegion, stagingOffset, bytes);
    }

    /** Address the work request to the route's DC target. */
    void targetRoute()
    {
        wr.dc(route.ah, route.node.dctNumber(), route.node.dcKey());
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
        local = null;
        registered = null;
        atomicResult = false;
        sync = false;
        done = false;
        syncState = WAITING;
        wr.reset();
    }
}
