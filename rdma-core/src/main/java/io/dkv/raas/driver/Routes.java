package io.dkv.raas.driver;

import io.dkv.raas.Directory;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasException;
import io.dkv.verbs.AddressHandle;
import io.dkv.verbs.ProtectionDomain;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * How the driver reaches each node it talks to ({@link NodeRoute}), made from the directory's record
 * of the node or from what the node said of itself in a CONNECT, read anew once a request finds it
 * stale, and bounded in number: node ids cost a peer nothing to make up.
 */
final class Routes
{
    private final Directory directory;
    private final ProtectionDomain pd;
    private final String provider;
    private final QpPool qpPool;
    private final int maxRoutes;
    private final long selfId;
    private final Long2ObjectHashMap<NodeRoute> routes = new Long2ObjectHashMap<>();
    private long routesGivenUp;

    Routes(
        final Directory directory,
        final ProtectionDomain pd,
        final String provider,
        final QpPool qpPool,
        final int maxRoutes,
        final long selfId)
    {
        this.directory = directory;
        this.pd = pd;
        this.provider = provider;
        this.qpPool = qpPool;
        this.maxRoutes = maxRoutes;
        this.selfId = selfId;
    }

    /** @return the route to a node, made from the directory's record of it if there is none, or a stale one. */
    NodeRoute route(final long nodeId)
    {
        synchronized (routes)
        {
            final NodeRoute existing = routes.get(nodeId);
            if (existing != null && !existing.stale)
            {
                return existing;
            }
        }
        // not under the lock: a directory may read the MetaServer through this driver, and the poller
        // that completes that READ takes the lock when a CONNECT arrives
        final NodeRecord node = directory.node(nodeId);
        if (node == null)
        {
            throw new RaasException("node " + nodeId + " is not in the directory");
        }
        if (!node.address().provider().equals(provider))
        {
            throw new RaasException("node " + nodeId + " is at " + node.address() + "; this driver uses " + provider);
        }
        synchronized (routes)
        {
            final NodeRoute existing = routes.get(nodeId);
            if (existing != null && !existing.stale)
            {
                return existing;
            }
            return replaceRoute(existing, node);
        }
    }

    /**
     * The route to a node as it described itself (in a CONNECT): replaces a cached route of an older
     * incarnation.
     */
    NodeRoute routeFor(final NodeRecord node)
    {
        synchronized (routes)
        {
            final NodeRoute existing = routes.get(node.id());
            if (existing != null && !existing.stale && existing.node.epoch() == node.epoch() &&
                existing.node.dcKey() == node.dcKey())
            {
                return existing;
            }
            return replaceRoute(existing, node);
        }
    }

    /**
     * A route to the node as its record now says, in place of the one there was (stale, or of an
     * older incarnation), keeping its address handle when the address is the same and its
     * promotion back-off. Called holding the routes' lock.
     */
    private NodeRoute replaceRoute(final NodeRoute existing, final NodeRecord node)
    {
        final AddressHandle ah = existing != null && existing.node.address().equals(node.address()) ?
            existing.ah : pd.createAh(node.address());
        final NodeRoute route = new NodeRoute(node, ah, qpPool.dciFor(node), qpPool.bulkDciFor(node));
        if (existing != null)
        {
            route.promoteNotBeforeMillis = existing.promoteNotBeforeMillis;
        }
        else if (routes.size() >= maxRoutes)
        {
            giveUpARoute();
        }
        routes.put(node.id(), route);
        return route;
    }

    /**
     * Make room for a route: node ids cost a peer nothing to make up, one per message. A route without
     * an RC queue pair is given up (connections that hold it keep using it; the next lookup of its node
     * makes it again from the directory). Called holding the routes' lock.
     */
    private void giveUpARoute()
    {
        final Long2ObjectHashMap<NodeRoute>.ValueIterator candidates = routes.values().iterator();
        while (candidates.hasNext())
        {
            final NodeRoute candidate = candidates.next();
            if (candidate.rc == null && !candidate.promoting && candidate.node.id() != selfId)
            {
                candidates.remove();
                routesGivenUp++;
                return;
            }
        }
    }

    /** @return the route to the node as it stands, or null when none was made. */
    NodeRoute knownRoute(final long nodeId)
    {
        synchronized (routes)
        {
            return routes.get(nodeId);
        }
    }

    /** @return true when requests to the node travel over an RC queue pair now. */
    boolean usesRc(final long nodeId)
    {
        synchronized (routes)
        {
            final NodeRoute route = routes.get(nodeId);
            return route != null && route.rc != null;
        }
    }

    /** A request to the node failed as if its metadata were stale: read it anew next time. */
    void markStale(final NodeRoute route)
    {
        if (!route.stale)
        {
            route.stale = true;
            directory.invalidate(route.node.id());
        }
    }

    /** @return routes given up to keep within maxRoutes. */
    long givenUp()
    {
        synchronized (routes)
        {
            return routesGivenUp;
        }
    }

    /** @return routes to nodes kept now. */
    int count()
    {
        synchronized (routes)
        {
            return routes.size();
        }
    }
}
