/**
 * A local cluster for trying dkv ({@code dkv up}: a MetaServer, memory nodes, a driver and compute nodes as processes
 * of this host) and the commands that use it ({@code dkv put}, {@code get}, {@code del}).
 */
package io.dkv.cli.cluster;
