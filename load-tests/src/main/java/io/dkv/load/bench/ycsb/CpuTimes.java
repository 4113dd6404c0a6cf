package io.dkv.load.bench.ycsb;

/**
 * CPU time one run took, in nanoseconds: its client threads alone, this whole process (client
 * threads, and for the in-process dkv store its drivers and memory node), and the store's own
 * process where it runs apart (redis-server; 0 for dkv).
 */
record CpuTimes(long clientNanos, long processNanos, long serverNanos)
{
}
