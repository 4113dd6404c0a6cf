/**
 * {@code dkv bench compute}: a compute node against redis-server, side by side in one run: throughput and latency
 * under redis-benchmark, and the time from exec of a new compute node process to its first served GET.
 */
package io.dkv.load.bench.compute;
