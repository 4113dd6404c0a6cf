package io.dkv.load.check.nemesis;

import io.dkv.compute.autoscale.ManagedNode;
import io.dkv.load.check.harness.Role;

import java.util.List;

/**
 * What the nemesis drew for one strike, whatever its kind: how long the fault holds, and a number that picks its
 * target, which each kind maps onto the targets it strikes.
 *
 * @param holdMs how long the fault holds, as drawn; a kind may hold longer.
 * @param pick   from 0, below the count of roles and scaled nodes together.
 * @param roles  the roles there are to strike now.
 * @param scaled the compute nodes the autoscaler serves with now; empty without one.
 */
record Strike(long holdMs, int pick, List<Role> roles, List<ManagedNode> scaled)
{
    /** @return true when the pick names a node the autoscaler runs rather than a role. */
    boolean picksNode()
    {
        return pick >= roles.size();
    }

    /** @return the role the pick names, the roles counted first. */
    Role role()
    {
        return roles.get(pick);
    }

    /** @return the scaled node the pick names, counted after the roles. */
    ManagedNode node()
    {
        return scaled.get(pick - roles.size());
    }
}
