package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.ReceivedMessage;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaRpcDescriptor;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The MetaServer's one thread of work: accepts connections to the RPC service, serves the requests
 * waiting on any of them without blocking on one, forwards writes to the peer and answers them
 * when the peer did, and expires leases. One thread means one writer of the tables, which the
 * seqlock needs, and no locks on the request path.
 */
final class MetaService implements Agent
{
    private static final System.Logger LOG = System.getLogger(MetaService.class.getName());
    /** Requests served from one connection per turn, so that one busy node cannot starve the others. */
    private static final int BURST = 16;

    private static final class Inbound
    {
        final Connection connection;
        final RequestSequence sequence = new RequestSequence();
        long lastActivityNanos;
        boolean closed;

        Inbound(final Connection connection, final long nowNanos)
        {
            this.connection = connection;
            this.lastActivityNanos = nowNanos;
        }
    }

    private final Raas raas;
    private final Listener listener;
    private final RequestHandler handler;
    private final PeerLink peer;
    private final MetaState state;
    /** What the service's intervals and leases are measured by. */
    private final NanoClock nanoClock;
    private final long leaseCheckNanos;
    private final long idleNanos;
    private final List<Inbound> inbound = new ArrayList<>();
    private final MetaMessageWriter removal = new MetaMessageWriter();
    private final MemorySegment removalBuffer;
    /** A replica count the operator named at start, for this thread to apply and forward; 0 for none. */
    private volatile int replicasWanted;
    private volatile boolean replicasSettled = true;
    private long nextLeaseCheckNanos;
    private long lastLeaseCheckNanos;
    private final long stallNanos;
    private final AtomicCounter leaseChecks;
    private final AtomicCounter ownStalls;
    private final AtomicCounter leasesRunOut;

    MetaService(
        final Raas raas,
        final Listener listener,
        final RequestHandler handler,
        final PeerLink peer,
        final MetaState state,
        final MetaServerContext context,
        final MetaServerCounters counters)
    {
        this.raas = raas;
        this.listener = listener;
        this.handler = handler;
        this.peer = peer;
        this.state = state;
        this.nanoClock = context.nanoClock();
        this.leaseCheckNanos = TimeUnit.MILLISECONDS.toNanos(context.leaseCheckMs());
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(context.idleConnectionMs());
        this.removalBuffer = raas.allocateBuffer(4096);
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(context.leaseStallMs());
        this.leaseChecks = counters.get(MetaServerCounter.LEASE_CHECKS);
        this.ownStalls = counters.get(MetaServerCounter.OWN_STALLS);
        this.leasesRunOut = counters.get(MetaServerCounter.LEASES_RUN_OUT);
        this.lastLeaseCheckNanos = nanoClock.nanoTime();
    }

    public String roleName()
    {
        return "meta-service-" + raas.self().id();
    }

    public int doWork()
    {
        final long now = nanoClock.nanoTime();
        int work = raas.poll();
        Connection accepted;
        while ((accepted = listener.poll()) != null)
        {
            inbound.add(new Inbound(accepted, now));
            work++;
        }
        for (int i = inbound.size() - 1; i >= 0; i--)
        {
            final Inbound connection = inbound.get(i);
            if (!connection.closed)
            {
                work += serve(connection, now);
            }
            if (connection.closed)
            {
                inbound.remove(i);
            }
        }
        if (peer != null)
        {
            work += peer.doWork(now);
        }
        if (now - nextLeaseCheckNanos >= 0)
        {
            nextLeaseCheckNanos = now + leaseCheckNanos;
            work += checkLeases(now);
        }
        if (!replicasSettled)
        {
            work += applyReplicas();
        }
        return work;
    }

    /**
     * Have this thread set the replica count, and forward it to the peer like any write (so after the
     * peer's state was taken at start, the count the operator named still wins).
     */
    void replicas(final int replicas)
    {
        replicasWanted = replicas;
        replicasSettled = false;
    }

    /** @return true once the count asked for by {@link #replicas(int)} is applied. */
    boolean replicasSettled()
    {
        return replicasSettled;
    }

    private int applyReplicas()
    {
        final int before = state.membership().replicas();
        if (state.replicas(replicasWanted))
        {
            System.err.println("MetaServer " + raas.self().id() + ": replicas " + before + " -> " + replicasWanted +
                " (membership epoch " + state.membership().epoch() + ")");
            if (peer != null)
            {
                final int length = RequestHandler.withMembers(removal.wrap(removalBuffer)
                    .request(MetaRpcDescriptor.TYPE_REPLICATE_MEMBERS, (short)0, 0), state.replicasChange(),
                    state.foundedBy()).finish();
                peer.forward(removalBuffer, length, status -> { });
            }
        }
        replicasSettled = true;
        return 1;
    }

    private int serve(final Inbound in, final long now)
    {
        int served = 0;
        while (served < BURST && in.connection.isReadable())
        {
            final int replyLength;
            try (ReceivedMessage message = in.connection.recvZeroCopy(Duration.ZERO))
            {
                final MemorySegment request = message.payload();
                replyLength = handler.handle(request, request.byteSize(), in.connection.nodeId(), in.sequence);
            }
            catch (final RaasException closed)
            {
                close(in);
                return served + 1;
            }
            served++;
            in.lastActivityNanos = now;
            respond(in, replyLength);
            if (in.closed)
            {
                return served;
            }
        }
        if (served == 0 && now - in.lastActivityNanos > idleNanos)
        {
            close(in);
        }
        return served;
    }

    /** Answer now, or once the peer has the write too. */
    private void respond(final Inbound in, final int replyLength)
    {
        if (peer != null && handler.pushRequested())
        {
            peer.reconnectNow();
        }
        final int replicationLength = handler.replicationLength();
        if (replicationLength > 0 && peer != null)
        {
            final byte[] reply = handler.replyBuffer().asSlice(0, replyLength).toArray(ValueLayout.JAVA_BYTE);
            if (peer.forward(handler.replicationBuffer(), replicationLength,
                status -> send(in, MemorySegment.ofArray(reply), reply.length)))
            {
                return;
            }
        }
        send(in, handler.replyBuffer(), replyLength);
    }

    private void send(final Inbound in, final MemorySegment reply, final int length)
    {
        if (in.closed)
        {
            return;
        }
        try
        {
            in.connection.send(reply, 0, length, Flags.ADAPTIVE);
        }
        catch (final RaasException ex)
        {
            close(in);
        }
    }

    /**
     * Expire the leases that ran out, unless this thread was kept from checking for longer than a stall: then the
     * server did not listen for that long (SIGSTOP, a VM paused, a long GC), the renewals sent meanwhile went unheard,
     * and judging by them would declare every member down at once, with no copy left to refill another. Every lease
     * runs anew from now instead: a node that died meanwhile is found one lease later.
     */
    private int checkLeases(final long now)
    {
        final long gap = now - lastLeaseCheckNanos;
        lastLeaseCheckNanos = now;
        final int work;
        if (gap > stallNanos)
        {
            ownStalls.incrementRelease();
            state.listeningSince(now);
            work = 1;
        }
        else
        {
            work = expireLeases();
        }
        // counted once done: whoever reads it sees the check's outcome
        leaseChecks.incrementRelease();
        return work;
    }

    private int expireLeases()
    {
        final List<MetaState.Expired> expired = state.expire();
        for (final MetaState.Expired node : expired)
        {
            leasesRunOut.incrementRelease();
            // an operator reading why a live node's regions vanished starts here
            LOG.log(System.Logger.Level.INFO, "node " + node.nodeId() + "'s lease ran out: removed with its regions " +
                node.regions() + "; it registers again at its next renewal if it is alive");
            if (peer != null)
            {
                final MetaMessageWriter forwarded = RequestHandler.withMembers(removal.wrap(removalBuffer)
                    .request(MetaRpcDescriptor.TYPE_REPLICATE_NODE_REMOVAL, (short)0, 0).putLong(node.nodeId()),
                    node.change(), state.foundedBy());
                peer.forward(removalBuffer, forwarded.finish(), status -> { });
            }
        }
        return expired.size();
    }

    private static void close(final Inbound in)
    {
        in.closed = true;
        try
        {
            in.connection.close();
        }
        catch (final RaasException ignore)
        {
            // the node is gone already
        }
    }

    public void onClose()
    {
        for (final Inbound in : inbound)
        {
            close(in);
        }
        inbound.clear();
        listener.close();
        if (peer != null)
        {
            peer.close();
        }
    }
}
