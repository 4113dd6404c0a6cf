package io.dkv.load.bench.hostile;

import io.dkv.load.bench.LiveHeap;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What this process holds at a moment: heap live after a full collection, open file descriptors,
 * threads. Taken before an attack and after it, the difference is what the attack left behind.
 *
 * @param heapBytes heap each pool held right after the full collection {@code System.gc()} made (its
 *                  collection usage): the live set, not what was allocated since.
 * @param fds       open file descriptors ({@code /proc/self/fd}), -1 where that cannot be read.
 * @param threads   live threads.
 */
record ProcessFigures(long heapBytes, long fds, int threads)
{
    static ProcessFigures now()
    {
        for (int i = 0; i < 3; i++)
        {
            System.gc();
        }
        return new ProcessFigures(LiveHeap.afterLastCollection(), openFds(), ManagementFactory.getThreadMXBean()
            .getThreadCount());
    }

    private static long openFds()
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.count();
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return -1;
        }
    }
}
