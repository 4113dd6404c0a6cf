package io.dkv.verbs.shm;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer reads a device's tables as they were between two of the owner's writes; an entry its owner died writing is
 * read as no entry, not waited on for ever.
 */
class ShmControlFileTest
{
    private static final int CAPACITY = 16;

    @Test
    @Timeout(30)
    void anEntryWhoseOwnerDiedWritingItReadsAsNone() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment file = controlFile(arena);
            final ShmControlFile control = ShmControlFile.create(file, 0x5eed, gone.pid(), CAPACITY, CAPACITY);
            control.putRegion(3, 0x301, 1, 4096, 8192, 7, 9);
            beginWriteAndStop(file, 3);

            assertFalse(control.readRegion(3, new ShmRegionEntry()), "a half-written entry of a dead owner");
        }
    }

    @Test
    @Timeout(30)
    void aLiveOwnersEntryIsReadOnceItsWriteEnds() throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment file = controlFile(arena);
            final ShmControlFile control =
                ShmControlFile.create(file, 0x5eed, ProcessHandle.current().pid(), CAPACITY, CAPACITY);
            control.putRegion(3, 0x301, 1, 4096, 8192, 7, 9);
            final UnsafeBuffer version = beginWriteAndStop(file, 3);

            final ShmRegionEntry entry = new ShmRegionEntry();
            final CompletableFuture<Boolean> read = CompletableFuture.supplyAsync(() -> control.readRegion(3, entry));
            Thread.sleep(200);
            assertFalse(read.isDone(), "the owner lives: its write is waited for");

            version.putLongVolatile(0, version.getLong(0) + 1);
            assertTrue(read.get(10, TimeUnit.SECONDS));
            assertEquals(0x301, entry.key);
        }
    }

    private static MemorySegment controlFile(final Arena arena)
    {
        return arena.allocate(ShmControlDescriptor.fileLength(CAPACITY, CAPACITY), 64);
    }

    /** @return the entry's version word, odd now: its owner began a write and never ended it. */
    private static UnsafeBuffer beginWriteAndStop(final MemorySegment file, final int index)
    {
        final UnsafeBuffer version = new UnsafeBuffer(file.address() +
            ShmControlDescriptor.mrTableOffset() + (long)index * ShmControlDescriptor.ENTRY_LENGTH +
            ShmControlDescriptor.ENTRY_VERSION_OFFSET, Long.BYTES);
        version.putLongVolatile(0, version.getLong(0) + 1);
        return version;
    }
}
