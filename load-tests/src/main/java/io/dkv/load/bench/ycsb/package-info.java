/**
 * {@code dkv bench ycsb}: YCSB's core workloads on an in-process dkv store and on Redis in the same
 * run, alternating, each figure reported as a ratio to Redis's and GETs beside their memory floor.
 */
package io.dkv.load.bench.ycsb;
