package io.dkv.compute.pubsub;

import io.dkv.compute.interest.Topic;
import io.dkv.client.keyspace.KeyPattern;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * This node's subscribers by topic. Subscribing and unsubscribing happen on the subscribers' event loops, delivery on
 * the publishers' loops and the mesh's service thread: the maps are concurrent, and a topic's subscribers are kept in
 * the order of their connections' ids (the order redis, which appends them, mostly gives).
 */
final class LocalSubscribers
{
    private final Map<Topic, Subscribed> byTopic = new ConcurrentHashMap<>();
    /** The patterns subscribed to, for a published channel to be matched against. */
    private final Map<Topic, Subscribed> patterns = new ConcurrentHashMap<>();
    private final ByteBufAllocator alloc;

    /** A topic's subscribers, and for a pattern its matcher. */
    private static final class Subscribed
    {
        final Map<Long, Subscriber> subscribers = new ConcurrentSkipListMap<>();
        final KeyPattern pattern;

        Subscribed(final Topic topic)
        {
            this.pattern = topic.kind() == Topic.PATTERN ? KeyPattern.of(topic.name()) : null;
        }

        /** A pattern's matcher keeps state while it matches: one match at a time. */
        synchronized boolean matches(final byte[] channel)
        {
            return pattern.matches(channel);
        }
    }

    LocalSubscribers(final ByteBufAllocator alloc)
    {
        this.alloc = alloc;
    }

    /** @return true when the topic had no subscriber of this node before. */
    boolean add(final Topic topic, final Subscriber subscriber)
    {
        final boolean[] first = new boolean[1];
        byTopic.compute(topic, (key, subscribed) ->
        {
            final Subscribed now = subscribed == null ? new Subscribed(topic) : subscribed;
            first[0] = now.subscribers.isEmpty();
            now.subscribers.put(subscriber.id(), subscriber);
            if (topic.kind() == Topic.PATTERN)
            {
                patterns.put(topic, now);
            }
            return now;
        });
        return first[0];
    }

    /** @return true when the topic has no subscriber of this node left. */
    boolean remove(final Topic topic, final Subscriber subscriber)
    {
        final boolean[] last = new boolean[1];
        byTopic.computeIfPresent(topic, (key, subscribed) ->
        {
            subscribed.subscribers.remove(subscriber.id());
            if (subscribed.subscribers.isEmpty())
            {
                last[0] = true;
                patterns.remove(topic);
                return null;
            }
            return subscribed;
        });
        return last[0];
    }

    /** @return true while a connection of this node subscribes to the topic. */
    boolean has(final Topic topic)
    {
        return byTopic.containsKey(topic);
    }

    /** @return the topics of one kind with subscribers here. */
    List<Topic> topics(final byte kind)
    {
        final List<Topic> found = new ArrayList<>();
        for (final Topic topic : byTopic.keySet())
        {
            if (topic.kind() == kind)
            {
                found.add(topic);
            }
        }
        return found;
    }

    /** @return this node's subscribers to the topic. */
    int count(final Topic topic)
    {
        final Subscribed subscribed = byTopic.get(topic);
        return subscribed == null ? 0 : subscribed.subscribers.size();
    }

    /** @return how many of this node's subscriptions a message to the channel would reach now. */
    int receivers(final boolean shard, final byte[] channel)
    {
        final Subscribed direct = byTopic.get(new Topic(shard ? Topic.SHARD : Topic.CHANNEL, channel));
        int receivers = direct == null ? 0 : direct.subscribers.size();
        if (!shard)
        {
            for (final Subscribed subscribed : patterns.values())
            {
                if (subscribed.matches(channel))
                {
                    receivers += subscribed.subscribers.size();
                }
            }
        }
        return receivers;
    }

    /**
     * Deliver a message published to a channel (or a shard channel) to this node's subscribers: the channel's, then
     * each matching pattern's (a connection subscribed both ways gets it twice, as from redis).
     *
     * @return how many received it.
     */
    int deliver(final boolean shard, final byte[] channel, final byte[] message)
    {
        int receivers = 0;
        final Subscribed direct = byTopic.get(new Topic(shard ? Topic.SHARD : Topic.CHANNEL, channel));
        if (direct != null)
        {
            ByteBuf resp2 = null;
            ByteBuf resp3 = null;
            for (final Subscriber subscriber : direct.subscribers.values())
            {
                if (subscriber.protocol() == 3)
                {
                    resp3 = resp3 == null ? frame(shard, null, channel, message, 3) : resp3;
                    subscriber.deliver(resp3.retainedDuplicate());
                }
                else
                {
                    resp2 = resp2 == null ? frame(shard, null, channel, message, 2) : resp2;
                    subscriber.deliver(resp2.retainedDuplicate());
                }
                receivers++;
            }
            release(resp2, resp3);
        }
        if (!shard)
        {
            for (final Map.Entry<Topic, Subscribed> entry : patterns.entrySet())
            {
                final Subscribed subscribed = entry.getValue();
                if (!subscribed.matches(channel))
                {
                    continue;
                }
                final byte[] pattern = entry.getKey().name();
                for (final Subscriber subscriber : subscribed.subscribers.values())
                {
                    subscriber.deliver(frame(false, pattern, channel, message, subscriber.protocol()));
                    receivers++;
                }
            }
        }
        return receivers;
    }

    private ByteBuf frame(final boolean shard, final byte[] pattern, final byte[] channel, final byte[] message,
        final int protocol)
    {
        final ByteBuf frame = alloc.buffer(message.length + channel.length + 48 +
            (pattern == null ? 0 : pattern.length + 16));
        if (pattern == null)
        {
            PushFrames.message(frame, shard, channel, message, protocol);
        }
        else
        {
            PushFrames.patternMessage(frame, pattern, channel, message, protocol);
        }
        return frame;
    }

    private static void release(final ByteBuf resp2, final ByteBuf resp3)
    {
        if (resp2 != null)
        {
            resp2.release();
        }
        if (resp3 != null)
        {
            resp3.release();
        }
    }
}
