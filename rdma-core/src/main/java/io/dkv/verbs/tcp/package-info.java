/**
 * The {@code tcp} provider: a software RNIC for peers on different hosts without RNICs. Each
 * device runs a NIC engine that serves remote READ, WRITE and atomics on its registered regions
 * without application threads, over one TCP link per pair of hosts.
 */
package io.dkv.verbs.tcp;
