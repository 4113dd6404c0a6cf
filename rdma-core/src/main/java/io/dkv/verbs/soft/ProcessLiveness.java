package io.dkv.verbs.soft;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Whether a process exists, by {@code kill(pid, 0)}: no allocation, so it may run on a hot path.
 * Used wherever one process must notice another gone (shm peers, standalone drivers and clients).
 */
public final class ProcessLiveness
{
    private static final MethodHandle KILL;

    static
    {
        final Linker linker = Linker.nativeLinker();
        KILL = linker.defaultLookup().find("kill")
            .map(address ->
                linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)))
            .orElse(null);
    }

    private ProcessLiveness()
    {
    }

    public static boolean isAlive(final long pid)
    {
        if (KILL == null)
        {
            return ProcessHandle.of(pid).isPresent();
        }
        try
        {
            return (int)KILL.invokeExact((int)pid, 0) == 0;
        }
        catch (final Throwable ex)
        {
            return true;
        }
    }
}
