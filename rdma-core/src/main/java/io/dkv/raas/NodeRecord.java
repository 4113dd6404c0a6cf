package io.dkv.raas;

import io.dkv.verbs.PortAddress;

/**
 * What it takes to reach a node with no handshake: its port address, the number of its DC target
 * and the DC key, plus identity and liveness. A few bytes, published in the directory and read
 * with one-sided READs.
 *
 * @param id           cluster-wide node id (non-zero).
 * @param role         what the node does, e.g. {@link #ROLE_MEMORY}.
 * @param address      where its device listens.
 * @param dctNumber    its driver's DC target.
 * @param dcKey        the DC key of that target; a new incarnation draws a new one.
 * @param epoch        incarnation of the node: bumped each time it registers anew.
 * @param leaseExpiry  wall-clock millis after which the node counts as gone unless renewed.
 */
public record NodeRecord(long id, int role, PortAddress address, int dctNumber, long dcKey, long epoch,
    long leaseExpiry)
{
    public static final int ROLE_META = 1;
    public static final int ROLE_MEMORY = 2;
    public static final int ROLE_COMPUTE = 3;
    public static final int ROLE_CLIENT = 4;
    /**
     * The DC key of a node that runs RC-only (no DC target): its {@code dctNumber} is then the number of its datagram
     * queue pair, through which peers set up the RC queue pair they reach it by.
     */
    public static final long RC_ONLY_DC_KEY = 0;

    /** @return whether the node has no DC target: peers reach it over RC, set up through its datagram queue pair. */
    public boolean rcOnly()
    {
        return dcKey == RC_ONLY_DC_KEY;
    }

    public NodeRecord
    {
        if (id == 0)
        {
            throw new IllegalArgumentException("node id 0 is reserved");
        }
        if (address == null)
        {
            throw new IllegalArgumentException("node " + id + " has no address");
        }
    }

    public NodeRecord withLease(final long newLeaseExpiry)
    {
        return new NodeRecord(id, role, address, dctNumber, dcKey, epoch, newLeaseExpiry);
    }

    public static String roleName(final int role)
    {
        return switch (role)
        {
            case ROLE_META -> "meta";
            case ROLE_MEMORY -> "memory";
            case ROLE_COMPUTE -> "compute";
            case ROLE_CLIENT -> "client";
            default -> "role-" + role;
        };
    }

    public String toString()
    {
        return String.format("node{id=%d, role=%s, address=%s, dct=0x%x, epoch=%d}", id, roleName(role), address,
            dctNumber, epoch);
    }
}
