/**
 * {@code dkv bench verbs}: latency and throughput of one-sided verbs (READ, WRITE, CAS) on each
 * software provider, beside floors measured in the same run (local memory for shm, a loopback TCP
 * ping-pong for tcp).
 */
package io.dkv.load.bench.verbs;
