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
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Maps an existing shm file with four system calls (open, lseek, mmap, close) through libc. A peer
 * meets a new device by mapping its files, and on hosts where a system call costs microseconds
 * (virtual machines) FileChannel's extra calls and objects double what that costs.
 *
 * <p>The downcall handles are linked on a thread of their own ({@link #prepare()}, at a process's first
 * device): the JVM generates their classes at run time, which an AOT cache cannot hold, and on 2 cores that
 * took 170-180 ms of a compute node's join when done on the thread that starts the node. Until they are
 * ready, or where libc lacks the symbols, {@link #isAvailable()} is false and callers map through FileChannel.
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

    private static final AtomicBoolean PREPARING = new AtomicBoolean();
    private static volatile Handles handles;

    /** The linked calls; a field is null where libc lacks the symbol. */
    private record Handles(
        MethodHandle open,
        MethodHandle lseek,
        MethodHandle mmap,
        MethodHandle munmap,
        MethodHandle close,
        MethodHandle madvise,
        StructLayout callState,
        VarHandle errno)
    {
        static Handles link()
        {
            final Linker linker = Linker.nativeLinker();
            final SymbolLookup libc = linker.defaultLookup();
            final Linker.Option errno = Linker.Option.captureCallState("errno");
            final StructLayout callState = Linker.Option.captureStateLayout();
            MethodHandle open = null;
            MethodHandle lseek = null;
            MethodHandle mmap = null;
            MethodHandle munmap = null;
            MethodHandle close = null;
            MethodHandle madvise = null;
            if (libc.find("open").isPresent() && libc.find("mmap").isPresent())
            {
                open = linker.downcallHandle(libc.find("open").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
                    errno);
                lseek = linker.downcallHandle(libc.find("lseek").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), errno);
                mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(),
                    FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), errno);
                munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
                close = linker.downcallHandle(libc.find("close").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            }
            if (libc.find("madvise").isPresent())
            {
                madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
            }
            return new Handles(open, lseek, mmap, munmap, close, madvise, callState,
                callState.varHandle(MemoryLayout.PathElement.groupElement("errno")));
        }
    }

    private NativeMapping()
    {
    }

    /**
     * Link the calls on a daemon thread of their own, once per process; later calls return at once.
     */
    static void prepare()
    {
        if (PREPARING.compareAndSet(false, true))
        {
            Thread.ofPlatform().daemon().name("dkv-shm-native-mapping").start(NativeMapping::link);
        }
    }

    /** Link the calls on this thread (for tests and for callers that want them now). */
    static void link()
    {
        try
        {
            handles = Handles.link();
        }
        catch (final RuntimeException | LinkageError ex)
        {
            // no native access (--enable-native-access not given) or no libc: FileChannel maps instead
            handles = new Handles(null, null, null, null, null, null, null, null);
        }
    }

    /** @return whether {@link #map} can be called: linked, and libc has the calls. */
    static boolean isAvailable()
    {
        final Handles linked = handles;
        return linked != null && linked.open() != null;
    }

    /**
     * @param arena unmaps the file when it closes (or, automatic, once the mapping is unreachable).
     * @return the whole file mapped shared, read and write; null when the file does not exist.
     */
    static MemorySegment map(final Path path, final Arena arena)
    {
        final Handles linked = handles;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = call.allocate(linked.callState());
            final int fd =
                (int)linked.open().invokeExact(state, call.allocateFrom(path.toString()), O_RDWR | O_CLOEXEC, 0);
            if (fd < 0)
            {
                final int error = errno(linked, state);
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
                length = (long)linked.lseek().invokeExact(state, fd, 0L, SEEK_END);
                if (length < 0)
                {
                    throw new VerbsException("cannot size shm file " + path + ": errno " + errno(linked, state));
                }
                if (length == 0)
                {
                    throw new VerbsException("shm file " + path + " is empty");
                }
                address = (MemorySegment)linked.mmap()
                    .invokeExact(state, MemorySegment.NULL, length, PROT_READ_WRITE, MAP_SHARED, fd, 0L);
                if (address.address() == -1L)
                {
                    throw new VerbsException("cannot map shm file " + path + " (" + length + " bytes): errno " +
                        errno(linked, state));
                }
            }
            finally
            {
                final int ignored = (int)linked.close().invokeExact(fd);
            }
            return address.reinterpret(length, arena, mapping -> unmap(linked, mapping.address(), length));
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
        final Handles linked = handles;
        if (linked == null || linked.madvise() == null)
        {
            return false;
        }
        try
        {
            return (int)linked.madvise().invokeExact(mapping, mapping.byteSize(), MADV_POPULATE_WRITE) == 0;
        }
        catch (final Throwable ex)
        {
            return false;
        }
    }

    private static void unmap(final Handles linked, final long address, final long length)
    {
        try
        {
            final int ignored = (int)linked.munmap().invokeExact(MemorySegment.ofAddress(address), length);
        }
        catch (final Throwable ex)
        {
            // the mapping stays until the process ends: nothing else can be done from a cleaner
        }
    }

    private static int errno(final Handles linked, final MemorySegment state)
    {
        return (int)linked.errno().get(state, 0L);
    }
}
