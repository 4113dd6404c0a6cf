package io.dkv.verbs.ibv;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * How much memory this process may lock (RLIMIT_MEMLOCK), and whether it may lock any amount (CAP_IPC_LOCK): an RNIC
 * pins every registered region, and the kernel refuses a registration beyond the limit. The {@code verbs} provider
 * refuses to open below a minimum rather than fail a registration mid-run, and says how to raise it.
 *
 * @param soft         the limit in force, in bytes; {@link #UNLIMITED} for none.
 * @param hard         the most it may be raised to without privilege.
 * @param capIpcLock   whether the process may lock memory beyond the limit.
 */
public record MemlockLimit(long soft, long hard, boolean capIpcLock)
{
    /** RLIM_INFINITY, read as a signed long. */
    public static final long UNLIMITED = -1L;

    private static final int RLIMIT_MEMLOCK = 8;
    private static final int CAP_IPC_LOCK = 14;

    /** @return this process's limit and capability, now. */
    public static MemlockLimit current()
    {
        final Linker linker = Linker.nativeLinker();
        final MethodHandle getrlimit = linker.downcallHandle(linker.defaultLookup().find("getrlimit").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment limit = arena.allocate(16, 8);
            final int result = (int)getrlimit.invokeExact(RLIMIT_MEMLOCK, limit);
            final long soft = result == 0 ? limit.get(JAVA_LONG, 0) : UNLIMITED;
            final long hard = result == 0 ? limit.get(JAVA_LONG, 8) : UNLIMITED;
            return new MemlockLimit(soft, hard, hasCapability(CAP_IPC_LOCK));
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("getrlimit(RLIMIT_MEMLOCK) threw " + ex, ex);
        }
    }

    /**
     * @param minimum bytes the process must be able to lock.
     * @return null when it can, else the limit, the minimum and how to raise the limit.
     */
    public String shortfall(final long minimum)
    {
        if (capIpcLock || soft == UNLIMITED || Long.compareUnsigned(soft, minimum) >= 0)
        {
            return null;
        }
        return "this process may lock " + soft + " bytes of memory (RLIMIT_MEMLOCK; ulimit -l says " + soft / 1024 +
            "), below the " + minimum + " bytes the verbs provider needs (dkv.verbs.ibv.min.memlock): an RNIC pins " +
            "every registered region. Raise it in the shell that starts dkv with 'ulimit -l unlimited'" +
            (hard == UNLIMITED ? "" : " (the hard limit is " + hard + " bytes: raise that with 'memlock unlimited' " +
                "lines in /etc/security/limits.conf, or LimitMEMLOCK=infinity in a systemd unit)") +
            ", or give the java binary CAP_IPC_LOCK";
    }

    /** @return what a refused registration adds: the limit in force and how to raise it. */
    public String describe()
    {
        return "RLIMIT_MEMLOCK " + (soft == UNLIMITED ? "unlimited" : soft + " bytes (ulimit -l " + soft / 1024 + ")") +
            (capIpcLock ? ", CAP_IPC_LOCK held" : ", no CAP_IPC_LOCK: raise it with 'ulimit -l unlimited'");
    }

    private static boolean hasCapability(final int capability)
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("CapEff:"))
                {
                    final long effective = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                    return (effective & (1L << capability)) != 0;
                }
            }
        }
        catch (final IOException | NumberFormatException ex)
        {
            return false;
        }
        return false;
    }
}
