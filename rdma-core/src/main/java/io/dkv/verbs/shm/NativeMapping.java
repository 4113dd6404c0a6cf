package io.dkv.verbs.shm;

import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Maps an existing shm file with four system calls (open, lseek, mmap, close) through libc. A peer
 * meets a new device by mapping its files, and on hosts where a system call costs microseconds
 * (virtual machines) FileChannel's extra calls and objects double what that costs. Unavailable
 * (no libc symbols) means {@link #isAvailable()} is false and callers map through FileChannel.
 */
final class NativeMapping
{
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;
    private static final int SEEK_END = 2;
    private static final int PROT_READ_WRITE = 1 | 2;
    private static final int MAP_SHARED = 1;
    private static final int ENOENT = 2;
    /** Linux 5.14: fault every page in writable, allocating what the file lacks. */
    private static final int MADV_POPULATE_WRITE = 23;

    private static final MethodHandle OPEN;
    private static final MethodHandle LSEEK;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle CLOSE;
    private static final MethodHandle MADVISE;
    private static final StructLayout CALL_STATE;
    private static final VarHandle ERRNO;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        CALL_STATE = Linker.Option.captureStateLayout();
        ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        MethodHandle open = null;
        MethodHandle lseek = null;
        MethodHandle mmap = null;
        MethodHandle munmap = null;
        MethodHandle close = null;
        MethodHandle madvise = null;
        if (libc.find("open").isPresent() && libc.find("mmap").isPresent())
        {
            open = linker.downcallHandle(libc.find("open").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2), errno);
            lseek = linker.downcallHandle(libc.find("lseek").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), errno);
            mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), errno);
            munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
            close = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        }
        if (libc.find("madvise").isPresent())
        {
            madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        }
        OPEN = open;
        LSEEK = lseek;
        MMAP = mmap;
        MUNMAP = munmap;
        CLOSE = close;
        MADVISE = madvise;
    }

    private NativeMapping()
    {
    }

    static boolean isAvailable()
    {
        return OPEN != null;
    }

    /**
     * @param arena unmaps the file when it closes (or, automatic, once the mapping is unreachable).
     * @return the whole file mapped shared, read and write; null when the file does not exist.
     */
    static MemorySegment map(final Path path, final Arena arena)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = call.allocate(CALL_STATE);
            final int fd = (int)OPEN.invokeExact(state, call.allocateFrom(path.toString()), O_RDWR | O_CLOEXEC, 0);
            if (fd < 0)
            {
                final int error = errno(state);
                if (error == ENOENT)
                {
                    return null;
                }
                throw new VerbsException("cannot open shm file " + path + ": errno " + error);
            }
            final long length;
            final MemorySegment address;
            try
            {
                length = (long)LSEEK.invokeExact(state, fd, 0L, SEEK_END);
                if (length < 0)
                {
                    throw new VerbsException("cannot size shm file " + path + ": errno " + errno(state));
                }
                if (length == 0)
                {
                    throw new VerbsException("shm file " + path + " is empty");
                }
                address = (MemorySegment)MMAP.invokeExact(state, MemorySegment.NULL, length, PROT_READ_WRITE, MAP_SHARED, fd, 0L);
                if (address.address() == -1L)
                {
                    throw new VerbsException("cannot map shm file " + path + " (" + length + " bytes): errno " + errno(state));
                }
            }
            finally
            {
                final int ignored = (int)CLOSE.invokeExact(fd);
            }
            return address.reinterpret(length, arena, mapping -> unmap(mapping.address(), length));
        }
        catch (final VerbsException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new VerbsException("cannot map shm file " + path + ": " + ex, ex);
        }
    }

    /**
     * Fault in every page of a mapping, writable, in one system call.
     *
     * @return false when the kernel or libc cannot (before Linux 5.14): the caller touches the pages itself.
     */
    static boolean populate(final MemorySegment mapping)
    {
        if (MADVISE == null)
        {
            return false;
        }
        try
        {
            return (int)MADVISE.invokeExact(mapping, mapping.byteSize(), MADV_POPULATE_WRITE) == 0;
        }
        catch (final Throwable ex)
        {
            return false;
        }
    }

    private static void unmap(final long address, final long length)
    {
        try
        {
            final int ignored = (int)MUNMAP.invokeExact(MemorySegment.ofAddress(address), length);
        }
        catch (final Throwable ex)
        {
            // the mapping stays until the process ends: nothing else can be done from a cleaner
        }
    }

    private static int errno(final MemorySegment state)
    {
        return (int)ERRNO.get(state, 0L);
    }
}
