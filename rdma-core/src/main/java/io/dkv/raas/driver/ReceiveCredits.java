package io.dkv.raas.driver;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The message credits a driver grants over all its connections, bounded by the buffers of its shared receive queue.
 * Every message a peer sends (SEND or WRITE_WITH_IMM) takes one of that queue's receive requests, so the credits
 * granted over all connections must not pass the buffers posted, or the queue runs dry and senders wait on
 * receiver-not-ready; a DC initiator completes in order, so such a wait holds back every request behind it, to any
 * node. A fixed grant per connection (16) passed 1,024 buffers at 64 connections.
 *
 * <p>The rules, each applied when a connection is opened or one of its messages is consumed:
 * <ul>
 *     <li>capacity: the buffers less a reserve for control messages (credits, adverts, connects), which take a
 *     receive request each but hold it only until the poller reads them;</li>
 *     <li>a connection opened gets its fair share, {@code capacity / connections} bounded by the configured credits
 *     per connection, out of what is free; at least one, so that every connection can move, even when that one is
 *     more than is free (an overdraft);</li>
 *     <li>while no credit is free (or credits are overdrawn), a connection holding more than its fair share keeps
 *     the credit of each message consumed: its grant shrinks by one, and the credit is free for a connection below
 *     its share, or repays the overdraft;</li>
 *     <li>while credits are free, a connection holding less than its fair share gets one more with each message
 *     consumed (the CREDIT message carries it), up to the configured credits;</li>
 *     <li>a connection closed gives its whole grant back.</li>
 * </ul>
 * So grants converge on fair shares as messages are consumed, and the credits granted pass the capacity only by the
 * connections opened while none was free, one each, until the larger grants shrank by as much. Only connections
 * beyond the capacity itself (896 with the default 1,024 buffers) keep it overdrawn: raise the buffers for more.
 * Thread-safe: connections are opened by the poller and callers, and consumed by their receivers.
 */
final class ReceiveCredits
{
    private final int capacity;
    private final int perConnection;
    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();

    /**
     * @param receiveBuffers buffers of the shared receive queue.
     * @param perConnection  the most credits one connection is granted.
     */
    ReceiveCredits(final int receiveBuffers, final int perConnection)
    {
        this.capacity = Math.max(1, receiveBuffers - reserveFor(receiveBuffers));
        this.perConnection = Math.max(1, Math.min(perConnection, capacity));
    }

    /** @return the buffers kept for control messages: an eighth, at least 8. */
    static int reserveFor(final int receiveBuffers)
    {
        return Math.min(receiveBuffers - 1, Math.max(8, receiveBuffers / 8));
    }

    /** @return the credits all connections may hold together without overdrawing. */
    int capacity()
    {
        return capacity;
    }

    /** @return the credits granted over all connections now. */
    int granted()
    {
        return granted.get();
    }

    /** @return the connections holding a grant. */
    int connections()
    {
        return connections.get();
    }

    /** @return what one connection should hold with the connections there are now. */
    int fairShare()
    {
        return Math.max(1, Math.min(perConnection, capacity / Math.max(1, connections.get())));
    }

    /**
     * A connection opens: its first grant.
     *
     * @return the credits it holds, at least one.
     */
    int open()
    {
        connections.incrementAndGet();
        final int share = fairShare();
        while (true)
        {
            final int current = granted.get();
            final int grant = Math.max(1, Math.min(share, capacity - current));
            if (granted.compareAndSet(current, current + grant))
            {
                return grant;
            }
        }
    }

    /**
     * One message of a connection holding {@code held} credits was consumed: how many credits go back to its peer.
     *
     * @return 0 (the connection's grant shrinks by one), 1, or 2 (it grows by one).
     */
    int onConsumed(final int held)
    {
        while (true)
        {
            final int current = granted.get();
            final int share = fairShare();
            if (current >= capacity && held > share)
            {
                if (granted.compareAndSet(current, current - 1))
                {
                    return 0;
                }
            }
            else if (current < capacity && held < share)
            {
                if (granted.compareAndSet(current, current + 1))
                {
                    return 2;
                }
            }
            else
            {
                return 1;
            }
        }
    }

    /** A connection holding {@code held} credits closed: they are free again. */
    void close(final int held)
    {
        granted.addAndGet(-held);
        connections.decrementAndGet();
    }
}
