package io.dkv.agent;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files a host's processes keep in a folder below its shm directory, one per process and named by its role and
 * node (error files, counters files): listed for a report, and swept once their process is dead.
 */
final class HostFiles
{
    /** What a dead process's file must hold, besides its pid, to be deleted: nothing worth reading. */
    interface Disposable
    {
        /**
         * @param mapping the whole file, mapped read-only.
         * @param header  its header.
         * @return whether nothing in it is worth keeping.
         */
        boolean test(MappedByteBuffer mapping, UnsafeBuffer header);
    }

    private HostFiles()
    {
    }

    /**
     * @return the files of the folder whose names start with {@code prefix} and end with {@code suffix}, in name
     * order; none when there is no folder.
     */
    static List<Path> list(final Path directory, final String prefix, final String suffix)
    {
        if (!Files.isDirectory(directory))
        {
            return List.of();
        }
        try (Stream<Path> listing = Files.list(directory))
        {
            return listing.filter(f -> f.getFileName().toString().startsWith(prefix) &&
                f.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list " + directory + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param file          a file of a live process or one that stopped.
     * @param kind          what the file is, as errors name it ({@code "an error file"}).
     * @param headerLength  bytes of its header.
     * @param versionOffset where in the header its layout's version is, written last.
     * @param version       the version this reader knows.
     * @param missing       what a missing file means, said after the file's name.
     * @return the whole file, mapped read-only: the buffers wrapping it keep it mapped.
     * @throws IllegalStateException when the file is missing, too short, or of another version.
     */
    static MappedByteBuffer mapForReading(final Path file, final String kind, final int headerLength,
        final int versionOffset, final int version, final String missing)
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            if (size < headerLength || new UnsafeBuffer(mapping, 0, headerLength).getIntVolatile(versionOffset) !=
                version)
            {
                throw new IllegalStateException(file + " (" + size + " bytes) is not " + kind + " of version " +
                    version + ": another dkv version's, or one still starting");
            }
            return mapping;
        }
        catch (final NoSuchFileException ex)
        {
            throw new IllegalStateException("no " + kind.substring(kind.indexOf(' ') + 1) + " " + file + ": " +
                missing);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** @return whether no live process has that id. */
    static boolean isDead(final long pid)
    {
        return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
    }

    /**
     * Delete the files, ending with {@code suffix}, of processes killed before they could close, that hold nothing
     * worth reading: with drawn node ids their names would pile up.
     *
     * @param headerLength bytes of a file's header, where its pid is.
     * @param pidOffset    where in the header the pid is.
     * @param disposable   what else a file must be to go.
     */
    static void sweepDead(final Path directory, final String suffix, final int headerLength, final int pidOffset,
        final Disposable disposable) throws IOException
    {
        for (final Path file : list(directory, "", suffix))
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
            {
                final long size = channel.size();
                if (size < headerLength)
                {
                    continue;
                }
                final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
                final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, headerLength);
                if (isDead(header.getLong(pidOffset)) && disposable.test(mapping, header))
                {
                    Files.deleteIfExists(file);
                }
            }
            catch (final NoSuchFileException ignored)
            {
                // another process swept it first
            }
        }
    }
}
