/**
 * {@code dkv bench raas}: what RDMA as a Service costs and saves against the raw verbs layer on the
 * same provider, each figure beside its raw baseline measured in the same run: throughput as logical
 * connections grow from one to thousands, lock-free sharing of queue pairs between threads, the
 * latency the embedded driver adds to a READ, and the message sizes at which SEND gives way to
 * WRITE_WITH_IMM and copying to registration.
 */
package io.dkv.load.bench.raas;
