package io.dkv.load.bench.raas;

/**
 * Memory per unit (a logical connection, a queue pair), from the growth of {@link MemorySample}s
 * taken before and after creating {@code units} of them.
 *
 * @param heapBytes        live heap per unit.
 * @param mappedBytes      mapped files per unit (virtual size).
 * @param shmResidentBytes resident shared memory per unit, or -1 where unknown.
 * @param units            how many units the growth was divided by.
 */
record MemoryFootprint(long heapBytes, long mappedBytes, long shmResidentBytes, int units)
{
}
