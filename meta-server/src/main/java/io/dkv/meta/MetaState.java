package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MetaServer's records, kept in three places that every change updates together: maps on the
 * heap (what the server itself consults), the tables in registered memory (what nodes read
 * one-sided) and the store (what survives a restart). Node, member and region changes bump the
 * table epoch; lease renewals only rewrite the node's slot.
 *
 * <p>The memory tier's membership ({@link Members}) follows the memory nodes' records: registering
 * makes a node a member or brings it back, losing its record (lease or deregistration) makes it down;
 * it stays a member either way. A membership change that moves keys ({@link MembershipChanges}) is
 * begun, advanced or aborted by request, or aborted when the node it adds is lost. What the peer
 * MetaServer forwards is its result, applied as it is.
 *
 * <p>A lease runs out when this server has not heard the node renew it (or register, or the peer
 * forward either) for a lease's length by its monotonic clock. The wall-clock expiry in the record is
 * what nodes and the peer are told; judging by it would let a step of the server's wall clock (an
 * operator's, NTP's) expire every lease at once: {@code ./dkv check}'s clock nemesis stepped a
 * MetaServer's wall clock 4.4 s forward, every memory node of two copies went down together and
 * none could refill from another. Nor does a lease run out for a time the server itself was not listening: a server
 * stopped past a lease (SIGSTOP, a VM paused, a long GC) would otherwise find every lease lapsed on resume, the same
 * fault; {@link MetaService} sees the gap in its lease checks and every lease runs anew ({@link #listeningSince}).
 *
 * <p>A node that registers with a new epoch is a new incarnation: the regions of the old one are
 * dropped, since the memory behind them is gone. Each node's token is kept beside its record, in
 * the maps and the store, never in the tables.
 */
final class MetaState
{
    /**
     * What a full state transfer carries.
     *
     * @param membership the whole membership, or null when the sender keeps none.
     * @param foundedBy  the founders of the sender's store, or null when it is not founded.
     */
    record Snapshot(List<Member> nodes, List<RemoteRegion> regions, MembershipRecord membership, long[] foundedBy)
    {
        Snapshot(final List<Member> nodes, final List<RemoteRegion> regions, final MembershipRecord membership)
        {
            this(nodes, regions, membership, null);
        }
    }

    /**
     * A node whose lease ran out.
     *
     * @param regions the names of the regions removed with it.
     * @param change  what the peer applies of the membership, or null for nothing.
     */
    record Expired(long nodeId, List<String> regions, MembershipRecord change)
    {
    }

    private final long selfId;
    private final MetaStore store;
    private final Long2ObjectHashMap<NodeRecord> nodes = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<byte[]> tokens = new Long2ObjectHashMap<>();
    /** When this server last heard each node renew (its monotonic clock); what leases are judged by. */
    private final Long2LongHashMap heardNanos = new Long2LongHashMap(Long.MIN_VALUE);
    /** Since when this server has listened without a stall: no lease lapses for a time it was not listening. */
    private long listeningSinceNanos;
    private final NanoClock nanoClock;
    private long leaseNanos;
    private final Map<String, RemoteRegion> regions = new HashMap<>();
    private Members members;
    private MembershipChanges changes;
    private Founders founders;
    private MetaTables tables;
    private long epoch;

    MetaState(final long selfId, final MetaStore store, final long initialEpoch, final NanoClock nanoClock)
    {
        this.nanoClock = nanoClock;
        this.selfId = selfId;
        this.store = store;
        this.epoch = initialEpoch;
    }

    /**
     * Take the stored records, granting every node a fresh lease: while this server was down its
     * nodes could not renew with it.
     */
    synchronized void load(final long nowMillis, final long leaseMs, final int initialReplicas)
    {
        load(nowMillis, leaseMs, initialReplicas, null);
    }

    /**
     * Take the stored records, as {@link #load(long, long, int)}, with the founders named.
     *
     * @param namedFounders the memory nodes that may found the store while it is not founded, or null for the first
     *                      to register; a founded store keeps the founders it stored.
     */
    synchronized void load(final long nowMillis, final long leaseMs, final int initialReplicas,
        final long[] namedFounders)
    {
        leaseNanos = leaseMs * 1_000_000L;
        final long now = nanoClock.nanoTime();
        listeningSinceNanos = now;
        for (final Member member : store.nodes())
        {
            final NodeRecord node = member.node();
            heardNanos.put(node.id(), now);
            nodes.put(node.id(), node.leaseExpiry() == Long.MAX_VALUE ? node : node.withLease(nowMillis + leaseMs));
            putToken(node.id(), member.token());
        }
        final MembershipRecord stored = store.membership();
        members = new Members(stored != null ? stored : new MembershipRecord(1, initialReplicas, List.of()));
        changes = new MembershipChanges(members);
        founders = new Founders(namedFounders, store.founders());
        if (stored == null)
        {
            // a store of a server from before the membership was kept: its memory nodes are the members
            for (final NodeRecord node : nodes.values())
            {
                if (node.role() == NodeRecord.ROLE_MEMORY)
                {
                    members.registered(node.id(), node.epoch());
                }
            }
            store.putMembership(members.record());
        }
        // a store from before founders were kept, or stopped between storing the membership and the founders
        noteFounded();
        for (final RemoteRegion region : store.regions())
        {
            if (nodes.containsKey(region.nodeId()))
            {
                regions.put(region.name(), region);
            }
        }
    }

    /** Fill the registered tables with every record; from now on they follow each change. */
    synchronized void attachTables(final MetaTables tables)
    {
        this.tables = tables;
        for (final NodeRecord node : nodes.values())
        {
            requireSlot(tables.putNode(node), "node " + node.id());
        }
        for (final RemoteRegion region : regions.values())
        {
            requireSlot(tables.putRegion(region), "region '" + region.name() + "'");
        }
        tables.putMembership(members.record());
        bumpEpoch();
    }

    synchronized long epoch()
    {
        return epoch;
    }

    synchronized NodeRecord node(final long nodeId)
    {
        return nodes.get(nodeId);
    }

    /** @return the node's token, or null when it has none or is not here. */
    synchronized byte[] token(final long nodeId)
    {
        return tokens.get(nodeId);
    }

    synchronized RemoteRegion region(final String name)
    {
        return regions.get(name);
    }

    synchronized int nodeCount()
    {
        return nodes.size();
    }

    synchronized int regionCount()
    {
        return regions.size();
    }

    synchronized Snapshot snapshot()
    {
        final List<Member> records = new ArrayList<>(nodes.size());
        for (final NodeRecord node : nodes.values())
        {
            records.add(new Member(node, tokens.get(node.id())));
        }
        return new Snapshot(records, new ArrayList<>(regions.values()), members.record(), founders.foundedBy());
    }

    /** @return the founders of the store, or null while it is not founded (what the peer is told with a change). */
    synchronized long[] foundedBy()
    {
        return founders.foundedBy();
    }

    /** @return who founded the store, or who may found it. */
    synchronized String founding()
    {
        return founders.toString();
    }

    /** @return the memory tier's membership, whole. */
    synchronized MembershipRecord membership()
    {
        return members.record();
    }

    /**
     * @return what the peer applies to hold this member as it is here (with the membership's epoch and replica
     * count), or null when the node is no member.
     */
    synchronized MembershipRecord memberChange(final long nodeId)
    {
        final MemberRecord member = members.member(nodeId);
        return member == null ? null : members.change(member);
    }

    /** @return what the peer applies to have this server's replica count. */
    synchronized MembershipRecord replicasChange()
    {
        return members.change(null);
    }

    // ---------------------------------------------------------------------------------------------
    // changes

    /**
     * Insert or update a node, applying the membership's rules to a memory node ({@link Members#registered}). Only
     * its lease changing is a renewal: no epoch bump, nothing stored.
     *
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when no slot is free.
     */
    synchronized void putNode(final NodeRecord node, final byte[] token)
    {
        register(node, token, false);
    }

    /**
     * A node registered. A memory node that is no member founds ({@link Members#registered}) unless it asks to join:
     * then it is registered and no member, reachable, and asks to be added by moving keys (BEGIN_ADD) once it serves
     * its index and heap, so that no client forces a write onto a node that publishes no heap yet. It founds only
     * while the store is not founded and it is a founder ({@link Founders}); otherwise it is refused, not registered.
     *
     * @param join true when a memory node is to be added by moving keys rather than found.
     * @return what the peer applies of the membership: the change this made, else the member as it is; null when
     * the node is no member.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when no slot is free,
     *                          {@link MetaRpcDescriptor#STATUS_CONFLICT} when a memory node that is no member may not
     *                          found and does not ask to join.
     */
    synchronized MembershipRecord register(final NodeRecord node, final byte[] token, final boolean join)
    {
        return register(node, token, join, false);
    }

    /**
     * As {@link #register(NodeRecord, byte[], boolean)}, for a memory node that may be restored from its disk.
     *
     * @param restored true when its memory is what its data directory held: a member back as another incarnation
     *                 keeps when it last served unmarked ({@link Members#registered(long, long, boolean)}).
     */
    synchronized MembershipRecord register(final NodeRecord node, final byte[] token, final boolean join,
        final boolean restored)
    {
        if (node.role() == NodeRecord.ROLE_MEMORY && !join && members.member(node.id()) == null)
        {
            founders.requireMayFound(node.id(), members);
        }
        MembershipRecord change = null;
        if (node.role() == NodeRecord.ROLE_MEMORY && !(join && members.member(node.id()) == null))
        {
            final MemberRecord changed = members.registered(node.id(), node.epoch(), restored);
            change = changed == null ? null : members.change(changed);
        }
        putNode(node, token, change != null);
        return change != null ? change : memberChange(node.id());
    }

    /**
     * A node renewed its lease: a member's record keeps the membership's rules (one the peer declared down comes
     * back), a node that is no member stays none.
     *
     * @return the member as it is, for the peer, or null when the node is no member.
     */
    synchronized MembershipRecord renew(final NodeRecord node, final byte[] token)
    {
        final boolean membershipChanged = node.role() == NodeRecord.ROLE_MEMORY &&
            members.member(node.id()) != null && members.registered(node.id(), node.epoch()) != null;
        putNode(node, token, membershipChanged);
        return memberChange(node.id());
    }

    /**
     * Insert or update a node as the peer MetaServer did, and apply the membership change it made of it.
     *
     * @param change what the peer changed of the membership, or null for nothing.
     */
    synchronized void putNodeFromPeer(final NodeRecord node, final byte[] token, final MembershipRecord change)
    {
        putNode(node, token, change != null && members.apply(change));
    }

    private void putNode(final NodeRecord node, final byte[] token, final boolean membershipChanged)
    {
        final NodeRecord existing = nodes.get(node.id());
        if (tables != null)
        {
            requireSlot(tables.putNode(node), "node " + node.id());
        }
        nodes.put(node.id(), node);
        heardNanos.put(node.id(), nanoClock.nanoTime());
        final boolean sameToken = Arrays.equals(tokens.get(node.id()), token);
        putToken(node.id(), token);
        if (!membershipChanged && existing != null && sameToken && existing.withLease(node.leaseExpiry()).equals(node))
        {
            return;
        }
        if (existing != null && existing.epoch() != node.epoch())
        {
            dropRegionsOf(node.id());
        }
        store.putNode(node, token, membershipChanged ? publishMembership() : null);
        bumpEpoch();
        if (membershipChanged)
        {
            noteFounded();
        }
    }

    /**
     * Remove a node and its regions; a member goes down, and when it was being added the change is aborted.
     *
     * @return what the peer applies of the membership (the abort, or the member as it is now), or null when the
     * node was no member or not here.
     */
    synchronized MembershipRecord removeNode(final long nodeId)
    {
        if (!nodes.containsKey(nodeId))
        {
            return null;
        }
        final MemberRecord down = members.down(nodeId);
        final MembershipRecord aborted = changes.lost(nodeId);
        removeNode(nodeId, down != null || aborted != null);
        return aborted != null ? aborted : memberChange(nodeId);
    }

    /**
     * Remove a node and its regions as the peer MetaServer did, and apply the membership change it made.
     *
     * @param change what the peer changed of the membership, or null for nothing.
     * @return false when neither the node was here nor the membership changed.
     */
    synchronized boolean removeNodeFromPeer(final long nodeId, final MembershipRecord change)
    {
        final boolean membershipChanged = change != null && members.apply(change);
        if (!nodes.containsKey(nodeId))
        {
            if (membershipChanged)
            {
                store.putMembership(publishMembership());
                bumpEpoch();
                noteFounded();
            }
            return membershipChanged;
        }
        return removeNode(nodeId, membershipChanged);
    }

    private boolean removeNode(final long nodeId, final boolean membershipChanged)
    {
        nodes.remove(nodeId);
        heardNanos.remove(nodeId);
        tokens.remove(nodeId);
        final List<String> names = regionsOf(nodeId);
        for (final String name : names)
        {
            regions.remove(name);
            if (tables != null)
            {
                tables.removeRegion(name);
            }
        }
        if (tables != null)
        {
            tables.removeNode(nodeId);
        }
        store.removeNode(nodeId, names, membershipChanged ? publishMembership() : null);
        bumpEpoch();
        if (membershipChanged)
        {
            noteFounded();
        }
        return true;
    }

    /**
     * A joining member's copies were refilled: it becomes live.
     *
     * @return the member's change for the peer, or null when nothing changed (it was live as that incarnation).
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} when it is not joining as that
     *                          incarnation.
     */
    synchronized MembershipRecord markLive(final long nodeId, final long incarnation)
    {
        final MemberRecord changed = members.markLive(nodeId, incarnation);
        if (changed == null)
        {
            return null;
        }
        store.putMembership(publishMembership());
        bumpEpoch();
        return members.change(changed);
    }

    /**
     * Begin adding a registered memory node that is no member ({@link MembershipChanges#add}).
     *
     * @return the change for the peer, or null when it is being added already.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_NOT_REGISTERED} when no memory node of that id is
     *                          registered, {@link MetaRpcDescriptor#STATUS_CONFLICT} when the membership does not allow
     *                          it.
     */
    synchronized MembershipRecord beginAdd(final long nodeId)
    {
        final NodeRecord node = nodes.get(nodeId);
        if (node == null || node.role() != NodeRecord.ROLE_MEMORY)
        {
            throw new MetaRpcException(MetaRpcDescriptor.STATUS_NOT_REGISTERED,
                "node " + nodeId + " cannot be added: " + (node == null ? "it is not registered" :
                "it is no memory node (role " + node.role() + ")") + " (membership epoch " + members.epoch() + ")");
        }
        final boolean founds = members.member(nodeId) == null && !founders.founded();
        if (founds)
        {
            // a store not founded holds no keys to move: a founder founds, any other waits for the founders
            founders.requireMayAdd(nodeId, members);
        }
        return changed(changes.add(nodeId, node.epoch(), founds));
    }

    /** @see MembershipChanges#drain */
    synchronized MembershipRecord beginDrain(final long nodeId)
    {
        return changed(changes.drain(nodeId));
    }

    /** @see MembershipChanges#advance */
    synchronized MembershipRecord advance(final int expectedPhase)
    {
        return changed(changes.advance(expectedPhase));
    }

    /** @see MembershipChanges#abort */
    synchronized MembershipRecord abort()
    {
        return changed(changes.abort());
    }

    private MembershipRecord changed(final MembershipRecord change)
    {
        if (change != null)
        {
            store.putMembership(publishMembership());
            bumpEpoch();
            noteFounded();
        }
        return change;
    }

    /** @return true when the replica count changed (and the membership epoch with it). */
    synchronized boolean replicas(final int replicas)
    {
        if (!members.replicas(replicas))
        {
            return false;
        }
        store.putMembership(publishMembership());
        bumpEpoch();
        return true;
    }

    /** Apply what the peer MetaServer changed of the membership alone (a member marked live, the replica count). */
    synchronized void applyMembers(final MembershipRecord change)
    {
        if (members.apply(change))
        {
            store.putMembership(publishMembership());
            bumpEpoch();
            noteFounded();
        }
    }

    /**
     * The peer MetaServer says its store is founded (with a membership change it forwarded): so is this one. A peer
     * that began serving before this one's founders registered, or whose founder was drained, is founded although this
     * membership alone would not say so.
     *
     * @param peerFoundedBy the peer's founders, or null when it did not say.
     */
    synchronized void foundedAtPeer(final long[] peerFoundedBy)
    {
        if (founders.foundedAtPeer(peerFoundedBy))
        {
            store.putFounders(founders.foundedBy());
        }
    }

    /**
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when no slot is free.
     */
    synchronized void putRegion(final RemoteRegion region)
    {
        if (region.equals(regions.get(region.name())))
        {
            return;
        }
        if (tables != null)
        {
            requireSlot(tables.putRegion(region), "region '" + region.name() + "'");
        }
        regions.put(region.name(), region);
        store.putRegion(region);
        bumpEpoch();
    }

    /**
     * @return false when no region of that name was here.
     */
    synchronized boolean removeRegion(final String name)
    {
        if (regions.remove(name) == null)
        {
            return false;
        }
        if (tables != null)
        {
            tables.removeRegion(name);
        }
        store.removeRegions(List.of(name));
        bumpEpoch();
        return true;
    }

    /**
     * Remove every node whose lease ran out (not heard renewing for a lease's length), with its regions.
     *
     * @return the nodes removed, each with what the peer applies of the membership.
     */
    /**
     * This server stalled (it could not check leases for longer than a stall): every lease runs anew from now, since
     * renewals sent while it did not listen went unheard.
     */
    synchronized void listeningSince(final long nowNanos)
    {
        listeningSinceNanos = nowNanos;
    }

    synchronized List<Expired> expire()
    {
        final long now = nanoClock.nanoTime();
        final List<Long> ids = new ArrayList<>();
        for (final NodeRecord node : nodes.values())
        {
            if (node.leaseExpiry() != Long.MAX_VALUE &&
                now - Math.max(heardNanos.get(node.id()), listeningSinceNanos) > leaseNanos)
            {
                ids.add(node.id());
            }
        }
        final List<Expired> expired = new ArrayList<>(ids.size());
        for (final long nodeId : ids)
        {
            final List<String> regions = regionsOf(nodeId);
            expired.add(new Expired(nodeId, regions, removeNode(nodeId)));
        }
        return expired;
    }

    /**
     * Take the peer's full state in place of this one's, keeping this server's own records (its
     * node and its tables, which only it knows current). Slots are updated in place, so readers
     * meanwhile see each record whole, old or new.
     */
    synchronized void install(final Snapshot snapshot)
    {
        final Long2ObjectHashMap<NodeRecord> newNodes = new Long2ObjectHashMap<>();
        final Long2ObjectHashMap<byte[]> newTokens = new Long2ObjectHashMap<>();
        final Map<String, RemoteRegion> newRegions = new HashMap<>();
        for (final Member member : snapshot.nodes())
        {
            final NodeRecord node = member.node();
            if (node.id() != selfId)
            {
                newNodes.put(node.id(), node);
                if (member.token() != null)
                {
                    newTokens.put(node.id(), member.token());
                }
            }
        }
        for (final RemoteRegion region : snapshot.regions())
        {
            if (region.nodeId() != selfId)
            {
                newRegions.put(region.name(), region);
            }
        }
        final NodeRecord self = nodes.get(selfId);
        if (self != null)
        {
            newNodes.put(selfId, self);
        }
        for (final RemoteRegion region : regions.values())
        {
            if (region.nodeId() == selfId)
            {
                newRegions.put(region.name(), region);
            }
        }
        final Set<String> goneRegions = new HashSet<>(regions.keySet());
        goneRegions.removeAll(newRegions.keySet());
        final List<Long> goneNodes = new ArrayList<>();
        for (final long nodeId : nodes.keySet())
        {
            if (!newNodes.containsKey(nodeId))
            {
                goneNodes.add(nodeId);
            }
        }
        if (tables != null)
        {
            for (final String name : goneRegions)
            {
                tables.removeRegion(name);
            }
            for (final long nodeId : goneNodes)
            {
                tables.removeNode(nodeId);
            }
            for (final NodeRecord node : newNodes.values())
            {
                requireSlot(tables.putNode(node), "node " + node.id());
            }
            for (final RemoteRegion region : newRegions.values())
            {
                requireSlot(tables.putRegion(region), "region '" + region.name() + "'");
            }
        }
        nodes.clear();
        nodes.putAll(newNodes);
        // the peer heard them: as a restart's load, each is granted a lease from now
        final long now = nanoClock.nanoTime();
        heardNanos.clear();
        for (final long nodeId : nodes.keySet())
        {
            heardNanos.put(nodeId, now);
        }
        tokens.clear();
        tokens.putAll(newTokens);
        regions.clear();
        regions.putAll(newRegions);
        final List<Member> records = new ArrayList<>(nodes.size());
        for (final NodeRecord node : nodes.values())
        {
            records.add(new Member(node, tokens.get(node.id())));
        }
        if (snapshot.membership() != null)
        {
            members.adopt(snapshot.membership());
        }
        store.replaceAll(records, newRegions.values(), publishMembership());
        bumpEpoch();
        // founded stays founded: a state transfer from a peer that is not takes nothing back
        foundedAtPeer(snapshot.foundedBy());
        noteFounded();
    }

    // ---------------------------------------------------------------------------------------------

    private void putToken(final long nodeId, final byte[] token)
    {
        if (token == null)
        {
            tokens.remove(nodeId);
        }
        else
        {
            tokens.put(nodeId, token);
        }
    }

    private void dropRegionsOf(final long nodeId)
    {
        final List<String> names = regionsOf(nodeId);
        if (names.isEmpty())
        {
            return;
        }
        for (final String name : names)
        {
            regions.remove(name);
            if (tables != null)
            {
                tables.removeRegion(name);
            }
        }
        store.removeRegions(names);
    }

    private List<String> regionsOf(final long nodeId)
    {
        final List<String> names = new ArrayList<>();
        for (final RemoteRegion region : regions.values())
        {
            if (region.nodeId() == nodeId)
            {
                names.add(region.name());
            }
        }
        return names;
    }

    /** Judge the membership as it is now; kept once it founded the store, after the membership that did. */
    private void noteFounded()
    {
        if (founders.judge(members))
        {
            store.putFounders(founders.foundedBy());
        }
    }

    /** @return the membership now, written to the tables when they are attached. */
    private MembershipRecord publishMembership()
    {
        final MembershipRecord membership = members.record();
        if (tables != null)
        {
            tables.putMembership(membership);
        }
        return membership;
    }

    private void bumpEpoch()
    {
        epoch++;
        if (tables != null)
        {
            tables.epoch(epoch);
        }
    }

    private static void requireSlot(final boolean stored, final String what)
    {
        if (!stored)
        {
            throw new MetaRpcException(MetaRpcDescriptor.STATUS_TABLE_FULL, "no free table slot for " + what);
        }
    }
}
