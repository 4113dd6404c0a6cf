package io.dkv.agent;

import io.dkv.raas.driver.DriverCounter;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A role's counters live in a counters file, where another process reads them with a {@link CountersReader} over a
 * mapping of its own; a clean close leaves no file, and a killed process's file goes when the next one starts.
 */
class CountersFileTest
{
    @TempDir
    Path directory;

    private final CachedEpochClock clock = new CachedEpochClock();

    @Test
    void countersWrittenHereAreReadThroughAMappingOfTheFileOfItsOwn()
    {
        clock.update(1_700_000_000_000L);
        final Path path = CountersFile.fileOf(directory, "memory-node-7");
        try (CountersFile file = CountersFile.create(path, 32, clock))
        {
            final SystemCounters<DriverCounter> counters =
                new SystemCounters<>(file.manager(), 5, DriverCounter.values());
            counters.get(DriverCounter.QP_RECYCLES).incrementRelease();
            counters.get(DriverCounter.QP_RECYCLES).increment();
            counters.get(DriverCounter.ERRORS).increment();

            final CountersStat stat = CountersStat.open(path);
            final CountersReader reader = stat.reader();
            assertEquals("Errors in the driver's agents", reader.getCounterLabel(0));
            assertEquals(5, reader.getCounterTypeId(2));
            assertEquals(2, reader.getCounterValue(2));
            assertEquals(2, stat.value("Queue pairs recycled"));
            assertEquals(-1, stat.value("no such counter"));
            assertTrue(stat.isRunning());
            assertEquals(ProcessHandle.current().pid(), stat.pid());

            counters.get(DriverCounter.QP_RECYCLES).increment();
            assertEquals(3, reader.getCounterValue(2), "read live, not copied");
            final String report = stat.report("memory-node-7");
            assertTrue(report.startsWith("memory-node-7 (pid " + ProcessHandle.current().pid() + ", running, " +
                "started 2023-11-14T22:13:20Z), " + path + ":\n" +
                "   0  Errors in the driver's agents                      1\n" +
                "   1  Queue pairs stalled                                0\n" +
                "   2  Queue pairs recycled                               3\n"), report);
            assertTrue(report.contains("\n   7  Requests retried after a flush                     0\n"), report);
            assertEquals(DriverCounter.values().length + 1, report.split("\n").length, report);
            assertEquals(stat.report("memory-node-7"), CountersStat.reportAll(directory, "memory-node-"));
        }
        assertFalse(Files.exists(path), "a clean close leaves no file");
    }

    @Test
    void aMissingFileIsNamedAndAFileOfAnotherKindRefused() throws IOException
    {
        final Path missing = CountersFile.fileOf(directory, "meta-server-1");
        final IllegalStateException error = assertThrows(IllegalStateException.class, () -> CountersStat.open(missing));
        assertTrue(error.getMessage().contains(missing.toString()), error.getMessage());
        final IllegalStateException none =
            assertThrows(IllegalStateException.class, () -> CountersStat.reportAll(directory, "meta-server-"));
        assertTrue(none.getMessage().contains("no meta-server-* counters files in " + directory), none.getMessage());

        Files.write(missing, new byte[4096]);
        final IllegalStateException foreign =
            assertThrows(IllegalStateException.class, () -> CountersStat.open(missing));
        assertTrue(foreign.getMessage().contains("not a counters file of version"), foreign.getMessage());
    }

    @Test
    void theFileOfAProcessKilledBeforeItClosedGoesWhenTheNextStarts() throws IOException
    {
        final Path dead = CountersFile.fileOf(directory, "memory-node-8");
        final CountersFile killed = CountersFile.create(dead, 4, clock);
        // as a process that died without closing leaves it: its pid names no live process
        try (FileChannel channel = FileChannel.open(dead, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, Long.MAX_VALUE),
                CountersFileDescriptor.PID_OFFSET);
        }
        assertFalse(CountersStat.open(dead).isRunning());
        try (CountersFile next = CountersFile.create(CountersFile.fileOf(directory, "memory-node-9"), 4, clock))
        {
            assertFalse(Files.exists(dead), "swept");
            assertTrue(Files.exists(next.file()));
        }
        killed.close();
    }

    @Test
    void aCounterIncrementedAfterCloseLandsInMemoryStillMapped()
    {
        final CountersFile file = CountersFile.create(CountersFile.fileOf(directory, "driver"), 32, clock);
        final SystemCounters<DriverCounter> counters = new SystemCounters<>(file.manager(), 1, DriverCounter.values());
        file.close();
        counters.get(DriverCounter.ERRORS).increment();
        assertEquals(1, counters.get(DriverCounter.ERRORS).get());
    }

    @Test
    void aFileHoldsAtLeastOneCounter()
    {
        assertThrows(IllegalArgumentException.class,
            () -> CountersFile.create(CountersFile.fileOf(directory, "none"), 0, clock));
    }
}
