package io.dkv.raas.driver;

import io.dkv.raas.NodeRecord;
import io.dkv.verbs.AddressHandle;

/**
 * How this driver reaches one node: its record (address, DC target, key), the address handle, the
 * DC initiator its requests go through (always the same one, which keeps them in order) and, once
 * the peer turned hot, an RC queue pair of the pool.
 */
final class NodeRoute
{
    final NodeRecord node;
    final AddressHandle ah;
    final PooledQp dci;
    /** Where bulk applications' requests go (see {@link QpPool#bulkDciFor}); never over the RC queue pair. */
    final PooledQp bulkDci;
    volatile PooledQp rc;
    volatile boolean stale;
    boolean promoting;
    /** A promotion the peer did not answer: no new one before this (carried over to a route replacing this one). */
    volatile long promoteNotBeforeMillis;
    long windowStartMillis;
    int windowRequests;
    /** When the promotion under way began, and the queue pair made for it: a datagram handshake can be lost. */
    long promotingSinceMillis;
    PooledQp pendingRc;

    NodeRoute(final NodeRecord node, final AddressHandle ah, final PooledQp dci, final PooledQp bulkDci)
    {
        this.node = node;
        this.ah = ah;
        this.dci = dci;
        this.bulkDci = bulkDci;
    }

    public String toString()
    {
        return "route to " + node + (rc != null ? " over RC" : dci != null ? " over DC" : " awaiting RC");
    }
}
