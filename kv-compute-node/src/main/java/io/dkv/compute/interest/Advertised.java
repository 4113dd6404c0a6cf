package io.dkv.compute.interest;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The topics this node tells its peers it has subscribers to, each with the number of the change that added it; the
 * numbers order this node's changes for its peers ({@link PeerInterest}).
 *
 * <p>A hand-over, as {@link #encode} writes it and {@link #decode} reads it:
 * <pre>
 *   0  as of    long   the number of the last change made before it was built
 *   8  topics   int
 *  12  topic    kind byte, number long, length int, the name's bytes; once per topic
 * </pre>
 */
final class Advertised
{
    private final Map<Topic, Long> topics = new ConcurrentHashMap<>();
    private long number;

    /** @return true when the topic is told to peers. */
    boolean has(final Topic topic)
    {
        return topics.containsKey(topic);
    }

    /** @return the change's number. */
    synchronized long add(final Topic topic)
    {
        topics.put(topic, ++number);
        return number;
    }

    /** @return the change's number. */
    synchronized long remove(final Topic topic)
    {
        topics.remove(topic);
        return ++number;
    }

    /** @return the hand-over: every topic told, as of the last change's number. */
    byte[] encode()
    {
        final long asOf;
        final Map<Topic, Long> copy;
        synchronized (this)
        {
            asOf = number;
            copy = new HashMap<>(topics);
        }
        int bytes = Long.BYTES + Integer.BYTES;
        for (final Topic topic : copy.keySet())
        {
            bytes += 1 + Long.BYTES + Integer.BYTES + topic.name().length;
        }
        final ByteBuffer out = ByteBuffer.allocate(bytes).putLong(asOf).putInt(copy.size());
        for (final Map.Entry<Topic, Long> entry : copy.entrySet())
        {
            final Topic topic = entry.getKey();
            out.put(topic.kind()).putLong(entry.getValue()).putInt(topic.name().length).put(topic.name());
        }
        return out.array();
    }

    /** Read a peer's hand-over into {@code interest}. */
    static void decode(final long peer, final ByteBuffer in, final PeerInterest interest)
    {
        final long asOf = in.getLong();
        final int count = in.getInt();
        final Map<Topic, Long> topics = new HashMap<>(Math.max(16, count * 2));
        for (int i = 0; i < count; i++)
        {
            final byte kind = in.get();
            final long number = in.getLong();
            final byte[] name = new byte[in.getInt()];
            in.get(name);
            topics.put(new Topic(kind, name), number);
        }
        interest.replace(peer, asOf, topics);
    }
}
