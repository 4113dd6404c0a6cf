package io.dkv.verbs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A region peers may reach has its memory when it is allocated, as an RNIC's registration pins a
 * region's pages: the first requests to reach it do not pay for giving it memory. With
 * {@code dkv.verbs.shm.populate=false} pages come when first touched.
 */
class RegisteredMemoryTest
{
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final long REGION = 64L << 20;

    @Test
    void anShmRegionIsBackedByMemoryOnceAllocated()
    {
        assumeTrue(Files.isReadable(STATUS), "no /proc/self/status here: resident shared memory cannot be read");
        try (Device device = Verbs.open(TestNode.context("shm")))
        {
            final ProtectionDomain pd = device.allocPd();
            final long before = sharedMemoryBytes();
            final MemoryRegion region = pd.allocate(REGION, Access.ALL);
            final long grown = sharedMemoryBytes() - before;
            assertTrue(grown >= REGION * 9 / 10,
                "shared memory grew by " + grown + " B for a region of " + REGION + " B");
            region.deregister();
        }
    }

    @Test
    void withoutPopulatingAnShmRegionGetsMemoryOnlyWhereTouched()
    {
        assumeTrue(Files.isReadable(STATUS), "no /proc/self/status here: resident shared memory cannot be read");
        try (Device device = Verbs.open(TestNode.context("shm").shmPopulate(false)))
        {
            final ProtectionDomain pd = device.allocPd();
            final long before = sharedMemoryBytes();
            final MemoryRegion region = pd.allocate(REGION, Access.ALL);
            final long grown = sharedMemoryBytes() - before;
            assertTrue(grown < REGION / 4,
                "shared memory grew by " + grown + " B for an untouched region of " + REGION + " B");
            region.deregister();
        }
    }

    /**
     * @return "RssShmem" of /proc/self/status: shared memory (shm regions) resident in this process's
     * mappings. Not the machine-wide "Shmem" of /proc/meminfo, which other processes move meanwhile.
     */
    private static long sharedMemoryBytes()
    {
        try
        {
            for (final String line : Files.readAllLines(STATUS))
            {
                if (line.startsWith("RssShmem:"))
                {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        }
        catch (final IOException ex)
        {
            throw new AssertionError("cannot read " + STATUS + ": " + ex, ex);
        }
        throw new AssertionError(STATUS + " has no RssShmem line");
    }
}
