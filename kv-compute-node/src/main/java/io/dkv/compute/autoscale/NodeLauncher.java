package io.dkv.compute.autoscale;

/**
 * Starts compute nodes for the autoscaler: {@link ProcessNodeLauncher} as processes of this host; tests may start
 * them in the JVM.
 */
@FunctionalInterface
public interface NodeLauncher
{
    /**
     * Start a node and return at once, while it joins.
     *
     * @param ordinal how many nodes this autoscaler started before it, for names and log files.
     * @return the node, STARTING.
     */
    ManagedNode launch(int ordinal);
}
