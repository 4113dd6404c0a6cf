package io.dkv.compute.interest;

import io.dkv.client.keyspace.KeyPattern;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The topics each peer has subscribers to, as its changes and hand-overs tell ({@link Advertised}): what a publisher
 * here reads to know which peers to send a message to.
 *
 * <p>Changes may arrive out of order (two threads of a peer call one after the other) and a hand-over may cross
 * changes made while it was built: each change carries the peer's sequence number for it, and a topic's state is
 * taken from the highest number seen for it. A topic removed is kept as a tombstone with its number, so that an older
 * addition arriving late is ignored; a hand-over of number S removes the topics it lacks whose numbers are below S
 * (they were removed before it was built; one removed after it comes by a change above S). Tombstones far below the
 * peer's highest number are pruned: no call is that late.
 */
final class PeerInterest
{
    /** Numbers this far below a peer's highest are from calls long answered: their tombstones go. */
    static final long TOMBSTONE_SPAN = 1 << 20;

    private final Map<Long, Of> peers = new HashMap<>();
    /** For publishers: the peers subscribing to a channel or shard channel, and each peer's patterns. */
    private final Map<Topic, Set<Long>> subscribedBy = new ConcurrentHashMap<>();
    private final Map<Long, Map<Topic, KeyPattern>> patterns = new ConcurrentHashMap<>();

    /** What is known of one peer: each topic's last number, negative for a topic removed. */
    private static final class Of
    {
        final Map<Topic, Long> numbers = new HashMap<>();
        long highest;
        int tombstones;
    }

    /** A peer's change of one topic. */
    synchronized void change(final long peer, final Topic topic, final boolean added, final long number)
    {
        final Of of = peers.computeIfAbsent(peer, id -> new Of());
        apply(peer, of, topic, added, number);
        prune(peer, of);
    }

    /** A peer's hand-over: its topics with their numbers, as of its number {@code asOf}. */
    synchronized void replace(final long peer, final long asOf, final Map<Topic, Long> topics)
    {
        final Of of = peers.computeIfAbsent(peer, id -> new Of());
        for (final Map.Entry<Topic, Long> entry : topics.entrySet())
        {
            apply(peer, of, entry.getKey(), true, entry.getValue());
        }
        for (final Topic held : List.copyOf(of.numbers.keySet()))
        {
            final long number = of.numbers.get(held);
            if (number > 0 && number < asOf && !topics.containsKey(held))
            {
                apply(peer, of, held, false, asOf);
            }
        }
        of.highest = Math.max(of.highest, asOf);
        prune(peer, of);
    }

    /** The peer left: nothing of it is kept. */
    synchronized void drop(final long peer)
    {
        final Of of = peers.remove(peer);
        if (of != null)
        {
            for (final Map.Entry<Topic, Long> entry : of.numbers.entrySet())
            {
                if (entry.getValue() > 0)
                {
                    unindex(peer, entry.getKey());
                }
            }
        }
        patterns.remove(peer);
    }

    private void apply(final long peer, final Of of, final Topic topic, final boolean added, final long number)
    {
        final Long known = of.numbers.get(topic);
        if (known != null && Math.abs(known) >= number)
        {
            return;
        }
        of.highest = Math.max(of.highest, number);
        final boolean was = known != null && known > 0;
        of.numbers.put(topic, added ? number : -number);
        if (!added && known != null && known > 0 || !added && known == null)
        {
            of.tombstones++;
        }
        else if (added && known != null && known < 0)
        {
            of.tombstones--;
        }
        if (added && !was)
        {
            index(peer, topic);
        }
        else if (!added && was)
        {
            unindex(peer, topic);
        }
    }

    private void prune(final long peer, final Of of)
    {
        if (of.tombstones < 1024 || of.tombstones < of.numbers.size() / 2)
        {
            return;
        }
        final Iterator<Map.Entry<Topic, Long>> entries = of.numbers.entrySet().iterator();
        while (entries.hasNext())
        {
            final long number = entries.next().getValue();
            if (number < 0 && -number < of.highest - TOMBSTONE_SPAN)
            {
                entries.remove();
                of.tombstones--;
            }
        }
    }

    private void index(final long peer, final Topic topic)
    {
        if (topic.kind() == Topic.PATTERN)
        {
            patterns.computeIfAbsent(peer, id -> new ConcurrentHashMap<>()).put(topic, KeyPattern.of(topic.name()));
        }
        else
        {
            subscribedBy.computeIfAbsent(topic, key -> ConcurrentHashMap.newKeySet()).add(peer);
        }
    }

    private void unindex(final long peer, final Topic topic)
    {
        if (topic.kind() == Topic.PATTERN)
        {
            final Map<Topic, KeyPattern> ofPeer = patterns.get(peer);
            if (ofPeer != null)
            {
                ofPeer.remove(topic);
            }
        }
        else
        {
            subscribedBy.computeIfPresent(topic, (key, set) ->
            {
                set.remove(peer);
                return set.isEmpty() ? null : set;
            });
        }
    }

    /**
     * @param kind {@link Topic#CHANNEL}, {@link Topic#SHARD} or {@link Topic#KEY}.
     * @param into where the peers that have the topic are added, and for a channel those with a pattern it matches.
     */
    void peersFor(final byte kind, final byte[] name, final Set<Long> into)
    {
        final Set<Long> direct = subscribedBy.get(new Topic(kind, name));
        if (direct != null)
        {
            into.addAll(direct);
        }
        if (kind != Topic.CHANNEL)
        {
            return;
        }
        final byte[] channel = name;
        for (final Map.Entry<Long, Map<Topic, KeyPattern>> entry : patterns.entrySet())
        {
            if (into.contains(entry.getKey()))
            {
                continue;
            }
            for (final KeyPattern pattern : entry.getValue().values())
            {
                final boolean matches;
                synchronized (pattern)
                {
                    matches = pattern.matches(channel);
                }
                if (matches)
                {
                    into.add(entry.getKey());
                    break;
                }
            }
        }
    }

    /** @return true when any peer subscribes to anything: a publisher with no peer to tell sends nothing. */
    boolean any()
    {
        return !subscribedBy.isEmpty() || patterns.values().stream().anyMatch(map -> !map.isEmpty());
    }
}
