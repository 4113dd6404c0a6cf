package io.dkv.agent;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.ErrorLogReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

import static io.dkv.agent.ErrorFileDescriptor.CLOSED_OFFSET;
import static io.dkv.agent.ErrorFileDescriptor.HEADER_LENGTH;
import static io.dkv.agent.ErrorFileDescriptor.LOG_LENGTH_OFFSET;
import static io.dkv.agent.ErrorFileDescriptor.PID_OFFSET;
import static io.dkv.agent.ErrorFileDescriptor.START_TIME_OFFSET;
import static io.dkv.agent.ErrorFileDescriptor.SUFFIX;
import static io.dkv.agent.ErrorFileDescriptor.VERSION;
import static io.dkv.agent.ErrorFileDescriptor.VERSION_OFFSET;

/**
 * An agent's {@link ErrorLog} in a file of its own ({@link ErrorFileDescriptor}), for a process with no cnc file to
 * keep it in (a memory node, a MetaServer): another process reads it while the agent runs, and after it stopped when
 * it had recorded errors. A clean close with no error recorded deletes the file.
 *
 * <p>The mapping is a {@link MappedByteBuffer}, which the buffers wrapping it keep mapped for as long as anything
 * holds them: an error recorded or read after {@link #close()} lands in memory that is still there.
 */
public final class ErrorFile implements AutoCloseable
{
    private final Path file;
    private final UnsafeBuffer header;
    private final ErrorLog log;
    private boolean closed;

    private ErrorFile(final Path file, final MappedByteBuffer mapping, final int logLength, final EpochClock clock)
    {
        this.file = file;
        this.header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        this.log = new ErrorLog(new UnsafeBuffer(mapping, HEADER_LENGTH, logLength), clock);
    }

    /**
     * @param directory where the host's agents keep error files ({@link #hostDirectory(Path)}); made when missing.
     * @param name      the role and node, unique on the host (for example {@code memory-node-101}).
     * @param logLength bytes of the log, a multiple of 64.
     * @param clock     the clock errors are stamped with.
     * @return the file, a fresh log in it: a previous agent's file of that name is replaced.
     */
    public static ErrorFile create(final Path directory, final String name, final int logLength, final EpochClock clock)
    {
        if (logLength <= 0 || (logLength & 63) != 0)
        {
            throw new IllegalArgumentException("error log length " + logLength + " is not a positive multiple of 64");
        }
        final Path file = fileOf(directory, name);
        try
        {
            Files.createDirectories(directory);
            sweepDead(directory);
            Files.deleteIfExists(file);
            final MappedByteBuffer mapping;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE))
            {
                mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, HEADER_LENGTH + logLength);
            }
            final ErrorFile errorFile = new ErrorFile(file, mapping, logLength, clock);
            errorFile.header.putInt(LOG_LENGTH_OFFSET, logLength);
            errorFile.header.putLong(PID_OFFSET, ProcessHandle.current().pid());
            errorFile.header.putLong(START_TIME_OFFSET, clock.time());
            errorFile.header.putIntOrdered(VERSION_OFFSET, VERSION);
            return errorFile;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make the error file " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** @return the error file of that name (role and node) in that folder. */
    public static Path fileOf(final Path directory, final String name)
    {
        return directory.resolve(name + SUFFIX);
    }

    /** @return the folder below a host's shm directory where its agents keep their error files. */
    public static Path hostDirectory(final Path shmDirectory)
    {
        return shmDirectory.resolve(ErrorFileDescriptor.HOST_FOLDER);
    }

    public ErrorLog errorLog()
    {
        return log;
    }

    public Path file()
    {
        return file;
    }

    /** Mark the agent stopped; delete the file when it recorded no error, else keep it for {@link #report}. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        header.putIntOrdered(CLOSED_OFFSET, 1);
        if (log.errors() == 0)
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ignored)
            {
                // a file left behind is only read by --errors, which says no error was recorded
            }
        }
    }

    /**
     * Delete the files of agents killed before they could close that recorded no error: nothing in them to read, and
     * with drawn node ids their names would pile up.
     */
    private static void sweepDead(final Path directory) throws IOException
    {
        HostFiles.sweepDead(directory, SUFFIX, HEADER_LENGTH, PID_OFFSET, (mapping, header) ->
        {
            final int logLength = header.getInt(LOG_LENGTH_OFFSET);
            return header.getIntVolatile(VERSION_OFFSET) == VERSION &&
                HEADER_LENGTH + (long)logLength <= mapping.capacity() &&
                !ErrorLogReader.hasErrors(new UnsafeBuffer(mapping, HEADER_LENGTH, logLength));
        });
    }

    /**
     * @param file an error file, of a live agent or a stopped one.
     * @return who it belongs to (name, pid, running or stopped, since when) and each distinct error it holds.
     * @throws IllegalStateException when the file is missing or not an error file of this version.
     */
    public static String report(final Path file)
    {
        final String name = file.getFileName().toString();
        final MappedByteBuffer mapping = HostFiles.mapForReading(file, "an error file", HEADER_LENGTH, VERSION_OFFSET,
            VERSION, "no such agent runs on this host, nor left errors");
        final long size = mapping.capacity();
        final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        final int logLength = header.getInt(LOG_LENGTH_OFFSET);
        if (HEADER_LENGTH + (long)logLength > size)
        {
            throw new IllegalStateException(file + " names an error log of " + logLength + " bytes beyond its " +
                size + " bytes");
        }
        final long pid = header.getLong(PID_OFFSET);
        final boolean stopped = header.getIntVolatile(CLOSED_OFFSET) != 0 || HostFiles.isDead(pid);
        final String errors = ErrorLog.read(new UnsafeBuffer(mapping, HEADER_LENGTH, logLength), 0);
        return name.substring(0, name.length() - SUFFIX.length()) + " (pid " + pid + ", " +
            (stopped ? "stopped" : "running") + ", started " + Instant.ofEpochMilli(header.getLong(
            START_TIME_OFFSET)) + "):" + (errors.isEmpty() ? " no errors recorded\n" : "\n" + errors);
    }

    /**
     * @param directory the host's error files ({@link #hostDirectory(Path)}).
     * @param prefix    the start of the names to report (a role, as {@code memory-node-}); all of them when empty.
     * @return the report of each such file, in name order, or a line saying there is none.
     */
    public static String reportAll(final Path directory, final String prefix)
    {
        final List<Path> files = HostFiles.list(directory, prefix, SUFFIX);
        if (files.isEmpty())
        {
            return "no " + (prefix.isEmpty() ? "" : prefix + "* ") + "error files in " + directory +
                ": none runs on this host, nor left errors\n";
        }
        final StringBuilder text = new StringBuilder();
        for (final Path file : files)
        {
            text.append(report(file));
        }
        return text.toString();
    }
}
