package io.dkv.compute.interest;

import io.dkv.compute.mesh.ComputeMesh;
import io.dkv.compute.mesh.MeshException;
import org.agrona.ErrorHandler;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The topics this node tells its peers it has ({@link Advertised}) and those they told it ({@link PeerInterest}):
 * channels, patterns and shard channels with subscribers (pub/sub), keys with blocked connections (blocking pops).
 *
 * <p>The rules (kv-compute-node/README.md, "Compute nodes meet each other"):
 * <ul>
 * <li>A topic's first subscriber or waiter on a node makes the node tell every peer, and the command goes on once
 * each answered (or failed to in the call timeout): anything published or pushed anywhere after that reaches it. The
 * last one gone tells them it is gone. A node's changes are told one at a time (a lock), numbered, so that a peer
 * applies them in order even when a change and a hand-over cross.</li>
 * <li>Meeting a peer hands over the topics both ways ({@link ComputeMesh.Participant}); a peer that left is
 * forgotten with its topics.</li>
 * </ul>
 */
public final class PoolInterest implements ComputeMesh.Participant
{
    /** A change of a node's topics. */
    static final byte CALL_CHANGE = 8;

    private final ComputeMesh mesh;
    private final Duration readyTimeout;
    private final ErrorHandler errors;
    private final Advertised advertised = new Advertised();
    private final PeerInterest interest = new PeerInterest();
    private final ReentrantLock telling = new ReentrantLock();

    /**
     * @param mesh         the node's peers, or null for a node alone (no RaaS handle).
     * @param readyTimeout how long a change waits for the node to have met its peers after it starts.
     * @param errors       where failed calls to peers are counted.
     */
    public PoolInterest(final ComputeMesh mesh, final Duration readyTimeout, final ErrorHandler errors)
    {
        this.mesh = mesh;
        this.readyTimeout = readyTimeout;
        this.errors = errors;
        if (mesh != null)
        {
            mesh.participant(this);
            mesh.handle(CALL_CHANGE, this::changed);
        }
    }

    /** @return a node alone: nothing to tell, nobody telling. */
    public static PoolInterest alone()
    {
        return new PoolInterest(null, Duration.ZERO, ex ->
        {
        });
    }

    /** @return the node's peers, or null for a node alone. */
    public ComputeMesh mesh()
    {
        return mesh;
    }

    /**
     * Bring what the peers are told of a topic up to {@code wanted} (this node's subscribers of it, or its connections
     * blocked on it), waiting for their answers.
     */
    public void tell(final Topic topic, final BooleanSupplier wanted)
    {
        if (mesh == null)
        {
            return;
        }
        awaitReady();
        telling.lock();
        try
        {
            final boolean has = wanted.getAsBoolean();
            if (has == advertised.has(topic))
            {
                return;
            }
            final long number = has ? advertised.add(topic) : advertised.remove(topic);
            final byte[] call = ByteBuffer.allocate(2 + Long.BYTES + Integer.BYTES + topic.name().length)
                .put(topic.kind()).put((byte)(has ? 1 : 0)).putLong(number).putInt(topic.name().length)
                .put(topic.name()).array();
            for (final long peer : mesh.peers())
            {
                try
                {
                    mesh.call(peer, CALL_CHANGE, call);
                }
                catch (final MeshException ex)
                {
                    // the mesh greets it again: the hand-over then carries this change
                    errors.onError(ex);
                }
            }
        }
        finally
        {
            telling.unlock();
        }
    }

    /**
     * @param kind what the name is a topic of; a channel also finds the peers with a pattern matching it.
     * @param into where the peers that told of the topic are added.
     */
    public void peersFor(final byte kind, final byte[] name, final Set<Long> into)
    {
        if (mesh != null && interest.any())
        {
            interest.peersFor(kind, name, into);
        }
    }

    /** @return true when a peer told of any topic. */
    public boolean any()
    {
        return mesh != null && interest.any();
    }

    /** @return true once the node met its peers, waiting for nothing; true for a node alone. */
    public boolean ready()
    {
        return mesh == null || mesh.ready();
    }

    /** @return true once the node met its peers, waiting up to the ready timeout for it; true for a node alone. */
    public boolean awaitReady()
    {
        return mesh == null || mesh.ready() || mesh.awaitReady(readyTimeout);
    }

    private byte[] changed(final long caller, final ByteBuffer call)
    {
        final byte kind = call.get();
        final boolean added = call.get() != 0;
        final long number = call.getLong();
        final byte[] name = new byte[call.getInt()];
        call.get(name);
        interest.change(caller, new Topic(kind, name), added, number);
        return new byte[0];
    }

    public byte[] handOver(final long peer)
    {
        return advertised.encode();
    }

    public void takeOver(final long peer, final ByteBuffer handedOver)
    {
        Advertised.decode(peer, handedOver, interest);
    }

    public void left(final long peer)
    {
        interest.drop(peer);
    }
}
