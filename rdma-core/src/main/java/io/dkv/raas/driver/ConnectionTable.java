package io.dkv.raas.driver;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.RaasException;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The driver's logical connections by vQPN: an index into this table in the low
 * {@value #VQPN_INDEX_BITS} bits and a generation above them, so that a completion or message for a
 * connection closed meanwhile does not reach the one that took its place. Generations start where a random draw puts
 * them, not at 1: a driver started again (its node restarted) would otherwise hand out the vQPNs of its last
 * incarnation in the same order, and a message a peer still addressed to one of those would reach the connection that
 * took its number (a peer's CLOSE of its old connection closed a new client's, and with it the persist ring it owned).
 */
final class ConnectionTable
{
    static final int VQPN_INDEX_BITS = 20;
    static final int MAX_CONNECTIONS = 1 << VQPN_INDEX_BITS;

    private final RequestPipeline pipeline;
    private final RegionTable regions;
    private final SyncLanes lanes;
    private final Routes routes;
    private final ConnectAdmission admission;
    private final int connectionCredits;
    private final AtomicReferenceArray<DriverConnection> connections = new AtomicReferenceArray<>(MAX_CONNECTIONS);
    private final int[] generations = new int[MAX_CONNECTIONS];
    private int nextIndex = 1;

    ConnectionTable(
        final RequestPipeline pipeline,
        final RegionTable regions,
        final SyncLanes lanes,
        final Routes routes,
        final ConnectAdmission admission,
        final int connectionCredits)
    {
        this.pipeline = pipeline;
        this.regions = regions;
        this.lanes = lanes;
        this.routes = routes;
        this.admission = admission;
        this.connectionCredits = connectionCredits;
        // where every index's generations start in this driver: drawn once, so that its incarnations differ
        Arrays.fill(generations, ThreadLocalRandom.current().nextInt(0x800));
    }

    /** A new connection over the route, with a vQPN no open connection has. */
    DriverConnection open(final NodeRoute route, final CompletionHandler handler)
    {
        synchronized (connections)
        {
            for (int i = 0; i < MAX_CONNECTIONS - 1; i++)
            {
                final int index = nextIndex;
                nextIndex = index + 1 == MAX_CONNECTIONS ? 1 : index + 1;
                if (connections.get(index) == null)
                {
                    int generation = (generations[index] + 1) & 0x7ff;
                    if (generation == 0)
                    {
                        generation = 1;
                    }
                    generations[index] = generation;
                    final int vqpn = generation << VQPN_INDEX_BITS | index;
                    final DriverConnection connection =
                        new DriverConnection(this, pipeline, regions, lanes, vqpn, route, handler);
                    connections.set(index, connection);
                    return connection;
                }
            }
        }
        throw new RaasException("driver has " + (MAX_CONNECTIONS - 1) + " logical connections; no vQPN is free");
    }

    /** @return the open connection with this vQPN, or null. */
    DriverConnection connection(final int vqpn)
    {
        final DriverConnection connection = connections.get(vqpn & (MAX_CONNECTIONS - 1));
        return connection != null && connection.vqpn() == vqpn ? connection : null;
    }

    /** A connection closed: its vQPN is free, and what admission counted of it (if a peer opened it) too. */
    void release(final DriverConnection connection)
    {
        connections.compareAndSet(connection.vqpn() & (MAX_CONNECTIONS - 1), connection, null);
        final ConnectAdmission.Inbound inbound = connection.inbound();
        if (inbound != null)
        {
            admission.release(inbound);
        }
    }

    /** @return the route to the node as it is now, for a connection whose route went stale. */
    NodeRoute currentRoute(final long nodeId)
    {
        return routes.route(nodeId);
    }

    /** The route names an earlier incarnation of its node than a region the application holds: read it anew. */
    void markStale(final NodeRoute route)
    {
        routes.markStale(route);
    }

    /** @return asynchronous requests a connection may have outstanding. */
    int connectionCredits()
    {
        return connectionCredits;
    }

    /** @return logical connections open now. */
    int count()
    {
        int count = 0;
        for (int i = 0; i < connections.length(); i++)
        {
            if (connections.get(i) != null)
            {
                count++;
            }
        }
        return count;
    }

    /** The driver closes: every connection closes, telling no peer. */
    void closeAll()
    {
        for (int i = 0; i < connections.length(); i++)
        {
            final DriverConnection connection = connections.get(i);
            if (connection != null)
            {
                connection.closeQuietly();
            }
        }
    }
}
