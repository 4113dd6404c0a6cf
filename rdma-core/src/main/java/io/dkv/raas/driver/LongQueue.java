package io.dkv.raas.driver;

import org.agrona.BitUtil;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded queue of longs for one producer and one consumer (the poller hands received messages
 * to the connection's reader). Allocates nothing after construction.
 */
final class LongQueue
{
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle ELEMENTS = MethodHandles.arrayElementVarHandle(long[].class);

    static
    {
        try
        {
            HEAD = MethodHandles.lookup().findVarHandle(LongQueue.class, "head", long.class);
            TAIL = MethodHandles.lookup().findVarHandle(LongQueue.class, "tail", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final long[] elements;
    private final int mask;
    @SuppressWarnings("unused")
    private volatile long head;
    @SuppressWarnings("unused")
    private volatile long tail;

    LongQueue(final int capacity)
    {
        final int size = BitUtil.findNextPositivePowerOfTwo(Math.max(2, capacity));
        elements = new long[size];
        mask = size - 1;
    }

    boolean offer(final long value)
    {
        final long t = (long)TAIL.getOpaque(this);
        if (t - (long)HEAD.getAcquire(this) >= elements.length)
        {
            return false;
        }
        ELEMENTS.setOpaque(elements, (int)t & mask, value);
        TAIL.setRelease(this, t + 1);
        return true;
    }

    boolean isEmpty()
    {
        return (long)HEAD.getOpaque(this) == (long)TAIL.getAcquire(this);
    }

    /** @return the oldest value; call only when not empty. */
    long peek()
    {
        return (long)ELEMENTS.getOpaque(elements, (int)(long)HEAD.getOpaque(this) & mask);
    }

    /** Drop the oldest value. */
    void remove()
    {
        HEAD.setRelease(this, (long)HEAD.getOpaque(this) + 1);
    }
}
