package io.dkv.agent;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static io.dkv.agent.CountersFileDescriptor.CLOSED_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.HEADER_LENGTH;
import static io.dkv.agent.CountersFileDescriptor.METADATA_LENGTH_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.PID_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.START_TIME_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.SUFFIX;
import static io.dkv.agent.CountersFileDescriptor.VALUES_LENGTH_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.VERSION;
import static io.dkv.agent.CountersFileDescriptor.VERSION_OFFSET;

/**
 * A process's counters in a file of its own ({@link CountersFileDescriptor}): the process allocates and writes them
 * through {@link #manager()}, and another process reads them while it runs ({@link CountersStat}). A clean close
 * deletes the file: the counters of a stopped process would read as if it still ran.
 *
 * <p>The mapping is a {@link MappedByteBuffer}, which the buffers wrapping it keep mapped for as long as anything
 * holds them: a counter incremented after {@link #close()} lands in memory that is still there.
 */
public final class CountersFile implements AutoCloseable
{
    private final Path file;
    private final UnsafeBuffer header;
    private final CountersManager manager;
    private boolean closed;

    private CountersFile(final Path file, final MappedByteBuffer mapping, final int maxCounters)
    {
        this.file = file;
        final int metadataLength = CountersFileDescriptor.metadataLength(maxCounters);
        final int valuesLength = CountersFileDescriptor.valuesLength(maxCounters);
        this.header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        this.manager = new CountersManager(
            new UnsafeBuffer(mapping, CountersFileDescriptor.metadataOffset(), metadataLength),
            new UnsafeBuffer(mapping, (int)CountersFileDescriptor.valuesOffset(metadataLength), valuesLength));
        header.putInt(METADATA_LENGTH_OFFSET, metadataLength);
        header.putInt(VALUES_LENGTH_OFFSET, valuesLength);
    }

    /**
     * @param file        where the counters go; its folder is made when missing, and a previous process's file there
     *                    is replaced.
     * @param maxCounters counters the file holds at most.
     * @param clock       the clock the start time is stamped with.
     * @return the file, no counter allocated in it yet.
     */
    public static CountersFile create(final Path file, final int maxCounters, final EpochClock clock)
    {
        if (maxCounters < 1 || maxCounters > 1 << 16)
        {
            throw new IllegalArgumentException("maxCounters " + maxCounters + " for " + file + " is not in 1..65536");
        }
        final long length = CountersFileDescriptor.fileLength(maxCounters);
        try
        {
            final Path directory = file.toAbsolutePath().getParent();
            Files.createDirectories(directory);
            sweepDead(directory);
            Files.deleteIfExists(file);
            final MappedByteBuffer mapping;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE))
            {
                mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            }
            final CountersFile countersFile = new CountersFile(file, mapping, maxCounters);
            countersFile.header.putLong(PID_OFFSET, ProcessHandle.current().pid());
            countersFile.header.putLong(START_TIME_OFFSET, clock.time());
            countersFile.header.putIntRelease(VERSION_OFFSET, VERSION);
            return countersFile;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make the counters file " + file + " of " + length + " bytes: " +
                ex.getMessage(), ex);
        }
    }

    /** @return the counters file of that name (role and node) in the host's counters folder. */
    public static Path fileOf(final Path directory, final String name)
    {
        return directory.resolve(name + SUFFIX);
    }

    /** @return the folder below a host's shm directory where processes keep their counters files. */
    public static Path hostDirectory(final Path shmDirectory)
    {
        return shmDirectory.resolve(CountersFileDescriptor.HOST_FOLDER);
    }

    /** @return where the process allocates its counters; one thread allocates, any thread writes a counter. */
    public CountersManager manager()
    {
        return manager;
    }

    public Path file()
    {
        return file;
    }

    /** Mark the process stopped and delete the file. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        header.putIntRelease(CLOSED_OFFSET, 1);
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignored)
        {
            // marked closed: a reader says the process stopped, and the next start under the name replaces it
        }
    }

    /** Delete the counters files of processes killed before they could close: nobody counts there any more. */
    private static void sweepDead(final Path directory) throws IOException
    {
        HostFiles.sweepDead(directory, SUFFIX, HEADER_LENGTH, PID_OFFSET,
            (mapping, header) -> header.getIntVolatile(VERSION_OFFSET) == VERSION);
    }
}
