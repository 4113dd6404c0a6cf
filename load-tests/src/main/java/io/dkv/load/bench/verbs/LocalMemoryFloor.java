package io.dkv.load.bench.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The shm floor: a local region as large as the remote one, accessed by the benchmark thread
 * itself. The region is zeroed at allocation, which maps every page in before timing starts.
 */
final class LocalMemoryFloor implements ProbeFactory
{
    private final Arena arena = Arena.ofShared();
    private final MemorySegment region;
    private final MemorySegment buffer;

    /**
     * @param regionLength bytes of the region accessed at random offsets.
     * @param maxSize      the largest access probes will make.
     */
    LocalMemoryFloor(final long regionLength, final int maxSize)
    {
        region = arena.allocate(regionLength, 4096);
        buffer = arena.allocate(maxSize, VerbsLoopback.SLOT_ALIGNMENT);
    }

    public Probe probe(final Operation operation, final int size, final long[] offsets)
    {
        return new LocalMemoryProbe(operation, size, region, buffer, offsets);
    }

    public String describe(final Operation operation, final int size)
    {
        return "local memory";
    }

    public void close()
    {
        arena.close();
    }
}
