/**
 * A local cluster for trying dkv ({@code dkv up}: a MetaServer, memory nodes and a driver as
 * processes of this host) and the commands that use it ({@code dkv put}, {@code get}, {@code del}).
 */
package io.dkv.load.cluster;
