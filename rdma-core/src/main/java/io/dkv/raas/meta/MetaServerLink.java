package io.dkv.raas.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * A directory's link to one MetaServer: one RaaS connection that carries both the RPCs and the
 * one-sided READs of the tables, opened by a bootstrap that learns where the tables are. A link that
 * failed is closed and opened anew later (the server may have restarted with new tables).
 */
final class MetaServerLink
{
    final MetaEndpoint endpoint;
    final NodeRecord record;
    private final NanoClock nanoClock;
    private Connection connection;
    private MetaRpcClient rpc;
    private MetaTableReader reader;
    private RemoteRegion tables;
    private long leaseMs;
    private long nextAttemptNanos;
    private String lastFailure = "never opened";

    MetaServerLink(final MetaEndpoint endpoint, final NanoClock nanoClock)
    {
        this.endpoint = endpoint;
        this.record = endpoint.toNodeRecord();
        this.nanoClock = nanoClock;
        // due at once, whatever the clock's origin (a nanoTime may be negative)
        this.nextAttemptNanos = nanoClock.nanoTime();
    }

    boolean isUp()
    {
        return connection != null;
    }

    boolean isDue(final long nowNanos)
    {
        return nowNanos - nextAttemptNanos >= 0;
    }

    String lastFailure()
    {
        return lastFailure;
    }

    MetaTableReader reader()
    {
        return reader;
    }

    long leaseMs()
    {
        return leaseMs;
    }

    /**
     * Connect, bootstrap and read the table header.
     *
     * @throws RaasException when the server cannot be reached or answers with no tables.
     */
    void open(final Raas raas, final MetaSegments buffers, final Duration rpcTimeout,
        final MetaFrameAuthenticator authenticator)
    {
        final Connection opened = raas.connect(endpoint.nodeId(), SERVICE, Flags.ADAPTIVE, null);
        try
        {
            final MetaRpcClient client =
                new MetaRpcClient(opened, buffers.request(), buffers.reply(), rpcTimeout, nanoClock, authenticator);
            client.begin(TYPE_BOOTSTRAP);
            final MetaMessageReader reply = client.call();
            final long serverNodeId = reply.getLong();
            reply.getLong();
            final long lease = reply.getLong();
            final int count = reply.getInt();
            if (serverNodeId != endpoint.nodeId() || count < 1)
            {
                throw new RaasException("MetaServer at " + endpoint + " answered the bootstrap as node " +
                    serverNodeId + " with " +
                    count + " table regions");
            }
            final RemoteRegion region = reply.getRegion();
            if (!(raas instanceof RaasDriver driver))
            {
                throw new RaasException("a MetaDirectory reads tables through an embedded driver, not " +
                    raas.getClass().getName());
            }
            driver.trust(region);
            final MetaTableReader tableReader = new MetaTableReader(opened, region, buffers.read());
            tableReader.readHeader();
            connection = opened;
            rpc = client;
            reader = tableReader;
            tables = region;
            leaseMs = lease;
        }
        catch (final RuntimeException ex)
        {
            opened.close();
            throw ex;
        }
    }

    /** Mark the link failed: closed now, tried again once {@code retryNanos} passed. */
    void fail(final RuntimeException cause, final long retryNanos)
    {
        lastFailure = cause.getMessage();
        nextAttemptNanos = nanoClock.nanoTime() + retryNanos;
        close();
    }

    void close()
    {
        final Connection current = connection;
        connection = null;
        rpc = null;
        reader = null;
        tables = null;
        if (current != null)
        {
            try
            {
                current.close();
            }
            catch (final RuntimeException ignore)
            {
                // the server is gone already
            }
        }
    }

    RemoteRegion tables()
    {
        return tables;
    }

    /**
     * @param token the token this node proposes (the server keeps the one it holds when the record is this node's).
     * @param join     true to ask, as a memory node no member, to be added by moving keys rather than found.
     * @param restored true when this memory node's memory is what its disk held
     *                 ({@link MetaRpcDescriptor#FLAG_RESTORED}).
     * @return the lease expiry granted.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_FORBIDDEN} while another holder's record of
     *                          this id is live.
     */
    long register(final NodeRecord self, final byte[] token, final boolean join, final boolean restored)
    {
        final MetaMessageWriter request = rpc.begin(TYPE_REGISTER_NODE).putNode(self).putToken(token);
        final short flags = (short)((join ? FLAG_JOIN : 0) | (restored ? MetaRpcDescriptor.FLAG_RESTORED : 0));
        if (flags != 0)
        {
            request.flags(flags);
        }
        final MetaMessageReader reply = rpc.call();
        final long expiry = reply.getLong();
        leaseMs = reply.getLong();
        return expiry;
    }

    /** @return the lease expiry granted. */
    long heartbeat(final NodeRecord self, final byte[] token)
    {
        rpc.begin(TYPE_HEARTBEAT).putLong(self.id()).putLong(self.epoch()).putToken(token);
        final MetaMessageReader reply = rpc.call();
        final long expiry = reply.getLong();
        leaseMs = reply.getLong();
        return expiry;
    }

    void deregister(final NodeRecord self, final byte[] token)
    {
        rpc.begin(TYPE_DEREGISTER_NODE).putLong(self.id()).putLong(self.epoch()).putToken(token);
        rpc.call();
    }

    void publish(final RemoteRegion region, final byte[] token)
    {
        rpc.begin(TYPE_PUBLISH_REGION).putRegion(region).putToken(token);
        rpc.call();
    }

    void withdraw(final String name, final byte[] token)
    {
        rpc.begin(TYPE_WITHDRAW_REGION).putName(name).putToken(token);
        rpc.call();
    }

    /**
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} unless the member joins as that
     *                          incarnation (or is live as it already).
     */
    void markLive(final long nodeId, final long incarnation)
    {
        rpc.begin(TYPE_MARK_LIVE).putLong(nodeId).putLong(incarnation);
        rpc.call();
    }

    /**
     * One membership change request: BEGIN_ADD or BEGIN_DRAIN with a node id, ADVANCE_MEMBERSHIP with the expected
     * phase, ABORT_MEMBERSHIP with nothing.
     *
     * @return the whole membership after it.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} when the membership does not allow it.
     */
    MembershipRecord changeMembership(final byte type, final long argument)
    {
        final MetaMessageWriter request = rpc.begin(type);
        if (type == TYPE_ADVANCE_MEMBERSHIP)
        {
            request.putInt((int)argument);
        }
        else if (type != TYPE_ABORT_MEMBERSHIP)
        {
            request.putLong(argument);
        }
        final MetaMessageReader reply = rpc.call();
        final MembershipRecord membership = reply.getMembership();
        reply.requireEnd(typeName(type) + " reply");
        return membership;
    }

    public String toString()
    {
        return "MetaServer " + endpoint + (isUp() ? " (up)" : " (down: " + lastFailure + ")");
    }
}
