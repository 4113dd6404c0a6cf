/**
 * A compute node's load as an autoscaler reads it: how long requests take
 * ({@link io.dkv.compute.metrics.CommandLatency}, recorded per event loop without contention), how busy the process
 * keeps the host's CPUs ({@link io.dkv.compute.metrics.ProcessCpu}), and the Prometheus text endpoint that serves them
 * with the node's other figures ({@link io.dkv.compute.metrics.MetricsEndpoint}, whose HTTP classes load only when it
 * is asked for).
 */
package io.dkv.compute.metrics;
