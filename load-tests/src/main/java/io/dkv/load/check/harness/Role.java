package io.dkv.load.check.harness;

import io.dkv.clock.ClockControl;
import io.dkv.clock.Clocks;
import io.dkv.process.RoleProcess;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

/**
 * One role of the cluster under test (MetaServer, memory node, driver, client) as a process that
 * a nemesis may kill and restart or pause and resume; each incarnation logs to a file of its own.
 */
public final class Role
{
    private final String name;
    private final String heap;
    private final IntFunction<List<String>> arguments;
    private final Pattern readyLine;
    private final Path logDirectory;
    private final String logName;
    private final List<String> prefix;
    private Map<String, String> properties;
    /** Its processes' clocks, when a clock nemesis may skew them; else null (system clocks). */
    private ClockControl clock;
    private RoleProcess process;
    private int incarnation;
    private boolean paused;

    /**
     * @param arguments the {@code dkv} arguments of an incarnation (numbered from 0).
     * @param prefix    what runs the JVM on its host (empty: this one).
     */
    public Role(final String name, final String heap, final IntFunction<List<String>> arguments,
        final Pattern readyLine, final Path logDirectory, final String logName, final List<String> prefix)
    {
        this(name, heap, Map.of(), arguments, readyLine, logDirectory, logName, prefix);
    }

    /**
     * @param properties system properties of its JVM.
     */
    Role(final String name, final String heap, final Map<String, String> properties,
        final IntFunction<List<String>> arguments, final Pattern readyLine, final Path logDirectory,
        final String logName, final List<String> prefix)
    {
        this.prefix = List.copyOf(prefix);
        this.properties = Map.copyOf(properties);
        this.name = name;
        this.heap = heap;
        this.arguments = arguments;
        this.readyLine = readyLine;
        this.logDirectory = logDirectory;
        this.logName = logName;
    }

    public String name()
    {
        return name;
    }

    /**
     * Give its processes clocks that a nemesis can shift and skew: they read {@code clock}'s file, which the caller
     * owns (roles of one host share one, as processes of a host share its clock). Before its first start.
     *
     * @return this.
     */
    synchronized Role withClock(final ClockControl clock)
    {
        this.clock = clock;
        final Map<String, String> withClock = new HashMap<>(properties);
        withClock.put(Clocks.CONTROL_PROP_NAME, clock.path().toAbsolutePath().toString());
        properties = Map.copyOf(withClock);
        return this;
    }

    /** @return its processes' clock control, or null when their clocks are the system's. */
    public synchronized ClockControl clock()
    {
        return clock;
    }

    /** Start the next incarnation and wait until it says it is ready. */
    public synchronized Role start()
    {
        if (process != null && process.isAlive())
        {
            throw new IllegalStateException(name + " runs already (process " + process.pid() + ")");
        }
        // numbered before it starts: one that fails or is interrupted has had its arguments made (a client's history
        // file listed for the merge), and the next must not be given the same ones, or the merge reads a file twice
        final int starting = incarnation++;
        process = RoleProcess.start(name, heap, properties, arguments.apply(starting), readyLine,
            logDirectory.resolve(logName + (starting == 0 ? "" : "." + starting) + ".log"), prefix);
        paused = false;
        return this;
    }

    /** @return the group of the line that said it was ready, of the current incarnation. */
    public synchronized String readyGroup(final int group)
    {
        return process.readyGroup(group);
    }

    /** SIGKILL: gone at once, as in a crash. */
    public synchronized void kill()
    {
        if (process != null)
        {
            process.kill();
            paused = false;
        }
    }

    /** SIGSTOP: frozen, its connections open, as a long GC pause or an overloaded host would leave it. */
    public synchronized void pause()
    {
        if (process != null && process.isAlive() && !paused)
        {
            process.pause();
            paused = true;
        }
    }

    /** SIGCONT after {@link #pause()}. */
    public synchronized void resume()
    {
        if (process != null && paused)
        {
            process.resume();
            paused = false;
        }
    }

    public synchronized boolean isAlive()
    {
        return process != null && process.isAlive();
    }

    public synchronized long pid()
    {
        return process == null ? -1 : process.pid();
    }

    /** @return the log file of the current incarnation, or null before the first starts. */
    public synchronized Path log()
    {
        return process == null ? null : process.log();
    }

    /** Stop it the gentle way (SIGTERM after resuming it), waiting for it to exit. */
    public synchronized void stop()
    {
        if (process != null)
        {
            resume();
            process.close();
        }
    }

    public String toString()
    {
        return name;
    }
}
