package io.dkv.load.bench.raas;

import io.dkv.load.bench.LiveHeap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * What this process holds at one moment, in the forms a connection or queue pair can take: live
 * heap after a full collection, memory-mapped files (the shm provider's queue files), and the pages
 * of shared memory actually resident. Native memory from arenas is not counted by the JVM; neither
 * side's per-connection state lives there (the raw queue pairs are created without inline buffers).
 *
 * <p>The heap figure is what each heap pool held when the last collection finished, not what is in
 * use when sampled: a thread that allocates anything after the collection (a driver's agent, a NIC
 * engine) takes a whole new TLAB, which would count as megabytes in use.
 *
 * @param heapBytes        heap live after the last full collection.
 * @param mappedBytes      bytes of files mapped through the JVM, resident or not.
 * @param shmResidentBytes resident shared-memory pages ({@code RssShmem}), or -1 where unknown.
 */
record MemorySample(long heapBytes, long mappedBytes, long shmResidentBytes)
{
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final String SHM_RESIDENT_KEY = "RssShmem:";
    private static final int MAX_ROUNDS = 10;
    private static final long CLEANER_PAUSE_MILLIS = 20;

    /**
     * Collect garbage until what is mapped stops changing, then sample. With the parallel collector
     * every {@link System#gc()} is a full, compacting collection; files mapped by arenas that became
     * unreachable are unmapped by the cleaner thread after it, so a sample taken at once could see
     * memory released by something closed earlier and count it against what is measured.
     */
    static MemorySample take()
    {
        MemorySample previous = collectAndSample();
        for (int round = 1; round < MAX_ROUNDS; round++)
        {
            final MemorySample sample = collectAndSample();
            if (sample.mappedBytes == previous.mappedBytes && sample.shmResidentBytes == previous.shmResidentBytes)
            {
                return sample;
            }
            previous = sample;
        }
        return previous;
    }

    private static MemorySample collectAndSample()
    {
        System.gc();
        try
        {
            Thread.sleep(CLEANER_PAUSE_MILLIS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sampling memory", ex);
        }
        System.gc();
        return new MemorySample(
            LiveHeap.afterLastCollection(),
            mappedFileBytes(),
            shmResidentBytes(STATUS));
    }

    /**
     * @param before the sample taken before the units were created.
     * @param units  how many were created in between.
     * @return the growth per unit.
     */
    MemoryFootprint perUnitSince(final MemorySample before, final int units)
    {
        if (units <= 0)
        {
            throw new IllegalArgumentException("growth per unit of " + units + " units");
        }
        final long shm = shmResidentBytes < 0 || before.shmResidentBytes < 0 ? -1 :
            (shmResidentBytes - before.shmResidentBytes) / units;
        return new MemoryFootprint(
            (heapBytes - before.heapBytes) / units,
            (mappedBytes - before.mappedBytes) / units,
            shm,
            units);
    }

    private static long mappedFileBytes()
    {
        long total = 0;
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if (pool.getName().equals("mapped"))
            {
                total += pool.getMemoryUsed();
            }
        }
        return total;
    }

    static long shmResidentBytes(final Path status)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(status);
        }
        catch (final NoSuchFileException | SecurityException ex)
        {
            return -1;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + status, ex);
        }
        for (final String line : lines)
        {
            if (line.startsWith(SHM_RESIDENT_KEY))
            {
                final String[] fields = line.substring(SHM_RESIDENT_KEY.length()).trim().split("\\s+");
                if (fields.length == 2 && fields[1].equals("kB"))
                {
                    return Long.parseLong(fields[0]) * 1024;
                }
                throw new IllegalStateException("unexpected line in " + status + ": '" + line + "'");
            }
        }
        return -1;
    }
}
