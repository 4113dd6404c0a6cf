/**
 * Compute nodes: stateless RESP servers on Netty that embed a {@code KvClient}, register with the MetaServer as role
 * compute, and drain on close; {@code ./dkv compute-node} runs one.
 */
package io.dkv.compute;
