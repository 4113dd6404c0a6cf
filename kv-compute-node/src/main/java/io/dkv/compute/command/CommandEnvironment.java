package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.compute.blocking.Waiters;
import io.dkv.compute.limits.ClientLimits;
import org.agrona.concurrent.SystemEpochNanoClock;
import io.dkv.compute.pubsub.PubSub;

import java.nio.charset.StandardCharsets;

/**
 * What commands may use beyond their connection: the store (through the embedded client), the password, the node's
 * figures and the settings CONFIG GET and INFO report.
 *
 * @param client      the store.
 * @param requirePass the password AUTH must give, or null when none is required.
 * @param stats       the node's figures.
 * @param port        the port served, for INFO and CONFIG GET.
 * @param maxClients  connections served at most.
 * @param maxBulk     bytes of an argument the node holds whole; longer values are written into pieces.
 * @param nodeId      the node's id in the cluster, or 0 when it has none.
 * @param cluster     the compute nodes CLUSTER answers with.
 * @param clientLimits what a connection may hold of the node: CONFIG GET and SET read and change them.
 * @param auth        what a failed AUTH costs its connection.
 * @param pubsub      pub/sub across the pool's compute nodes.
 * @param waiters     the connections blocked on keys, woken by writes through any compute node of the pool.
 * @param persistence appendonly and appendfsync: the client's durability, which CONFIG SET changes pool-wide.
 */
public record CommandEnvironment(KvClient client, String requirePass, NodeStats stats, int port, int maxClients,
    int maxBulk, long nodeId, ClusterView cluster, ClientLimits clientLimits, AuthThrottle auth, PubSub pubsub,
    Waiters waiters, Persistence persistence)
{
    /** With appendonly and appendfsync as the client's durability says, changed on this node alone. */
    public CommandEnvironment(final KvClient client, final String requirePass, final NodeStats stats, final int port,
        final int maxClients, final int maxBulk, final long nodeId, final ClusterView cluster,
        final ClientLimits clientLimits, final AuthThrottle auth, final PubSub pubsub, final Waiters waiters)
    {
        this(client, requirePass, stats, port, maxClients, maxBulk, nodeId, cluster, clientLimits, auth, pubsub,
            waiters, Persistence.of(client));
    }

    /** With pub/sub and blocking commands of the node's pool. */
    public CommandEnvironment(final KvClient client, final String requirePass, final NodeStats stats, final int port,
        final int maxClients, final int maxBulk, final long nodeId, final ClusterView cluster,
        final ClientLimits clientLimits, final AuthThrottle auth, final PubSub pubsub)
    {
        this(client, requirePass, stats, port, maxClients, maxBulk, nodeId, cluster, clientLimits, auth, pubsub,
            new Waiters(pubsub.interest(), SystemEpochNanoClock.INSTANCE, ex ->
            {
            }));
    }

    /** With pub/sub among this node's connections alone. */
    public CommandEnvironment(final KvClient client, final String requirePass, final NodeStats stats, final int port,
        final int maxClients, final int maxBulk, final long nodeId, final ClusterView cluster,
        final ClientLimits clientLimits, final AuthThrottle auth)
    {
        this(client, requirePass, stats, port, maxClients, maxBulk, nodeId, cluster, clientLimits, auth,
            PubSub.alone());
    }

    /** With no client limits and failed AUTHs not throttled: a table run apart from clients' connections. */
    public CommandEnvironment(final KvClient client, final String requirePass, final NodeStats stats, final int port,
        final int maxClients, final int maxBulk, final long nodeId, final ClusterView cluster)
    {
        this(client, requirePass, stats, port, maxClients, maxBulk, nodeId, cluster, ClientLimits.unlimited(),
            AuthThrottle.NONE);
    }

    boolean passwordMatches(final byte[] given)
    {
        return requirePass != null &&
            java.security.MessageDigest.isEqual(requirePass.getBytes(StandardCharsets.UTF_8), given);
    }
}
