package io.dkv.load.check.nemesis;

import io.dkv.compute.autoscale.Autoscaler;
import io.dkv.load.check.harness.Role;
import io.dkv.load.check.harness.TestHosts;

import java.util.List;

/**
 * The cluster as the nemesis strikes it.
 *
 * @param roles       roles that may be struck; memory nodes added later come from {@code tier}.
 * @param hosts       the test hosts the roles run on, for partitions; null when they run on this host.
 * @param hostNames   what runs on each test host, for the log.
 * @param originNanos when the history began, the time of the nemesis's events.
 * @param autoscaler  the autoscaler of the compute nodes, whose nodes are struck too; or null.
 * @param calmTarget  its target per node under which the run's load keeps its minimum.
 * @param surgeTarget its target per node under which the run's load asks for its maximum.
 * @param memoryKills the memory nodes among the roles, and when one may be killed.
 * @param tier        adds and drains memory nodes.
 * @param writes      where kill-mid-write finds a client with a write in flight; or null.
 */
public record NemesisTargets(List<Role> roles, TestHosts hosts, List<String> hostNames, long originNanos,
    Autoscaler autoscaler, double calmTarget, double surgeTarget, MemoryNodeKills memoryKills, MemoryTierChanges tier,
    WritesInFlight writes)
{
    public NemesisTargets
    {
        roles = List.copyOf(roles);
        hostNames = List.copyOf(hostNames);
    }
}
