package io.dkv.compute.script;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The scripts and functions running on this node, for BUSY and KILL. Redis runs one script at a time and, once it has
 * run past busy-reply-threshold, answers other commands BUSY until it ends or SCRIPT KILL (FUNCTION KILL) stops it.
 * Here scripts run side by side, each its own transaction; while any has run past the threshold the node answers
 * BUSY as redis would, and a KILL stops every one of its kind past the threshold (the ones redis's KILL could reach).
 * Thread-safe.
 */
final class RunningScripts
{
    static final String SLOW_EVAL =
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    static final String SLOW_FUNCTION =
        "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
    static final String NOT_BUSY = "NOTBUSY No scripts in execution right now.";

    private final Set<ScriptRun> runs = ConcurrentHashMap.newKeySet();
    private final LongSupplier thresholdMs;

    /** @param thresholdMs busy-reply-threshold now, in ms; 0 or less: never busy. */
    RunningScripts(final LongSupplier thresholdMs)
    {
        this.thresholdMs = thresholdMs;
    }

    void add(final ScriptRun run)
    {
        runs.add(run);
    }

    void remove(final ScriptRun run)
    {
        runs.remove(run);
    }

    /** @return the run that has run longest past the threshold, or null when none has. */
    ScriptRun late()
    {
        if (runs.isEmpty())
        {
            return null;
        }
        final long threshold = thresholdMs.getAsLong();
        if (threshold <= 0)
        {
            return null;
        }
        final long now = System.nanoTime();
        ScriptRun late = null;
        for (final ScriptRun run : runs)
        {
            if (now - run.startedNanos() > TimeUnit.MILLISECONDS.toNanos(threshold) &&
                (late == null || run.startedNanos() < late.startedNanos()))
            {
                late = run;
            }
        }
        return late;
    }

    /** @return BUSY's error while a run is late, else null. */
    String busy()
    {
        final ScriptRun late = late();
        return late == null ? null : late.eval() ? SLOW_EVAL : SLOW_FUNCTION;
    }

    /**
     * SCRIPT KILL ({@code eval}) or FUNCTION KILL: stop the late runs of that kind.
     *
     * @return null when some were stopped (OK), else the error: none late, or only runs of the other kind.
     */
    String kill(final boolean eval)
    {
        final ScriptRun late = late();
        if (late == null)
        {
            return NOT_BUSY;
        }
        final long threshold = TimeUnit.MILLISECONDS.toNanos(thresholdMs.getAsLong());
        final long now = System.nanoTime();
        boolean killed = false;
        for (final ScriptRun run : runs)
        {
            if (run.eval() == eval && now - run.startedNanos() > threshold)
            {
                run.kill();
                killed = true;
            }
        }
        if (killed)
        {
            return null;
        }
        return eval ? SLOW_FUNCTION : SLOW_EVAL;
    }
}
