/**
 * Blocking commands across compute nodes: the connections blocked on keys, served in the order they blocked when a
 * write through any node readies a key.
 */
package io.dkv.compute.blocking;
