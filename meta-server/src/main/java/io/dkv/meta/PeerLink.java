package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaTableDescriptor;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * This MetaServer's link to the other one. Writes are forwarded in order over one connection and
 * each is acknowledged to its node only when the peer acknowledged it; when the peer does not
 * answer the link goes down and what waits is acknowledged at once (applied here alone).
 *
 * <p>Each time the link comes up the two servers settle who is current: the connecting side sends
 * CATCH_UP with the time it started serving, and the server that has served longer sends its full
 * state to the other, on its own link, ahead of any later write on that connection (so the other
 * never applies a write older than the state it holds). A restarted server is the younger one, so
 * it takes the state of the server that stayed up, including what that server applied alone. Driven
 * by the service's thread only.
 *
 * <p>Frames both ways are sealed and checked with the cluster secret like any node's; a reply that
 * is not authentic takes the link down (the peer has another secret).
 */
final class PeerLink
{
    /** Status handed to a waiting write when the peer did not acknowledge it: it was applied here alone. */
    static final short APPLIED_ALONE = -1;
    /** Frames of a state transfer stay below this, well inside the peer's advertised buffer. */
    private static final int SNAPSHOT_FRAME_BYTES = 32 * 1024;
    private static final int LARGEST_RECORD = MetaTableDescriptor.REGION_SLOT_LENGTH;

    interface ReplyHandler
    {
        void onReply(short status);
    }

    private record Pending(long requestId, long sentNanos, ReplyHandler handler)
    {
    }

    private final Raas raas;
    private final MetaEndpoint peer;
    private final MetaState state;
    private final long servingSince;
    private final NanoClock clock;
    private final long forwardTimeoutNanos;
    private final long retryNanos;
    private final MemorySegment sendBuffer;
    private final MemorySegment replyBuffer;
    private final MetaMessageWriter writer = new MetaMessageWriter();
    private final MetaMessageReader reader = new MetaMessageReader();
    private final MetaFrameAuthenticator authenticator;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private Connection connection;
    private long nextRequestId = ThreadLocalRandom.current().nextLong();
    private long nextAttemptNanos;
    private boolean pushWanted;
    private volatile boolean catchUpSettled;
    private volatile boolean up;
    private volatile long snapshotsSent;
    private Boolean reportedUp;

    PeerLink(final Raas raas, final MetaEndpoint peer, final MetaState state, final long servingSince,
        final MetaServerContext context)
    {
        this.raas = raas;
        this.peer = peer;
        this.state = state;
        this.servingSince = servingSince;
        this.clock = context.nanoClock();
        this.forwardTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(context.forwardTimeoutMs());
        this.retryNanos = TimeUnit.MILLISECONDS.toNanos(context.peerRetryMs());
        this.sendBuffer = raas.allocateBuffer(MAX_FRAME_LENGTH);
        this.replyBuffer = raas.allocateBuffer(MAX_FRAME_LENGTH);
        this.authenticator =
            new MetaFrameAuthenticator(context.clusterSecret(), context.epochClock(), context.authWindowMs());
    }

    boolean isUp()
    {
        return up;
    }

    /** @return true once a starting server knows whether its peer's state comes (or that it does not). */
    boolean catchUpSettled()
    {
        return catchUpSettled;
    }

    /** @return full state transfers sent to the peer so far. */
    long snapshotsSent()
    {
        return snapshotsSent;
    }

    /**
     * The peer asked who is current and this server is: the peer may have restarted, so the
     * connection to it is connected anew (which settles it again, and sends the state).
     */
    void reconnectNow()
    {
        if (connection != null)
        {
            down("the peer asks for this server's state");
        }
        nextAttemptNanos = clock.nanoTime();
    }

    /**
     * Forward a write; the handler hears the peer's answer, or {@link #APPLIED_ALONE}.
     *
     * @param frame  the write, finished but not sealed, with room for the mac.
     * @param length its length without the mac.
     * @return false when the link is down (the write is applied here alone and the caller acknowledges it now).
     */
    boolean forward(final MemorySegment frame, final int length, final ReplyHandler handler)
    {
        if (connection == null)
        {
            return false;
        }
        final long requestId = nextRequestId++;
        frame.set(MetaTableDescriptor.LONG, REQUEST_ID_OFFSET, requestId);
        try
        {
            connection.send(frame, 0, authenticator.seal(frame, length), Flags.ADAPTIVE);
        }
        catch (final RaasException ex)
        {
            down("forwarding failed: " + ex.getMessage());
            return false;
        }
        pending.add(new Pending(requestId, clock.nanoTime(), handler));
        return true;
    }

    int doWork(final long nowNanos)
    {
        int work = 0;
        if (connection != null)
        {
            work += drainReplies();
            final Pending oldest = pending.peek();
            if (connection != null && oldest != null && nowNanos - oldest.sentNanos > forwardTimeoutNanos)
            {
                down(typeName(TYPE_REPLY) + " to request " + oldest.requestId + " did not come within " +
                    TimeUnit.NANOSECONDS.toMillis(forwardTimeoutNanos) + " ms");
            }
        }
        if (connection == null && nowNanos - nextAttemptNanos >= 0)
        {
            connect();
            work++;
        }
        if (connection != null && pushWanted)
        {
            pushState();
            work++;
        }
        return work;
    }

    private void connect()
    {
        try
        {
            connection = raas.connect(peer.nodeId(), SERVICE, Flags.ADAPTIVE, null);
        }
        catch (final RaasException ex)
        {
            nextAttemptNanos = clock.nanoTime() + retryNanos;
            report(false, "peer MetaServer " + peer.nodeId() + " unreachable: " + ex.getMessage());
            catchUpSettled = true;
            return;
        }
        up = true;
        report(true, "peer MetaServer " + peer.nodeId() + " reachable");
        final int length = writer.wrap(sendBuffer).request(TYPE_CATCH_UP, (short)0, 0).putLong(servingSince).finish();
        if (!forward(sendBuffer, length, this::onSettled))
        {
            catchUpSettled = true;
        }
    }

    /** The peer's answer to CATCH_UP: it sends its state (OK), or this server is the current one (DECLINED). */
    private void onSettled(final short status)
    {
        if (status == STATUS_DECLINED)
        {
            pushWanted = true;
        }
        if (status != STATUS_OK)
        {
            catchUpSettled = true;
        }
    }

    private int drainReplies()
    {
        int replies = 0;
        while (connection != null && connection.isReadable())
        {
            final int length;
            try
            {
                length = connection.recv(replyBuffer, 0, MAX_FRAME_LENGTH, Duration.ZERO);
            }
            catch (final RaasException ex)
            {
                down(ex.getMessage());
                return replies;
            }
            replies++;
            reader.wrap(replyBuffer, 0, Math.max(0, length - MAC_LENGTH));
            if (length < HEADER_LENGTH + MAC_LENGTH || reader.type() != TYPE_REPLY)
            {
                down("the peer answered with a " + length + "-byte frame that is no reply");
                return replies;
            }
            final String forged = authenticator.verify(replyBuffer, length);
            if (forged != null)
            {
                down("the peer's reply is not authentic: " + forged);
                return replies;
            }
            final Pending head = pending.peek();
            if (head == null || head.requestId != reader.requestId())
            {
                continue;
            }
            pending.poll();
            final short status = reader.status();
            if (status == STATUS_NOT_PEER || status == STATUS_UNAUTHENTICATED)
            {
                head.handler.onReply(status);
                down(status == STATUS_NOT_PEER ?
                    "MetaServer " + peer.nodeId() + " does not have this server as its peer" :
                    "MetaServer " + peer.nodeId() + " refused a frame as not authentic");
                return replies;
            }
            if (status != STATUS_OK && status != STATUS_DECLINED)
            {
                System.err.println("MetaServer: peer MetaServer " + peer.nodeId() + " refused request " +
                    head.requestId + ": " +
                    statusName(status));
            }
            head.handler.onReply(status);
        }
        return replies;
    }

    /** Send the full state, in frames the peer installs when the last one arrives. */
    private void pushState()
    {
        pushWanted = false;
        final MetaState.Snapshot snapshot = state.snapshot();
        final List<Member> nodes = snapshot.nodes();
        final List<RemoteRegion> regions = snapshot.regions();
        int nextNode = 0;
        int nextRegion = 0;
        boolean first = true;
        do
        {
            writer.wrap(sendBuffer).request(TYPE_SNAPSHOT, (short)0, 0).putInt(0).putInt(0);
            int nodeCount = 0;
            int regionCount = 0;
            while (nextNode < nodes.size() && writer.position() + LARGEST_RECORD < SNAPSHOT_FRAME_BYTES)
            {
                final Member member = nodes.get(nextNode++);
                writer.putNode(member.node()).putToken(member.token());
                nodeCount++;
            }
            while (nextRegion < regions.size() && writer.position() + LARGEST_RECORD < SNAPSHOT_FRAME_BYTES)
            {
                writer.putRegion(regions.get(nextRegion++));
                regionCount++;
            }
            final boolean last = nextNode == nodes.size() && nextRegion == regions.size();
            if (last && snapshot.membership() != null)
            {
                // at most MAX_MEMBER_SLOTS members and founders: well inside the room the frame leaves
                writer.putMembership(snapshot.membership());
                if (snapshot.foundedBy() != null)
                {
                    writer.putFounders(snapshot.foundedBy());
                }
            }
            writer.putIntAt(HEADER_LENGTH, nodeCount);
            writer.putIntAt(HEADER_LENGTH + 4, regionCount);
            writer.flags((short)((first ? FLAG_FIRST : 0) | (last ? FLAG_LAST : 0)));
            final int length = writer.finish();
            first = false;
            if (!forward(sendBuffer, length, status -> { }))
            {
                return;
            }
            // read answers between frames, so that the peer is never held up sending them
            drainReplies();
            if (connection == null)
            {
                return;
            }
            if (last)
            {
                break;
            }
        }
        while (true);
        snapshotsSent++;
        System.err.println("MetaServer: sent " + nodes.size() + " nodes and " + regions.size() +
            " regions to peer MetaServer " + peer.nodeId());
    }

    private void down(final String reason)
    {
        final Connection current = connection;
        connection = null;
        up = false;
        nextAttemptNanos = clock.nanoTime() + retryNanos;
        if (current != null)
        {
            try
            {
                current.close();
            }
            catch (final RaasException ignore)
            {
                // the peer is gone already
            }
        }
        report(false, "peer MetaServer " + peer.nodeId() + " down: " + reason);
        Pending waiting;
        while ((waiting = pending.poll()) != null)
        {
            waiting.handler.onReply(APPLIED_ALONE);
        }
    }

    void close()
    {
        final Connection current = connection;
        connection = null;
        up = false;
        if (current != null)
        {
            try
            {
                current.close();
            }
            catch (final RaasException ignore)
            {
                // closing anyway
            }
        }
    }

    /** Say when the peer comes or goes: an operator needs to know it is down, not of every retry. */
    private void report(final boolean isUp, final String what)
    {
        if (reportedUp == null || reportedUp != isUp)
        {
            reportedUp = isUp;
            System.err.println("MetaServer: " + what);
        }
    }
}
