package io.dkv.load.bench.ycsb;

import org.HdrHistogram.Histogram;

/**
 * The two floors a GET is set beside, each its three memory accesses as synchronous READs one after
 * the other ({@link MemoryFloor}).
 *
 * @param raas through the client node's driver, as the store's client reaches the memory node.
 * @param raw  on a raw verbs RC queue pair of the client's device to the memory node's, no RaaS.
 */
record GetFloors(Histogram raas, Histogram raw)
{
}
