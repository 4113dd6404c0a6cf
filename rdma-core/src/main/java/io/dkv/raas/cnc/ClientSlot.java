package io.dkv.raas.cnc;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One request of an attached client in flight: its correlation id is (generation &lt;&lt; 32 | index),
 * it owns a small chunk of the data area for small transfers, and it remembers what its response
 * must do.
 */
final class ClientSlot
{
    private static final VarHandle DONE;

    static
    {
        try
        {
            DONE = MethodHandles.lookup().findVarHandle(ClientSlot.class, "done", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    final int index;
    final long chunkOffset;
    /**
     * The flyweight a one-sided request's command is written with: the slot is its request's alone
     * from acquire to release, and a request made on every thread's hot path must not allocate one.
     */
    final OneSidedFlyweight oneSided = new OneSidedFlyweight();
    int generation;

    volatile boolean done;
    /**
     * An asynchronous request was handed to the driver: when the driver is found gone, its completion is failed.
     */
    volatile boolean committed;
    int status;
    long value;
    long value2;
    String error;
    RemoteRegion region;
    int regionHandle;
    NodeRecord ready;

    boolean async;
    CompletionHandler handler;
    long userToken;
    AttachedConnection connection;
    MemorySegment copyBack;
    long copyBackOffset;
    int length;
    long dataOffset;
    /** A block of the data area allocated for this request (large transfers), or -1. */
    long block = -1;

    ClientSlot(final int index, final long chunkOffset)
    {
        this.index = index;
        this.chunkOffset = chunkOffset;
    }

    long correlation()
    {
        return ((long)generation << 32) | index;
    }

    /**
     * @return true for the one caller that finished the request: its response, or the attachment failing it when the
     * driver went, or the caller that submitted it finding the driver gone; the others leave the slot alone.
     */
    boolean finish()
    {
        return DONE.compareAndSet(this, false, true);
    }

    void reset()
    {
        generation++;
        done = false;
        committed = false;
        status = 0;
        value = 0;
        value2 = 0;
        error = null;
        region = null;
        ready = null;
        async = false;
        handler = null;
        connection = null;
        copyBack = null;
        block = -1;
    }
}
