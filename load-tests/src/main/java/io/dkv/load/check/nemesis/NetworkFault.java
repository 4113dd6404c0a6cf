package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.TestHosts;

import java.util.List;

/**
 * A fault of the network between test hosts (network namespaces, {@link TestHosts}): the hosts cut in two random
 * groups by blackhole routes, healed by deleting them. The roles must run on test hosts.
 */
abstract class NetworkFault extends FaultKind
{
    NetworkFault(final String name)
    {
        super(name, Trait.NEEDS_TEST_HOSTS);
    }

    final String unfit(final List<FaultKind> asked, final NemesisTargets targets)
    {
        return targets.hosts() == null ? "partitions need test hosts" : null;
    }
}
