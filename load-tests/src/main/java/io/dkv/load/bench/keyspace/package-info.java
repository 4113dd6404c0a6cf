/**
 * The keyspace as a whole measured: a scan of every key through the client and through a compute node, and DBSIZE,
 * beside redis-server's (`./dkv bench keyspace`).
 */
package io.dkv.load.bench.keyspace;
