package io.dkv.process;

import java.lang.reflect.InvocationTargetException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Ties a role's JVM to the JVM that launched it: started with {@link #PARENT_PID_PROPERTY}, {@link RoleProcess} runs
 * the role through this main, which watches the launcher and stops the role (an orderly exit: its shutdown hooks
 * run) once the launcher is gone, however it went. A launcher's own shutdown hook stops its roles on SIGTERM or
 * Ctrl-C, but nothing on Linux makes a JVM's children die with it on SIGKILL (or a crash, or the OOM killer), and
 * {@code ./dkv up}'s roles were left running then.
 * <p>
 * The launcher is known by its pid and its start time, so that a pid reused by another process is not taken for it.
 */
public final class ParentWatch
{
    /** The system property naming the launcher's pid; a role started with it is stopped when the launcher is gone. */
    public static final String PARENT_PID_PROPERTY = "dkv.parent.pid";
    /** How often the launcher is looked for. */
    static final long POLL_MS = 500;
    /** How long an orderly exit may take before the JVM halts: a role's shutdown must not keep it alive for ever. */
    static final long HALT_AFTER_MS = 30_000;

    private ParentWatch()
    {
    }

    /** @return the properties that tie a role started by this JVM to it ({@link RoleProcess#start}'s). */
    public static Map<String, String> thisJvm()
    {
        return Map.of(PARENT_PID_PROPERTY, Long.toString(ProcessHandle.current().pid()));
    }

    /**
     * @param arguments the role's main class, then its arguments.
     */
    public static void main(final String[] arguments) throws Throwable
    {
        final long parentPid = Long.parseLong(System.getProperty(PARENT_PID_PROPERTY));
        final Optional<ProcessHandle> parent = ProcessHandle.of(parentPid);
        final Instant started = parent.flatMap(handle -> handle.info().startInstant()).orElse(null);
        final Thread watch = new Thread(() -> watch(parentPid, started), "dkv-parent-watch");
        watch.setDaemon(true);
        watch.start();
        try
        {
            Class.forName(arguments[0]).getMethod("main", String[].class)
                .invoke(null, (Object)Arrays.copyOfRange(arguments, 1, arguments.length));
        }
        catch (final InvocationTargetException ex)
        {
            throw ex.getCause();
        }
    }

    private static void watch(final long parentPid, final Instant started)
    {
        while (isAlive(parentPid, started))
        {
            try
            {
                Thread.sleep(POLL_MS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
        System.err.println("dkv: the process that started this one (pid " + parentPid + ") is gone: stopping");
        final Thread halt = new Thread(() ->
        {
            try
            {
                Thread.sleep(HALT_AFTER_MS);
            }
            catch (final InterruptedException ignore)
            {
                // halting now is what was asked
            }
            System.err.println("dkv: no orderly stop within " + TimeUnit.MILLISECONDS.toSeconds(HALT_AFTER_MS) +
                " s of the launcher's end: halting");
            Runtime.getRuntime().halt(1);
        }, "dkv-parent-watch-halt");
        halt.setDaemon(true);
        halt.start();
        System.exit(1);
    }

    private static boolean isAlive(final long parentPid, final Instant started)
    {
        final Optional<ProcessHandle> parent = ProcessHandle.of(parentPid);
        if (parent.isEmpty() || !parent.get().isAlive())
        {
            return false;
        }
        final Instant now = parent.get().info().startInstant().orElse(null);
        return started == null || now == null || started.equals(now);
    }
}
