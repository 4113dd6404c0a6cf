package io.dkv.compute;

import java.util.Arrays;

/**
 * A connection's requests decoded and not yet run, each with the time its bytes were read: a ring that grows to the
 * most one read decodes and is reused, so that holding requests allocates nothing once a connection is warm. Touched
 * by the connection's event loop thread only.
 */
final class RequestQueue
{
    private Object[] requests = new Object[16];
    private long[] decodedNanos = new long[16];
    private int head;
    private int size;

    void add(final Object request, final long nanos)
    {
        if (size == requests.length)
        {
            grow();
        }
        final int tail = (head + size) & (requests.length - 1);
        requests[tail] = request;
        decodedNanos[tail] = nanos;
        size++;
    }

    boolean isEmpty()
    {
        return size == 0;
    }

    int size()
    {
        return size;
    }

    /** @return when the first request's bytes were read; the queue must not be empty. */
    long headNanos()
    {
        return decodedNanos[head];
    }

    /** @return the first request, left in the queue; the queue must not be empty. */
    Object peek()
    {
        return requests[head];
    }

    /** @return the first request, taken out; the queue must not be empty. */
    Object poll()
    {
        final Object request = requests[head];
        requests[head] = null;
        head = (head + 1) & (requests.length - 1);
        size--;
        return request;
    }

    /** Drop every request: the connection is gone, and what it asked for is not run. */
    void clear()
    {
        Arrays.fill(requests, null);
        head = 0;
        size = 0;
    }

    private void grow()
    {
        final int capacity = requests.length * 2;
        final Object[] grownRequests = new Object[capacity];
        final long[] grownNanos = new long[capacity];
        for (int i = 0; i < size; i++)
        {
            final int from = (head + i) & (requests.length - 1);
            grownRequests[i] = requests[from];
            grownNanos[i] = decodedNanos[from];
        }
        requests = grownRequests;
        decodedNanos = grownNanos;
        head = 0;
    }
}
