package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaMessageReader;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaRpcException;
import org.agrona.concurrent.EpochClock;

import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * Turns one RPC frame into one reply: checks the frame as untrusted input (any malformed frame is
 * answered with an error status, never an exception), checks that it is authentic and fresh (its
 * mac, timestamp and request id) and that a change to a node's records carries the node's token,
 * applies the request to the state, and writes what the peer MetaServer must apply to stay the same
 * (the resulting record, not the request: a forwarded write is idempotent and the peer needs no
 * rules of its own). Replies are sealed here; forwarded writes are sealed by the {@link PeerLink}.
 */
final class RequestHandler
{
    private final MetaState state;
    private final long selfId;
    private final long peerId;
    private final long leaseMs;
    private final long servingSince;
    private final EpochClock clock;
    private final RemoteRegion tablesForClients;
    private final MetaFrameAuthenticator authenticator;
    private final SecureRandom random = new SecureRandom();
    private final MetaMessageReader reader = new MetaMessageReader();
    private final MetaMessageWriter reply = new MetaMessageWriter();
    private final MetaMessageWriter replication = new MetaMessageWriter();
    private final MemorySegment replyBuffer;
    private final MemorySegment replicationBuffer;
    private int replicationLength;
    private boolean pushRequested;
    private List<Member> incomingNodes;
    private List<RemoteRegion> incomingRegions;
    private final MetaServerCounters counters;
    private volatile long snapshotsInstalled;
    private volatile long requestsHandled;
    private volatile long unauthenticatedRequests;
    private volatile long forbiddenRequests;
    private boolean operator;

    /**
     * @param state             the records.
     * @param selfId            this MetaServer's node id.
     * @param peerId            the peer MetaServer's node id, or 0.
     * @param leaseMs           the lease granted on register and heartbeat.
     * @param servingSince      when this server started serving (wall-clock millis): the older server's state wins.
     * @param clock             what leases are granted and judged by.
     * @param tablesForClients  the table region as bootstrap hands it out.
     * @param replyBuffer       where replies are written.
     * @param replicationBuffer where forwarded writes are written.
     * @param authenticator     checks requests and seals replies.
     * @param counters          where each frame is counted, by its type or why it was refused.
     */
    RequestHandler(
        final MetaState state,
        final long selfId,
        final long peerId,
        final long leaseMs,
        final long servingSince,
        final EpochClock clock,
        final RemoteRegion tablesForClients,
        final MemorySegment replyBuffer,
        final MemorySegment replicationBuffer,
        final MetaFrameAuthenticator authenticator,
        final MetaServerCounters counters)
    {
        this.authenticator = authenticator;
        this.counters = counters;
        this.state = state;
        this.selfId = selfId;
        this.peerId = peerId;
        this.leaseMs = leaseMs;
        this.servingSince = servingSince;
        this.clock = clock;
        this.tablesForClients = tablesForClients;
        this.replyBuffer = replyBuffer;
        this.replicationBuffer = replicationBuffer;
    }

    MemorySegment replyBuffer()
    {
        return replyBuffer;
    }

    MemorySegment replicationBuffer()
    {
        return replicationBuffer;
    }

    /** @return bytes of the write to forward to the peer after the last request, 0 for none. */
    int replicationLength()
    {
        return replicationLength;
    }

    /** @return true when the last request was the peer asking for this server's state, and it gets it. */
    boolean pushRequested()
    {
        return pushRequested;
    }

    /** @return frames handled so far, well-formed or not (any thread may look). */
    long requestsHandled()
    {
        return requestsHandled;
    }

    /** @return requests refused as not authentic: a bad mac, a stale timestamp, a replayed request id. */
    long unauthenticatedRequests()
    {
        return unauthenticatedRequests;
    }

    /** @return authentic requests refused for changing a node's records without its token. */
    long forbiddenRequests()
    {
        return forbiddenRequests;
    }

    /** @return full state transfers from the peer installed so far. */
    long snapshotsInstalled()
    {
        return snapshotsInstalled;
    }

    /**
     * @param frame    the request as received.
     * @param length   its length.
     * @param sender   the node the connection comes from.
     * @param sequence the request ids seen on the connection.
     * @return the reply's length in {@link #replyBuffer()}, sealed.
     */
    int handle(final MemorySegment frame, final long length, final long sender, final RequestSequence sequence)
    {
        return authenticator.seal(replyBuffer, handleUnsealed(frame, length, sender, sequence));
    }

    private int handleUnsealed(final MemorySegment frame, final long length, final long sender,
        final RequestSequence sequence)
    {
        replicationLength = 0;
        pushRequested = false;
        operator = false;
        requestsHandled++;
        counters.onFrame();
        long requestId = 0;
        try
        {
            reader.wrap(frame, 0, (int)Math.max(0, Math.min(length - MAC_LENGTH, Integer.MAX_VALUE)));
            if (length >= HEADER_LENGTH)
            {
                requestId = reader.requestId();
            }
            if (length > MAX_FRAME_LENGTH)
            {
                throw new MetaRpcException(STATUS_MALFORMED,
                    "frame of " + length + " bytes exceeds " + MAX_FRAME_LENGTH);
            }
            if (length >= HEADER_LENGTH && reader.version() != PROTOCOL_VERSION)
            {
                throw new MetaRpcException(STATUS_UNSUPPORTED_VERSION,
                    "protocol version " + reader.version() + ", this server speaks " +
                    PROTOCOL_VERSION);
            }
            if (length < HEADER_LENGTH + MAC_LENGTH)
            {
                throw new MetaRpcException(STATUS_MALFORMED,
                    "frame of " + length + " bytes is shorter than the " + HEADER_LENGTH +
                    "-byte header and the " + MAC_LENGTH + "-byte mac");
            }
            String refused = authenticator.verify(frame, (int)length);
            if (refused == null)
            {
                refused = sequence.accept(requestId);
            }
            if (refused != null)
            {
                unauthenticatedRequests++;
                throw new MetaRpcException(STATUS_UNAUTHENTICATED, refused);
            }
            operator = reader.type() != TYPE_REPLY && (reader.flags() & FLAG_OPERATOR) != 0;
            reader.body();
            final byte type = reader.type();
            counters.onRequest(type);
            return switch (type)
            {
                case TYPE_BOOTSTRAP -> bootstrap(requestId);
                case TYPE_REGISTER_NODE -> register(requestId);
                case TYPE_HEARTBEAT -> heartbeat(requestId);
                case TYPE_DEREGISTER_NODE -> deregister(requestId);
                case TYPE_PUBLISH_REGION -> publish(requestId);
                case TYPE_WITHDRAW_REGION -> withdraw(requestId);
                case TYPE_MARK_LIVE -> markLive(requestId);
                case TYPE_BEGIN_ADD, TYPE_BEGIN_DRAIN, TYPE_ADVANCE_MEMBERSHIP, TYPE_ABORT_MEMBERSHIP ->
                    changeMembership(type, requestId);
                case TYPE_REPLICATE_NODE, TYPE_REPLICATE_NODE_REMOVAL, TYPE_REPLICATE_REGION,
                    TYPE_REPLICATE_REGION_REMOVAL, TYPE_REPLICATE_MEMBERS,
                     TYPE_SNAPSHOT, TYPE_CATCH_UP -> fromPeer(type, sender, requestId);
                default -> throw new MetaRpcException(STATUS_UNKNOWN_TYPE,
                    "request type " + type + " (" + typeName(type) + ")");
            };
        }
        catch (final MetaRpcException ex)
        {
            replicationLength = 0;
            counters.onRefused(ex.status());
            if (ex.status() == STATUS_FORBIDDEN)
            {
                forbiddenRequests++;
            }
            return reply.wrap(replyBuffer).error((short)ex.status(), requestId, ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            replicationLength = 0;
            counters.onRefused(STATUS_INTERNAL);
            return reply.wrap(replyBuffer).error(STATUS_INTERNAL, requestId, ex.toString());
        }
    }

    private int ok(final long requestId)
    {
        return reply.wrap(replyBuffer).reply(STATUS_OK, requestId).finish();
    }

    private MetaMessageWriter replicate(final byte type)
    {
        return replication.wrap(replicationBuffer).request(type, (short)0, 0);
    }

    /** Forward what the peer applies of the membership (the node's member as it is now, or a change), if any. */
    private MetaMessageWriter withMembers(final MetaMessageWriter forwarded, final MembershipRecord change)
    {
        return withMembers(forwarded, change, state.foundedBy());
    }

    /**
     * Forward what the peer applies of the membership, if any, and then the founders of a founded store: every change
     * says so, so that a peer that missed the one that founded it (it was down) learns it with the next.
     */
    static MetaMessageWriter withMembers(
        final MetaMessageWriter forwarded, final MembershipRecord change, final long[] foundedBy)
    {
        if (change == null)
        {
            return forwarded;
        }
        forwarded.putMembership(change);
        return foundedBy == null ? forwarded : forwarded.putFounders(foundedBy);
    }

    /** @return the founders that follow a forwarded membership change, or null when the peer's store is not founded. */
    private long[] foundersFromPeer()
    {
        return reader.remaining() > 0 ? reader.getFounders() : null;
    }

    // ---------------------------------------------------------------------------------------------
    // from nodes

    private int bootstrap(final long requestId)
    {
        reader.requireEnd("BOOTSTRAP");
        return reply.wrap(replyBuffer).reply(STATUS_OK, requestId)
            .putLong(selfId).putLong(state.epoch()).putLong(leaseMs).putInt(1).putRegion(tablesForClients)
            .finish();
    }

    private int register(final long requestId)
    {
        final NodeRecord node = reader.getNode();
        final byte[] proposed = reader.getToken();
        reader.requireEnd("REGISTER_NODE");
        if (node.id() == selfId || node.id() == peerId)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "node id " + node.id() + " is a MetaServer's");
        }
        final long now = clock.time();
        final NodeRecord existing = state.node(node.id());
        final byte[] held = state.token(node.id());
        final boolean holder = held != null && matches(held, proposed);
        final boolean join = (reader.flags() & FLAG_JOIN) != 0;
        if (existing != null && held != null && !holder && existing.leaseExpiry() >= now)
        {
            throw new MetaRpcException(STATUS_FORBIDDEN,
                "node " + node.id() + "'s records can be changed only by node " + node.id() +
                " (token mismatch): it is registered from " + existing.address() + " and its lease lapses in " +
                (existing.leaseExpiry() - now) + " ms unless renewed; register again then, or keep the node's token");
        }
        final byte[] token = proposed != null ? proposed : newToken();
        final NodeRecord leased = node.withLease(now + leaseMs);
        final MembershipRecord change = state.register(leased, token, join, (reader.flags() & FLAG_RESTORED) != 0);
        replicationLength = withMembers(replicate(TYPE_REPLICATE_NODE).putNode(leased).putToken(token), change)
            .finish();
        return reply.wrap(replyBuffer).reply(STATUS_OK, requestId).putLong(leased.leaseExpiry()).putLong(leaseMs)
            .putToken(token)
            .finish();
    }

    private int heartbeat(final long requestId)
    {
        final long nodeId = reader.getLong();
        final long epoch = reader.getLong();
        final byte[] token = reader.getToken();
        reader.requireEnd("HEARTBEAT");
        final NodeRecord existing = state.node(nodeId);
        final byte[] held = state.token(nodeId);
        if (existing == null || held == null)
        {
            // a record without a token (stored before tokens existed) is taken over by registering again
            throw new MetaRpcException(STATUS_NOT_REGISTERED,
                "node " + nodeId + " of epoch " + epoch + " is not registered" +
                (existing == null ? "" : " with a token"));
        }
        requireToken(nodeId, held, token);
        if (existing.epoch() != epoch)
        {
            throw new MetaRpcException(STATUS_NOT_REGISTERED,
                "node " + nodeId + " of epoch " + epoch + " is not registered" +
                " (epoch " + existing.epoch() + " is)");
        }
        final NodeRecord leased = existing.withLease(clock.time() + leaseMs);
        final MembershipRecord change = state.renew(leased, held);
        replicationLength = withMembers(replicate(TYPE_REPLICATE_NODE).putNode(leased).putToken(held), change).finish();
        return reply.wrap(replyBuffer).reply(STATUS_OK, requestId).putLong(leased.leaseExpiry()).putLong(leaseMs)
            .finish();
    }

    private int deregister(final long requestId)
    {
        final long nodeId = reader.getLong();
        final long epoch = reader.getLong();
        final byte[] token = reader.getToken();
        reader.requireEnd("DEREGISTER_NODE");
        final NodeRecord existing = state.node(nodeId);
        if (existing == null)
        {
            return ok(requestId);
        }
        if (nodeId == selfId || nodeId == peerId)
        {
            throw new MetaRpcException(STATUS_NOT_REGISTERED,
                "node " + nodeId + " is a MetaServer, registered by itself");
        }
        if (!operator)
        {
            requireToken(nodeId, state.token(nodeId), token);
        }
        if (existing.epoch() != epoch && !(operator && epoch == 0))
        {
            throw new MetaRpcException(STATUS_NOT_REGISTERED,
                "node " + nodeId + " is registered with epoch " + existing.epoch() +
                ", not " + epoch);
        }
        final MembershipRecord change = state.removeNode(nodeId);
        replicationLength = withMembers(replicate(TYPE_REPLICATE_NODE_REMOVAL).putLong(nodeId), change).finish();
        return ok(requestId);
    }

    private int publish(final long requestId)
    {
        final RemoteRegion region = reader.getRegion();
        final byte[] token = reader.getToken();
        reader.requireEnd("PUBLISH_REGION");
        final NodeRecord owner = state.node(region.nodeId());
        if (owner == null || owner.epoch() != region.nodeEpoch())
        {
            throw new MetaRpcException(STATUS_NOT_REGISTERED,
                "region '" + region.name() + "' belongs to node " + region.nodeId() +
                " of epoch " + region.nodeEpoch() + ", which is not registered" +
                (owner == null ? "" : " (epoch " + owner.epoch() + " is)"));
        }
        if (region.nodeId() == selfId)
        {
            throw new MetaRpcException(STATUS_NAME_TAKEN, "only MetaServer " + selfId + " publishes its own regions");
        }
        requireToken(region.nodeId(), state.token(region.nodeId()), token);
        final RemoteRegion existing = state.region(region.name());
        if (existing != null && existing.nodeId() != region.nodeId())
        {
            throw new MetaRpcException(STATUS_NAME_TAKEN,
                "region '" + region.name() + "' is published by node " + existing.nodeId());
        }
        state.putRegion(region);
        replicationLength = replicate(TYPE_REPLICATE_REGION).putRegion(region).finish();
        return ok(requestId);
    }

    private int withdraw(final long requestId)
    {
        final String name = reader.getName();
        final byte[] token = reader.getToken();
        reader.requireEnd("WITHDRAW_REGION");
        final RemoteRegion existing = state.region(name);
        if (existing == null)
        {
            return ok(requestId);
        }
        if (existing.nodeId() == selfId || existing.nodeId() == peerId)
        {
            throw new MetaRpcException(STATUS_NAME_TAKEN,
                "region '" + name + "' belongs to MetaServer " + existing.nodeId());
        }
        if (!operator)
        {
            requireToken(existing.nodeId(), state.token(existing.nodeId()), token);
        }
        state.removeRegion(name);
        replicationLength = replicate(TYPE_REPLICATE_REGION_REMOVAL).putName(name).finish();
        return ok(requestId);
    }

    /**
     * No token: the party that refilled the member's copies is not the member. The incarnation guards
     * against a late request about an earlier incarnation.
     */
    private int markLive(final long requestId)
    {
        final long nodeId = reader.getLong();
        final long incarnation = reader.getLong();
        reader.requireEnd("MARK_LIVE");
        final MembershipRecord change = state.markLive(nodeId, incarnation);
        if (change != null)
        {
            replicationLength = withMembers(replicate(TYPE_REPLICATE_MEMBERS), change).finish();
        }
        return ok(requestId);
    }

    /**
     * BEGIN_ADD, BEGIN_DRAIN, ADVANCE_MEMBERSHIP, ABORT_MEMBERSHIP: no token, like MARK_LIVE, since the driver of a
     * change (or an operator) is not the member it moves. Answered with the whole membership after it; a change is
     * forwarded only when one was made, so asking again forwards nothing.
     */
    private int changeMembership(final byte type, final long requestId)
    {
        final MembershipRecord change = switch (type)
        {
            case TYPE_BEGIN_ADD ->
            {
                final long nodeId = reader.getLong();
                reader.requireEnd("BEGIN_ADD");
                yield state.beginAdd(nodeId);
            }
            case TYPE_BEGIN_DRAIN ->
            {
                final long nodeId = reader.getLong();
                reader.requireEnd("BEGIN_DRAIN");
                yield state.beginDrain(nodeId);
            }
            case TYPE_ADVANCE_MEMBERSHIP ->
            {
                final int expectedPhase = reader.getInt();
                reader.requireEnd("ADVANCE_MEMBERSHIP");
                yield state.advance(expectedPhase);
            }
            default ->
            {
                reader.requireEnd("ABORT_MEMBERSHIP");
                yield state.abort();
            }
        };
        if (change != null)
        {
            replicationLength = withMembers(replicate(TYPE_REPLICATE_MEMBERS), change).finish();
        }
        return reply.wrap(replyBuffer).reply(STATUS_OK, requestId).putMembership(state.membership()).finish();
    }

    /**
     * @throws MetaRpcException with {@link io.dkv.raas.meta.MetaRpcDescriptor#STATUS_FORBIDDEN} unless the token is the
     * node's.
     */
    private static void requireToken(final long nodeId, final byte[] held, final byte[] presented)
    {
        if (held == null || !matches(held, presented))
        {
            throw new MetaRpcException(STATUS_FORBIDDEN,
                "node " + nodeId + "'s records can be changed only by node " + nodeId +
                " (token mismatch)");
        }
    }

    private static boolean matches(final byte[] held, final byte[] presented)
    {
        return presented != null && MessageDigest.isEqual(held, presented);
    }

    private byte[] newToken()
    {
        final byte[] token = new byte[TOKEN_LENGTH];
        random.nextBytes(token);
        return token;
    }

    // ---------------------------------------------------------------------------------------------
    // from the peer MetaServer

    private int fromPeer(final byte type, final long sender, final long requestId)
    {
        if (peerId == 0 || sender != peerId)
        {
            throw new MetaRpcException(STATUS_NOT_PEER,
                typeName(type) + " from node " + sender + ", and the peer MetaServer is " +
                (peerId == 0 ? "not configured" : "node " + peerId));
        }
        switch (type)
        {
            case TYPE_REPLICATE_NODE ->
            {
                final NodeRecord node = reader.getNode();
                final byte[] token = reader.getToken();
                final MembershipRecord change = reader.remaining() > 0 ? reader.getMembership() : null;
                final long[] foundedBy = foundersFromPeer();
                reader.requireEnd("REPLICATE_NODE");
                state.putNodeFromPeer(node, token, change);
                state.foundedAtPeer(foundedBy);
            }
            case TYPE_REPLICATE_NODE_REMOVAL ->
            {
                final long nodeId = reader.getLong();
                final MembershipRecord change = reader.remaining() > 0 ? reader.getMembership() : null;
                final long[] foundedBy = foundersFromPeer();
                reader.requireEnd("REPLICATE_NODE_REMOVAL");
                if (nodeId != selfId)
                {
                    state.removeNodeFromPeer(nodeId, change);
                }
                state.foundedAtPeer(foundedBy);
            }
            case TYPE_REPLICATE_MEMBERS ->
            {
                final MembershipRecord change = reader.getMembership();
                final long[] foundedBy = foundersFromPeer();
                reader.requireEnd("REPLICATE_MEMBERS");
                state.applyMembers(change);
                state.foundedAtPeer(foundedBy);
            }
            case TYPE_REPLICATE_REGION ->
            {
                final RemoteRegion region = reader.getRegion();
                reader.requireEnd("REPLICATE_REGION");
                state.putRegion(region);
            }
            case TYPE_REPLICATE_REGION_REMOVAL ->
            {
                final String name = reader.getName();
                reader.requireEnd("REPLICATE_REGION_REMOVAL");
                state.removeRegion(name);
            }
            case TYPE_SNAPSHOT -> snapshotPart(reader.flags());
            default ->
            {
                final long peerServingSince = reader.getLong();
                reader.requireEnd("CATCH_UP");
                final boolean olderHere =
                    servingSince < peerServingSince || (servingSince == peerServingSince && selfId < peerId);
                if (!olderHere)
                {
                    throw new MetaRpcException(STATUS_DECLINED,
                        "MetaServer " + selfId + " serves since " + servingSince +
                        ", not before " + peerServingSince);
                }
                pushRequested = true;
            }
        }
        return ok(requestId);
    }

    private void snapshotPart(final short flags)
    {
        final int nodeCount = reader.getInt();
        final int regionCount = reader.getInt();
        if (nodeCount < 0 || regionCount < 0 || (long)nodeCount + regionCount > reader.remaining())
        {
            throw new MetaRpcException(STATUS_MALFORMED,
                "SNAPSHOT of " + nodeCount + " nodes and " + regionCount + " regions in " +
                reader.remaining() + " bytes");
        }
        if ((flags & FLAG_FIRST) != 0)
        {
            incomingNodes = new ArrayList<>();
            incomingRegions = new ArrayList<>();
        }
        else if (incomingNodes == null)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "SNAPSHOT part without a first part");
        }
        final List<Member> nodes = new ArrayList<>(nodeCount);
        final List<RemoteRegion> regions = new ArrayList<>(regionCount);
        for (int i = 0; i < nodeCount; i++)
        {
            final NodeRecord node = reader.getNode();
            nodes.add(new Member(node, reader.getToken()));
        }
        for (int i = 0; i < regionCount; i++)
        {
            regions.add(reader.getRegion());
        }
        final MembershipRecord membership =
            (flags & FLAG_LAST) != 0 && reader.remaining() > 0 ? reader.getMembership() : null;
        final long[] foundedBy = membership != null ? foundersFromPeer() : null;
        reader.requireEnd("SNAPSHOT");
        incomingNodes.addAll(nodes);
        incomingRegions.addAll(regions);
        if ((flags & FLAG_LAST) != 0)
        {
            final MetaState.Snapshot snapshot =
                new MetaState.Snapshot(incomingNodes, incomingRegions, membership, foundedBy);
            incomingNodes = null;
            incomingRegions = null;
            state.install(snapshot);
            snapshotsInstalled++;
            counters.onSnapshotInstalled();
        }
    }
}
