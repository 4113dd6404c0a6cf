package io.dkv.load.check.nemesis;

/**
 * What the command line asks of the cluster that a fault kind may need.
 *
 * @param memoryNodes memory nodes the cluster begins with.
 * @param replicas    copies of each key.
 * @param autoscaled  true when an autoscaler runs the compute nodes.
 */
public record ClusterShape(int memoryNodes, int replicas, boolean autoscaled)
{
}
