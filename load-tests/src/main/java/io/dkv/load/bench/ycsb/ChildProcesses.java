package io.dkv.load.bench.ycsb;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's own child processes (redis-server, the loops that keep cores awake): stopped when
 * their owner closes, or by a shutdown hook when the JVM exits first (Ctrl-C).
 */
public final class ChildProcesses
{
    private static final long STOP_TIMEOUT_MS = 5_000;

    private ChildProcesses()
    {
    }

    /** @return the hook that runs {@code stop} when the JVM exits, registered. */
    public static Thread stopOnExit(final Runnable stop, final String name)
    {
        final Thread hook = new Thread(stop, name);
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /** The owner closed: the hook is no longer needed. */
    public static void closed(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ex)
        {
            // the JVM is exiting: the hook runs (or ran) anyway
        }
    }

    /** Ask each process to end, and make it end if it has not within the timeout. */
    public static void stop(final List<Process> processes)
    {
        processes.forEach(Process::destroy);
        try
        {
            for (final Process process : processes)
            {
                if (!process.waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS))
                {
                    process.destroyForcibly().waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                }
            }
        }
        catch (final InterruptedException ex)
        {
            processes.forEach(Process::destroyForcibly);
            Thread.currentThread().interrupt();
        }
    }
}
