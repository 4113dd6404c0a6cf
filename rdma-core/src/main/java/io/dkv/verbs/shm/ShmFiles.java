package io.dkv.verbs.shm;

import io.dkv.verbs.VerbsException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Creating, mapping and removing the files shm devices are made of.
 */
final class ShmFiles
{
    static final long PAGE = 4096;

    private ShmFiles()
    {
    }

    static long pageAligned(final long length)
    {
        return (length + PAGE - 1) & ~(PAGE - 1);
    }

    /**
     * Create a zero-filled file and map it.
     */
    static MemorySegment create(final Path path, final long length, final Arena arena)
    {
        try (FileChannel channel = FileChannel.open(
            path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            channel.truncate(length);
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("cannot create shm file " + path + " of " + length + " bytes: " + ex, ex);
        }
    }

    /**
     * Give every page of a new region's file its memory now, as an RNIC's registration pins a
     * region's pages: otherwise the first request to reach each page pays for allocating and
     * zeroing it, and writes into fresh memory (a KV heap filling up) cost several times what
     * they do later.
     */
    static void populate(final MemorySegment mapping)
    {
        if (!NativeMapping.populate(mapping))
        {
            for (long offset = 0; offset < mapping.byteSize(); offset += PAGE)
            {
                mapping.set(ValueLayout.JAVA_BYTE, offset, (byte)0);
            }
        }
    }

    /**
     * Map an existing file whole.
     *
     * @return the mapping, or null when the file does not exist.
     */
    static MemorySegment map(final Path path, final Arena arena)
    {
        if (NativeMapping.isAvailable())
        {
            return NativeMapping.map(path, arena);
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        catch (final IOException ex)
        {
            throw new VerbsException("cannot map shm file " + path + ": " + ex, ex);
        }
    }

    static void delete(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ignore)
        {
            // a file that cannot be removed is left for the next device's sweep
        }
    }

    static void deleteTree(final Path dir)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(ShmFiles::delete);
        }
        catch (final IOException | RuntimeException ignore)
        {
            // best effort: the sweep at the next open retries
        }
    }
}
