package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import org.agrona.collections.Long2ObjectHashMap;

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
 * one-sided) and the store (what survives a restart). Membership and region changes bump the
 * table epoch; lease renewals only rewrite the node's slot.
 *
 * <p>A node that registers with a new epoch is a new incarnation: the regions of the old one are
 * dropped, since the memory behind them is gone. Each node's token is kept beside its record, in
 * the maps and the store, never in the tables.
 */
final class MetaState
{
    /** What a full state transfer carries. */
    record Snapshot(List<Member> nodes, List<RemoteRegion> regions)
    {
    }

    private final long selfId;
    private final MetaStore store;
    private final Long2ObjectHashMap<NodeRecord> nodes = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<byte[]> tokens = new Long2ObjectHashMap<>();
    private final Map<String, RemoteRegion> regions = new HashMap<>();
    private MetaTables tables;
    private long epoch;

    MetaState(final long selfId, final MetaStore store, final long initialEpoch)
    {
        this.selfId = selfId;
        this.store = store;
        this.epoch = initialEpoch;
    }

    /**
     * Take the stored records, granting every node a fresh lease: while this server was down its
     * nodes could not renew with it.
     */
    synchronized void load(final long nowMillis, final long leaseMs)
    {
        for (final Member member : store.nodes())
        {
            final NodeRecord node = member.node();
            nodes.put(node.id(), node.leaseExpiry() == Long.MAX_VALUE ? node : node.withLease(nowMillis + leaseMs));
            putToken(node.id(), member.token());
        }
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
        final List<Member> members = new ArrayList<>(nodes.size());
        for (final NodeRecord node : nodes.values())
        {
            members.add(new Member(node, tokens.get(node.id())));
        }
        return new Snapshot(members, new ArrayList<>(regions.values()));
    }

    // ---------------------------------------------------------------------------------------------
    // changes

    /**
     * Insert or update a node. Only its lease changing is a renewal: no epoch bump, nothing stored.
     *
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when no slot is free.
     */
    synchronized void putNode(final NodeRecord node, final byte[] token)
    {
        final NodeRecord existing = nodes.get(node.id());
        if (tables != null)
        {
            requireSlot(tables.putNode(node), "node " + node.id());
        }
        nodes.put(node.id(), node);
        final boolean sameToken = Arrays.equals(tokens.get(node.id()), token);
        putToken(node.id(), token);
        if (existing != null && sameToken && existing.withLease(node.leaseExpiry()).equals(node))
        {
            return;
        }
        if (existing != null && existing.epoch() != node.epoch())
        {
            dropRegionsOf(node.id());
        }
        store.putNode(node, token);
        bumpEpoch();
    }

    /**
     * Remove a node and its regions.
     *
     * @return false when it was not here.
     */
    synchronized boolean removeNode(final long nodeId)
    {
        if (nodes.remove(nodeId) == null)
        {
            return false;
        }
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
        store.removeNode(nodeId, names);
        bumpEpoch();
        return true;
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
     * Remove every node whose lease ran out, with its regions.
     *
     * @return the ids removed.
     */
    synchronized List<Long> expire(final long nowMillis)
    {
        final List<Long> expired = new ArrayList<>();
        for (final NodeRecord node : nodes.values())
        {
            if (node.leaseExpiry() < nowMillis)
            {
                expired.add(node.id());
            }
        }
        for (final long nodeId : expired)
        {
            removeNode(nodeId);
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
        tokens.clear();
        tokens.putAll(newTokens);
        regions.clear();
        regions.putAll(newRegions);
        final List<Member> members = new ArrayList<>(nodes.size());
        for (final NodeRecord node : nodes.values())
        {
            members.add(new Member(node, tokens.get(node.id())));
        }
        store.replaceAll(members, newRegions.values());
        bumpEpoch();
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
