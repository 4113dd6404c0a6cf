package io.dkv.compute.pubsub;

import io.dkv.compute.interest.PoolInterest;
import io.dkv.compute.interest.Topic;
import io.dkv.compute.mesh.ComputeMesh;
import io.dkv.compute.mesh.MeshException;
import io.netty.buffer.ByteBufAllocator;
import org.agrona.ErrorHandler;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A compute node's pub/sub, across the pool: its own subscribers ({@link LocalSubscribers}), and the channels,
 * patterns and shard channels of its peers' subscribers as the pool's {@link PoolInterest} tells them.
 *
 * <p>The rules (kv-compute-node/README.md, "Pub/sub across compute nodes"):
 * <ul>
 * <li>A topic's first subscriber on a node makes the node tell every peer, and its SUBSCRIBE is answered once each
 * answered (or failed to in the call timeout): a message published anywhere after the answer reaches it. The last
 * unsubscriber's UNSUBSCRIBE tells them it is gone.</li>
 * <li>PUBLISH delivers to this node's subscribers, then calls each peer that subscribes to the channel or a pattern
 * matching it, and answers the sum of the receivers each counted. One connection's messages go one after another
 * over each peer's connection, so they arrive in the order published. A peer with no subscriber costs nothing.</li>
 * <li>Meeting a peer hands over the topics both ways ({@link ComputeMesh.Participant}); a peer that left is
 * forgotten with its topics; its subscribers' connections died with it.</li>
 * </ul>
 * Costs: a PUBLISH with no remote subscriber, no call; with some, one call to each node that has some (round trips
 * in turn, as one connection's publishes wait for each other anyway). A topic's first SUBSCRIBE on a node, one call to
 * every peer.
 */
public final class PubSub
{
    /** A message to deliver to the callee's subscribers. */
    static final byte CALL_PUBLISH = 9;
    /** The callee's topics of a kind with their subscribers' counts (PUBSUB's subcommands). */
    static final byte CALL_TOPICS = 10;
    /** How many of the callee's subscriptions a message to a channel would reach (PUBLISH inside MULTI). */
    static final byte CALL_RECEIVERS = 12;

    private final PoolInterest interest;
    private final ComputeMesh mesh;
    private final ErrorHandler errors;
    private final LocalSubscribers local;

    /**
     * @param interest what the node and its peers have: its pub/sub is its own when the node is alone.
     * @param alloc    where messages' buffers come from.
     * @param errors   where failed calls to peers are counted.
     */
    public PubSub(final PoolInterest interest, final ByteBufAllocator alloc, final ErrorHandler errors)
    {
        this.interest = interest;
        this.mesh = interest.mesh();
        this.errors = errors;
        this.local = new LocalSubscribers(alloc);
        if (mesh != null)
        {
            mesh.handle(CALL_PUBLISH, this::delivered);
            mesh.handle(CALL_TOPICS, this::topicsAsked);
            mesh.handle(CALL_RECEIVERS, (caller, call) ->
            {
                final boolean shard = call.get() != 0;
                final byte[] channel = new byte[call.remaining()];
                call.get(channel);
                return ByteBuffer.allocate(Integer.BYTES).putInt(local.receivers(shard, channel)).array();
            });
        }
    }

    /** @return pub/sub among one node's connections: a node without peers (no RaaS handle), or a scratch table. */
    public static PubSub alone()
    {
        return new PubSub(PoolInterest.alone(), ByteBufAllocator.DEFAULT, ex ->
        {
        });
    }

    /**
     * Subscribe a connection to a topic; answered once every peer knows of it.
     *
     * @return false when it was subscribed to it already.
     */
    public boolean subscribe(final Subscriber subscriber, final Topic topic)
    {
        if (!subscribeHere(subscriber, topic))
        {
            return false;
        }
        tellSubscribed(topic);
        return true;
    }

    /**
     * The first half of {@link #subscribe}: the connection subscribed on this node, its messages from here delivered;
     * {@link #tellSubscribed} tells the peers.
     *
     * @return false when it was subscribed to it already.
     */
    public boolean subscribeHere(final Subscriber subscriber, final Topic topic)
    {
        if (!subscriber.add(topic))
        {
            return false;
        }
        local.add(topic, subscriber);
        return true;
    }

    /** The second half of {@link #subscribe}: every peer told of the topic, if it is new here; on any thread. */
    public void tellSubscribed(final Topic topic)
    {
        interest.tell(topic, () -> local.has(topic));
    }

    /** @return true when a connection of this node subscribes to the topic. */
    public boolean hasHere(final Topic topic)
    {
        return local.has(topic);
    }

    /** @return false when the connection was not subscribed to the topic. */
    public boolean unsubscribe(final Subscriber subscriber, final Topic topic)
    {
        if (!subscriber.remove(topic))
        {
            return false;
        }
        local.remove(topic, subscriber);
        interest.tell(topic, () -> local.has(topic));
        return true;
    }

    /** @return the connection's topics of one kind, in the order subscribed. */
    public Topic[] topicsOf(final Subscriber subscriber, final byte kind)
    {
        return subscriber.topics(kind);
    }

    /** The connection closed: each of its subscriptions ends. */
    public void gone(final Subscriber subscriber)
    {
        subscriber.dropHeld();
        for (final byte kind : new byte[]{Topic.CHANNEL, Topic.PATTERN, Topic.SHARD})
        {
            for (final Topic topic : subscriber.topics(kind))
            {
                unsubscribe(subscriber, topic);
            }
        }
    }

    /**
     * Publish a message to a channel (or a shard channel) across the pool.
     *
     * @return how many subscriptions received it.
     */
    public long publish(final boolean shard, final byte[] channel, final byte[] message)
    {
        long receivers = local.deliver(shard, channel, message);
        if (mesh == null || !interest.awaitReady() || !interest.any())
        {
            return receivers;
        }
        final Set<Long> peers = new HashSet<>();
        interest.peersFor(shard ? Topic.SHARD : Topic.CHANNEL, channel, peers);
        if (peers.isEmpty())
        {
            return receivers;
        }
        final byte[] call = ByteBuffer.allocate(1 + 2 * Integer.BYTES + channel.length + message.length)
            .put((byte)(shard ? 1 : 0)).putInt(channel.length).put(channel).putInt(message.length).put(message).array();
        for (final long peer : peers)
        {
            try
            {
                receivers += ByteBuffer.wrap(mesh.call(peer, CALL_PUBLISH, call)).getInt();
            }
            catch (final MeshException ex)
            {
                // the peer's subscribers miss the message, as a subscriber whose node died would
                errors.onError(ex);
            }
        }
        return receivers;
    }

    /**
     * @return true when publishing to the channel calls peers, or waits for the node to have met them: a peer told of
     * a subscriber it has (a channel's, a pattern's matching it), or the mesh not yet ready.
     */
    public boolean callsPeers(final boolean shard, final byte[] channel)
    {
        if (mesh == null)
        {
            return false;
        }
        if (!interest.ready())
        {
            return true;
        }
        if (!interest.any())
        {
            return false;
        }
        final Set<Long> peers = new HashSet<>();
        interest.peersFor(shard ? Topic.SHARD : Topic.CHANNEL, channel, peers);
        return !peers.isEmpty();
    }

    /**
     * @return true when PUBSUB's questions, or telling of a topic new to the node, call peers, or wait for the node to
     * have met them.
     */
    public boolean asksPeers()
    {
        return mesh != null && (!interest.ready() || !mesh.peers().isEmpty());
    }

    /**
     * @return how many subscriptions across the pool a message to the channel would reach now, delivering nothing:
     * PUBLISH inside EXEC answers this and publishes once the transaction committed.
     */
    public long receivers(final boolean shard, final byte[] channel)
    {
        long receivers = local.receivers(shard, channel);
        if (mesh == null || !interest.awaitReady() || !interest.any())
        {
            return receivers;
        }
        final Set<Long> peers = new HashSet<>();
        interest.peersFor(shard ? Topic.SHARD : Topic.CHANNEL, channel, peers);
        final byte[] call = ByteBuffer.allocate(1 + channel.length).put((byte)(shard ? 1 : 0)).put(channel).array();
        for (final long peer : peers)
        {
            try
            {
                receivers += ByteBuffer.wrap(mesh.call(peer, CALL_RECEIVERS, call)).getInt();
            }
            catch (final MeshException ex)
            {
                errors.onError(ex);
            }
        }
        return receivers;
    }

    /**
     * @return every topic of a kind subscribed to on any node of the pool, with its subscriptions across the pool.
     */
    public Map<Topic, Long> topics(final byte kind)
    {
        final Map<Topic, Long> found = new HashMap<>();
        for (final Topic topic : local.topics(kind))
        {
            found.merge(topic, (long)local.count(topic), Long::sum);
        }
        if (mesh == null || !interest.awaitReady())
        {
            return found;
        }
        for (final long peer : mesh.peers())
        {
            try
            {
                final ByteBuffer reply = ByteBuffer.wrap(mesh.call(peer, CALL_TOPICS, new byte[]{kind}));
                final int count = reply.getInt();
                for (int i = 0; i < count; i++)
                {
                    final byte[] name = new byte[reply.getInt()];
                    reply.get(name);
                    found.merge(new Topic(kind, name), (long)reply.getInt(), Long::sum);
                }
            }
            catch (final MeshException ex)
            {
                errors.onError(ex);
            }
        }
        return found;
    }

    /** @return what this node and its peers have, which blocking commands share. */
    public PoolInterest interest()
    {
        return interest;
    }

    private byte[] delivered(final long caller, final ByteBuffer call)
    {
        final boolean shard = call.get() != 0;
        final byte[] channel = new byte[call.getInt()];
        call.get(channel);
        final byte[] message = new byte[call.getInt()];
        call.get(message);
        return ByteBuffer.allocate(Integer.BYTES).putInt(local.deliver(shard, channel, message)).array();
    }

    private byte[] topicsAsked(final long caller, final ByteBuffer call)
    {
        final byte kind = call.get();
        final List<Topic> topics = new ArrayList<>(local.topics(kind));
        int bytes = Integer.BYTES;
        for (final Topic topic : topics)
        {
            bytes += 2 * Integer.BYTES + topic.name().length;
        }
        final ByteBuffer reply = ByteBuffer.allocate(bytes).putInt(topics.size());
        for (final Topic topic : topics)
        {
            reply.putInt(topic.name().length).put(topic.name()).putInt(local.count(topic));
        }
        return reply.array();
    }
}
