package io.dkv.compute.blocking;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this node last heard of when each peer's oldest waiter on a key blocked. A peer's waiters block later and later
 * on its clock, so what was heard is never later than the truth: a round asks the peer that looks oldest, and a peer
 * asked that is not the oldest says when its oldest blocked, which is then kept. Nothing heard counts as oldest of all
 * (the peer is asked); a peer with no waiter is forgotten, as it may block again at any time.
 */
final class PeerStamps
{
    /** No waiter: later than any stamp. */
    static final long NONE = Long.MAX_VALUE;
    /** Nothing heard: earlier than any stamp, so that the peer is asked. */
    static final long UNKNOWN = Long.MIN_VALUE;
    /** No peer left out of {@link #earliest}. */
    static final long NOBODY = Long.MIN_VALUE;
    /** Keys kept at most: a cache, cleared when it grows past this (what is cleared is asked again). */
    private static final int MAX_KEYS = 1 << 16;

    private final Map<ByteBuffer, Map<Long, Long>> byKey = new ConcurrentHashMap<>();

    /** @return when the peer's oldest waiter on the key blocked, as far as heard, or {@link #UNKNOWN}. */
    long get(final ByteBuffer key, final long peer)
    {
        final Map<Long, Long> peers = byKey.get(key);
        final Long stamp = peers == null ? null : peers.get(peer);
        return stamp == null ? UNKNOWN : stamp;
    }

    /** @param stamp what the peer said of its oldest waiter on the key, {@link #NONE} for none. */
    void heard(final ByteBuffer key, final long peer, final long stamp)
    {
        if (stamp == NONE || stamp == UNKNOWN)
        {
            final Map<Long, Long> peers = byKey.get(key);
            if (peers != null)
            {
                peers.remove(peer);
            }
            return;
        }
        if (byKey.size() >= MAX_KEYS)
        {
            byKey.clear();
        }
        byKey.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).merge(peer, stamp, Math::max);
    }

    /** Forget the key's peers other than {@code waiting}, those the pool says have waiters on it. */
    void retain(final ByteBuffer key, final Set<Long> waiting)
    {
        final Map<Long, Long> peers = byKey.get(key);
        if (peers != null)
        {
            peers.keySet().retainAll(waiting);
            if (peers.isEmpty())
            {
                byKey.remove(key, peers);
            }
        }
    }

    /** @return the earliest of the peers' oldest waiters, {@code except} left out ({@link #NONE} when none). */
    long earliest(final ByteBuffer key, final Set<Long> peers, final long except)
    {
        long earliest = NONE;
        for (final long peer : peers)
        {
            if (peer != except)
            {
                earliest = Math.min(earliest, get(key, peer));
            }
        }
        return earliest;
    }
}
