package io.dkv.verbs.ibv;

import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Page-aligned, zeroed memory for the regions the {@code verbs} provider allocates: anonymous private mappings
 * ({@code mmap}), of 2 MiB huge pages when asked, so a region never shares a page with the Java heap or another
 * region (an RNIC pins whole pages).
 */
final class AnonymousMemory
{
    static final long PAGE = 4096;
    static final long HUGE_PAGE = 2L * 1024 * 1024;

    private static final int PROT_READ_WRITE = 1 | 2;
    private static final int MAP_PRIVATE = 2;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_HUGETLB = 0x40000;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("mmap").orElseThrow(),
        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
        Linker.Option.captureCallState("errno"));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(
        LINKER.defaultLookup().find("munmap").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    /** MAP_FAILED. */
    private static final long FAILED = -1L;

    private AnonymousMemory()
    {
    }

    /** @return {@code size} rounded up to whole pages of the kind asked. */
    static long rounded(final long size, final boolean hugePages)
    {
        final long page = hugePages ? HUGE_PAGE : PAGE;
        return (size + page - 1) & -page;
    }

    /**
     * @param size      bytes, rounded up to whole pages.
     * @param hugePages whether to map 2 MiB huge pages.
     * @return the mapping: zeroed, page-aligned, {@link #rounded} bytes long.
     * @throws VerbsException with errno's text, and for huge pages how to reserve them.
     */
    static MemorySegment map(final long size, final boolean hugePages)
    {
        final long length = rounded(size, hugePages);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = IbvFunctions.callState(arena);
            final MemorySegment mapping = (MemorySegment)MMAP.invokeExact(state, MemorySegment.NULL, length,
                PROT_READ_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (hugePages ? MAP_HUGETLB : 0), -1, 0L);
            if (mapping.address() == FAILED)
            {
                final int errno = IbvFunctions.errno(state);
                throw new VerbsException("mmap of " + length + " bytes" + (hugePages ? " in huge pages" : "") +
                    " failed: " + IbvLibrary.strerror(errno) + " (errno " + errno + ")" + (hugePages ?
                    ": reserve 2 MiB pages first (sysctl vm.nr_hugepages=" + length / HUGE_PAGE + " or more), or " +
                    "set dkv.verbs.ibv.huge.pages=false" : ""));
            }
            return mapping.reinterpret(length);
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("mmap", ex);
        }
    }

    static void unmap(final MemorySegment mapping)
    {
        try
        {
            final int ignored = (int)MUNMAP.invokeExact(mapping, mapping.byteSize());
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("munmap", ex);
        }
    }
}
