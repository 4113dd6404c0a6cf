package io.dkv.verbs.ibv;

import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * libibverbs, opened with {@code dlopen} and its functions bound with {@code dlvsym} at the symbol version the
 * binding was written for ({@link #VERSION}): the library also exports the 1.0 ABI's functions under the same names,
 * and a plain lookup would take whichever the loader calls default. Opened once per process; never closed (the
 * library keeps process-wide state, and providers' drivers stay loaded).
 */
public final class IbvLibrary
{
    /** The library's soname, from Debian's libibverbs1. */
    public static final String LIBRARY = "libibverbs.so.1";
    /** The symbol version of every function bound, but for the few added later (bound at their own). */
    public static final String VERSION = "IBVERBS_1.1";
    /** mlx5's direct-verbs library, from Debian's ibverbs-providers: the DC transport is reached through it. */
    public static final String MLX5 = "libmlx5.so.1";
    /** What to install where the library is missing. */
    static final String INSTALL = "install libibverbs1 and ibverbs-providers (apt-get install libibverbs1 " +
        "ibverbs-providers), and the RNIC's kernel driver";

    private static final int RTLD_NOW = 2;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle DLOPEN = libc("dlopen", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle DLVSYM =
        libc("dlvsym", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle DLERROR = libc("dlerror", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle STRERROR = libc("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private static volatile IbvLibrary loaded;
    private static volatile IbvLibrary loadedMlx5;

    private final String name;
    private final MemorySegment handle;

    private IbvLibrary(final String name, final MemorySegment handle)
    {
        this.name = name;
        this.handle = handle;
    }

    /**
     * @return libibverbs, opened at the first call.
     * @throws VerbsException saying what to install when it cannot be opened.
     */
    public static IbvLibrary load()
    {
        IbvLibrary library = loaded;
        if (library == null)
        {
            synchronized (IbvLibrary.class)
            {
                library = loaded;
                if (library == null)
                {
                    library = open(LIBRARY);
                    loaded = library;
                }
            }
        }
        return library;
    }

    /**
     * @return libmlx5, opened at the first call.
     * @throws VerbsException saying what to install when it cannot be opened.
     */
    public static IbvLibrary loadMlx5()
    {
        IbvLibrary library = loadedMlx5;
        if (library == null)
        {
            synchronized (IbvLibrary.class)
            {
                library = loadedMlx5;
                if (library == null)
                {
                    library = open(MLX5);
                    loadedMlx5 = library;
                }
            }
        }
        return library;
    }

    /**
     * @return the library of this soname, opened now.
     * @throws VerbsException naming it, the loader's error and what to install, when it cannot be opened.
     */
    static IbvLibrary open(final String soname)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment handle = (MemorySegment)DLOPEN.invokeExact(arena.allocateFrom(soname), RTLD_NOW);
            if (handle.equals(MemorySegment.NULL))
            {
                throw new VerbsException("cannot load " + soname + " (" + lastError() + "): " + INSTALL);
            }
            return new IbvLibrary(soname, handle);
        }
        catch (final VerbsException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new VerbsException("cannot load " + soname + ": " + ex, ex);
        }
    }

    /**
     * @return a downcall to the library's function {@code symbol} at {@link #VERSION}.
     * @throws VerbsException naming the symbol and version when the library does not export it.
     */
    public MethodHandle function(final String symbol, final FunctionDescriptor descriptor,
        final Linker.Option... options)
    {
        return function(symbol, VERSION, descriptor, options);
    }

    /**
     * @return a downcall to the library's function {@code symbol} at {@code version}.
     * @throws VerbsException naming the symbol and version when the library does not export it.
     */
    public MethodHandle function(final String symbol, final String version, final FunctionDescriptor descriptor,
        final Linker.Option... options)
    {
        return LINKER.downcallHandle(address(symbol, version), descriptor, options);
    }

    /**
     * A call through a function pointer: what {@code verbs.h}'s static inline functions do with the pointers of a
     * context's operations or of an extended queue pair.
     *
     * @return a downcall whose first argument is the function's address.
     */
    public static MethodHandle pointerCall(final FunctionDescriptor descriptor, final Linker.Option... options)
    {
        return LINKER.downcallHandle(descriptor, options);
    }

    /** @return the C library's text for an errno value. */
    public static String strerror(final int errno)
    {
        try
        {
            final MemorySegment text = (MemorySegment)STRERROR.invokeExact(errno);
            return text.reinterpret(256).getString(0);
        }
        catch (final Throwable ex)
        {
            return "errno " + errno;
        }
    }

    /**
     * @return the address of {@code symbol} at {@code version}.
     * @throws VerbsException naming both when the library does not export it.
     */
    public MemorySegment address(final String symbol, final String version)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment address =
                (MemorySegment)DLVSYM.invokeExact(handle, arena.allocateFrom(symbol), arena.allocateFrom(version));
            if (address.equals(MemorySegment.NULL))
            {
                throw new VerbsException(name + " does not export " + symbol + "@" + version + " (" + lastError() +
                    "): older than the rdma-core the binding is written for (Debian's 44 or later)");
            }
            return address;
        }
        catch (final VerbsException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new VerbsException("cannot look up " + symbol + "@" + version + " in " + name + ": " + ex, ex);
        }
    }

    /** @return the soname it was opened by. */
    public String name()
    {
        return name;
    }

    private static String lastError() throws Throwable
    {
        final MemorySegment error = (MemorySegment)DLERROR.invokeExact();
        return error.equals(MemorySegment.NULL) ? "no error given" : error.reinterpret(4096).getString(0);
    }

    private static MethodHandle libc(final String symbol, final FunctionDescriptor descriptor)
    {
        final SymbolLookup lookup = LINKER.defaultLookup();
        return LINKER.downcallHandle(lookup.find(symbol).orElseThrow(() ->
            new IllegalStateException("the C library exports no " + symbol)), descriptor);
    }
}
