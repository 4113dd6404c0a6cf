package io.dkv.meta;

import io.dkv.raas.Directory;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaEndpoint;

/**
 * The directory of the MetaServer's own driver: its own records, and the peer MetaServer as its
 * endpoint says (nodes that call in need no lookup: a CONNECT carries the caller's record).
 */
final class ServerDirectory implements Directory
{
    private final MetaState state;
    private final NodeRecord peer;

    ServerDirectory(final MetaState state, final MetaEndpoint peer)
    {
        this.state = state;
        this.peer = peer == null ? null : peer.toNodeRecord();
    }

    public NodeRecord node(final long nodeId)
    {
        if (peer != null && peer.id() == nodeId)
        {
            return peer;
        }
        return state.node(nodeId);
    }

    public Membership membership()
    {
        return state.membership().toMembership();
    }

    public RemoteRegion region(final String name)
    {
        return state.region(name);
    }

    /** The server's own node: it does not expire. */
    public void register(final NodeRecord self)
    {
        state.putNode(self.withLease(Long.MAX_VALUE), null);
    }

    public void publish(final RemoteRegion region)
    {
        state.putRegion(region);
    }

    public void withdraw(final String name)
    {
        state.removeRegion(name);
    }

    public void invalidate(final long nodeId)
    {
    }
}
