package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.meta.MetaFrameAuthenticator;
import io.dkv.raas.meta.MetaRpcClient;
import org.agrona.concurrent.EpochClock;

import java.time.Duration;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * Registers and deregisters memory nodes by hand, each incarnation of the test's choosing, through a
 * connection of a node to one MetaServer: what a memory node's directory does, without a memory node.
 */
final class MemberRpc implements AutoCloseable
{
    /** The token every node registered here proves itself with. */
    static final byte[] TOKEN = "member-rpc-token".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final Raas caller;
    private final Connection connection;
    private final MetaRpcClient client;

    /**
     * @param caller a node registered with the server.
     * @param server the MetaServer's node id.
     * @param clock  what frames are stamped with: the server's epoch clock.
     */
    MemberRpc(final Raas caller, final long server, final EpochClock clock)
    {
        this.caller = caller;
        this.connection = caller.connect(server, SERVICE, Flags.ADAPTIVE, null);
        this.client = new MetaRpcClient(connection, caller.allocateBuffer(MAX_FRAME_LENGTH),
            caller.allocateBuffer(MAX_FRAME_LENGTH), Duration.ofSeconds(5),
            new MetaFrameAuthenticator(MetaTestSupport.SECRET, clock, 30_000));
    }

    /** Register a node of this role as this incarnation (its address: the caller's). */
    void register(final long nodeId, final int role, final long incarnation)
    {
        client.begin(TYPE_REGISTER_NODE)
            .putNode(new NodeRecord(nodeId, role, caller.self().address(), 1, 0x5eed, incarnation, 0))
            .putToken(TOKEN);
        client.call();
    }

    /** Register a memory node as this incarnation, asking to be added by moving keys. */
    void registerJoining(final long nodeId, final long incarnation)
    {
        client.begin(TYPE_REGISTER_NODE)
            .putNode(new NodeRecord(nodeId, NodeRecord.ROLE_MEMORY, caller.self().address(), 1, 0x5eed, incarnation, 0))
            .putToken(TOKEN)
            .flags(FLAG_JOIN);
        client.call();
    }

    /** Register a memory node as this incarnation. */
    void register(final long nodeId, final long incarnation)
    {
        register(nodeId, NodeRecord.ROLE_MEMORY, incarnation);
    }

    /** Deregister the node cleanly, as a memory node that stops does. */
    void deregister(final long nodeId, final long incarnation)
    {
        client.begin(TYPE_DEREGISTER_NODE).putLong(nodeId).putLong(incarnation).putToken(TOKEN);
        client.call();
    }

    public void close()
    {
        connection.close();
    }
}
