package io.dkv.compute.pubsub;

import io.dkv.compute.interest.Topic;
import io.dkv.compute.limits.OutputBufferWatch;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;

import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection as pub/sub sees it: what it subscribes to (changed by its event loop alone, in the order subscribed,
 * as redis keeps them) and where its messages go. Messages come from any thread (a publisher's event loop, the mesh's
 * service thread): each is written to the connection's channel, which queues it behind the replies already written;
 * one publisher's messages are written in the order published. The messages queued and not yet written count against
 * the connection's output buffer limit ({@link OutputBufferWatch}: redis's client-output-buffer-limit of the pubsub
 * class while it is subscribed), checked as each is delivered: past it the connection is closed and the message
 * dropped.
 */
public final class Subscriber
{
    private final long id;
    private final Channel channel;
    private final OutputBufferWatch watch;
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Set<Topic> topics = new LinkedHashSet<>();
    private int channels;
    private int patterns;
    private int shards;
    private volatile int protocol = 2;
    /** Messages held while a SUBSCRIBE's peers are told ({@link #hold}); null when none are held. */
    private ArrayDeque<ByteBuf> held;

    /**
     * @param id      the connection's id: messages reach a channel's subscribers in the order of their ids.
     * @param channel where its replies go.
     * @param watch   the connection's pending replies against its output limit; null: no limit.
     */
    public Subscriber(final long id, final Channel channel, final OutputBufferWatch watch)
    {
        this.id = id;
        this.channel = channel;
        this.watch = watch;
        if (watch != null)
        {
            watch.queuedMessages(queuedBytes);
        }
    }

    public long id()
    {
        return id;
    }

    /** @return 2 or 3: how its messages are written. */
    public int protocol()
    {
        return protocol;
    }

    /** @param protocol as HELLO chose. */
    public void protocol(final int protocol)
    {
        this.protocol = protocol;
    }

    /** @return true when the connection is in subscribed mode: any subscription of any kind. */
    public boolean subscribed()
    {
        return !topics.isEmpty();
    }

    /** @return channels and patterns (what SUBSCRIBE's and PSUBSCRIBE's confirmations count). */
    public int count()
    {
        return channels + patterns;
    }

    /** @return shard channels (what SSUBSCRIBE's confirmations count). */
    public int shardCount()
    {
        return shards;
    }

    /** @return the count a confirmation of a topic of this kind gives. */
    public int countFor(final byte kind)
    {
        return kind == Topic.SHARD ? shards : count();
    }

    /** @return true when it was not subscribed to the topic before. */
    boolean add(final Topic topic)
    {
        if (!topics.add(topic))
        {
            return false;
        }
        tally(topic.kind(), 1);
        classify();
        return true;
    }

    /** @return true when it was subscribed to the topic. */
    boolean remove(final Topic topic)
    {
        if (!topics.remove(topic))
        {
            return false;
        }
        tally(topic.kind(), -1);
        classify();
        return true;
    }

    private void tally(final byte kind, final int delta)
    {
        switch (kind)
        {
            case Topic.CHANNEL -> channels += delta;
            case Topic.PATTERN -> patterns += delta;
            default -> shards += delta;
        }
    }

    /** Its output limit is the pubsub class's while it has a subscription, as redis's CLIENT_PUBSUB flag says. */
    private void classify()
    {
        if (watch != null)
        {
            watch.subscribed(subscribed());
        }
    }

    /** @return its topics of one kind, in the order subscribed (a copy: unsubscribing changes them). */
    Topic[] topics(final byte kind)
    {
        return topics.stream().filter(topic -> topic.kind() == kind).toArray(Topic[]::new);
    }

    /**
     * Queue a message for the connection; a connection past its limit is closed instead.
     *
     * @param message the message's bytes, released by the write.
     */
    void deliver(final ByteBuf message)
    {
        final int bytes = message.readableBytes();
        queuedBytes.addAndGet(bytes);
        if (watch != null && watch.check())
        {
            queuedBytes.addAndGet(-bytes);
            message.release();
            return;
        }
        synchronized (this)
        {
            if (held != null)
            {
                held.addLast(message);
                return;
            }
        }
        channel.writeAndFlush(message).addListener((ChannelFutureListener)future ->
        {
            queuedBytes.addAndGet(-bytes);
            if (!future.isSuccess())
            {
                future.channel().close();
            }
            else if (watch != null && watch.aboveSoft())
            {
                // the soft period ends when the peer takes its messages below the bound
                watch.check();
            }
        });
    }

    /**
     * Hold the messages that come from now on (each still counted against the output limit) until {@link #release}:
     * a SUBSCRIBE whose peers are told on another thread answers before any message of its topics reaches the
     * connection, as redis's does. On the connection's loop.
     */
    public synchronized void hold()
    {
        if (held == null)
        {
            held = new ArrayDeque<>();
        }
    }

    /**
     * Write the messages held into {@code out}, after what it holds (the confirmations), and write those that come
     * from now on to the connection as before. On the connection's loop, which writes {@code out} before any message
     * another thread writes after this.
     */
    public synchronized void release(final ByteBuf out)
    {
        if (held == null)
        {
            return;
        }
        for (ByteBuf message = held.pollFirst(); message != null; message = held.pollFirst())
        {
            queuedBytes.addAndGet(-message.readableBytes());
            out.writeBytes(message);
            message.release();
        }
        held = null;
    }

    /** The connection closed: the messages held go nowhere. */
    synchronized void dropHeld()
    {
        if (held != null)
        {
            held.forEach(ByteBuf::release);
            held = null;
        }
    }

    public String toString()
    {
        return "subscriber " + id + " (" + topics.size() + " topics)";
    }
}
