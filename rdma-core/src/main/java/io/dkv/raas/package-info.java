/**
 * RDMA as a Service: one driver per host shares a few queue pairs among many logical connections
 * (vQPNs), checks every request before it reaches a shared queue pair, and offers socket-like
 * messaging, one-sided operations on remote regions and LITE-style named regions.
 */
package io.dkv.raas;
