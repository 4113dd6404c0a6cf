package io.dkv.agent;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Linux's futex, shared between processes, through {@code syscall(2)}: a thread sleeps on a 32-bit word of a mapping
 * until another thread, of any process mapping it, wakes it. Written by hand (the JDK parks a thread only by its
 * own process's means); where there is no futex (another kernel or architecture) a wait is a timed park, which is
 * what every wait was before.
 */
public final class Futex
{
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final MethodHandle SYSCALL;
    private static final long SYS_FUTEX;
    /** Each sleeping thread's {@code struct timespec}, made once per thread: a wait allocates nothing. */
    private static final ThreadLocal<MemorySegment> TIMESPEC =
        ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    static
    {
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        final boolean linux = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
        final boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        SYS_FUTEX = !linux ? -1 : x86 ? 202 : arch.equals("aarch64") ? 98 : -1;
        MethodHandle handle = null;
        if (SYS_FUTEX > 0)
        {
            final Linker linker = Linker.nativeLinker();
            handle = linker.defaultLookup().find("syscall")
                .map(address -> linker.downcallHandle(address, FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1)))
                .orElse(null);
        }
        SYSCALL = handle;
    }

    private Futex()
    {
    }

    /** @return whether waits sleep on the word (else they park for their timeout). */
    public static boolean available()
    {
        return SYSCALL != null;
    }

    /**
     * Sleep while the word at {@code address} holds {@code expected}, until woken or the timeout passes (or a signal
     * comes: callers look again at what they wait for, as after any wait).
     *
     * @param address   a 4-byte aligned address of memory mapped shared (a file or shared anonymous memory).
     * @param expected  the word's value that means "nothing yet".
     * @param timeoutNs the longest sleep.
     */
    public static void await(final long address, final int expected, final long timeoutNs)
    {
        if (SYSCALL == null)
        {
            LockSupport.parkNanos(timeoutNs);
            return;
        }
        final MemorySegment timespec = TIMESPEC.get();
        timespec.set(ValueLayout.JAVA_LONG, 0, timeoutNs / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, timeoutNs % 1_000_000_000L);
        try
        {
            final long ignored = (long)SYSCALL.invokeExact(SYS_FUTEX, address, (long)FUTEX_WAIT,
                (long)expected, timespec.address(), 0L, 0L);
        }
        catch (final Throwable ex)
        {
            // a failed call is an early return, which every caller is ready for
            LockSupport.parkNanos(timeoutNs);
        }
    }

    /** Wake every thread sleeping on the word at {@code address}. */
    public static void wakeAll(final long address)
    {
        if (SYSCALL == null)
        {
            return;
        }
        try
        {
            final long ignored = (long)SYSCALL.invokeExact(SYS_FUTEX, address, (long)FUTEX_WAKE,
                (long)Integer.MAX_VALUE, 0L, 0L, 0L);
        }
        catch (final Throwable ex)
        {
            // the sleeper wakes at its timeout instead
        }
    }
}
