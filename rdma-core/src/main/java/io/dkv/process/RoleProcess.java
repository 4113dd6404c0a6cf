package io.dkv.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A dkv role ({@code dkv driver}, {@code dkv meta}, {@code dkv memory-node}, ...) in a JVM of its own,
 * started with this JVM's class path and the flags dkv needs. Its output goes to a log file, whose
 * end every error about it shows; it is stopped with this JVM (Ctrl-C included), by a shutdown hook, and, when
 * started with {@link ParentWatch#thisJvm()}'s properties, by itself once this JVM is gone however it went
 * (SIGKILL included).
 * <p>
 * Each role runs from its own main ({@link RoleMains}, as Aeron's {@code MediaDriver} does), not through
 * {@code ./dkv}'s top-level command: that lives in the {@code cli} module, which depends on every role's, and its
 * picocli model of every command would add to each start.
 * <p>
 * {@link #start} waits until the role says it is ready, for {@code ./dkv up}, the harness and the benchmarks;
 * {@link #launch} returns at once and {@link #pollReady} looks, for the autoscaler's duty cycle, which never waits.
 */
public final class RoleProcess implements AutoCloseable
{
    /** How long a role may take to say it is ready: a JVM's start on 2 cores loaded 40 deep once took over 30 s. */
    public static final long START_TIMEOUT_MS = 90_000;
    public static final long EXIT_TIMEOUT_MS = 10_000;
    private static final int LOG_TAIL_CHARS = 4096;

    private final String name;
    private final Process process;
    private final Path log;
    private final Thread stopOnExit;
    private Matcher ready;

    private RoleProcess(final String name, final Process process, final Path log, final Thread stopOnExit)
    {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stopOnExit = stopOnExit;
    }

    /**
     * Start {@code dkv <arguments>} and wait until its output matches {@code readyLine}: the role that
     * {@code arguments} begin with, run by its own main ({@link RoleMains#mainClass(String)}).
     *
     * @param name       what to call it in messages.
     * @param heap       its -Xmx value, e.g. "512m".
     * @param properties system properties for the child.
     * @param log        where its stdout and stderr go.
     * @throws IllegalStateException when it exits or stays silent before it is ready, with its log's end.
     */
    public static RoleProcess start(
        final String name,
        final String heap,
        final Map<String, String> properties,
        final List<String> arguments,
        final Pattern readyLine,
        final Path log)
    {
        return start(name, heap, properties, arguments, readyLine, log, List.of());
    }

    /**
     * As {@link #start(String, String, Map, List, Pattern, Path)}, the JVM started through a prefix that
     * execs it (e.g. {@code ip netns exec <namespace>}, to run it on a test host), so it keeps the pid.
     */
    public static RoleProcess start(
        final String name,
        final String heap,
        final Map<String, String> properties,
        final List<String> arguments,
        final Pattern readyLine,
        final Path log,
        final List<String> prefix)
    {
        return start(name, heap, properties, RoleMains.mainClass(arguments.getFirst()),
            arguments.subList(1, arguments.size()), readyLine, log, prefix);
    }

    /**
     * As {@link #start(String, String, Map, List, Pattern, Path, List)}, for a main that is not a role's own,
     * e.g. {@code ./dkv}'s top-level command running {@code dkv up}.
     *
     * @param mainClass the class whose main the JVM runs.
     * @param arguments that main's arguments.
     */
    public static RoleProcess start(
        final String name,
        final String heap,
        final Map<String, String> properties,
        final String mainClass,
        final List<String> arguments,
        final Pattern readyLine,
        final Path log,
        final List<String> prefix)
    {
        final List<String> jvmOptions = new ArrayList<>();
        properties.forEach((key, value) -> jvmOptions.add("-D" + key + "=" + value));
        final RoleProcess process = launch(name, heap, jvmOptions, mainClass, arguments, log, prefix);
        try
        {
            process.ready = process.awaitReady(readyLine);
            return process;
        }
        catch (final RuntimeException ex)
        {
            process.kill();
            throw ex;
        }
    }

    /**
     * Start {@code mainClass} in a JVM of its own and return at once; {@link #pollReady(Pattern)} says when it is.
     * A compute node starts with the AOT cache its first run trained ({@link ChildJvm#computeNodeAotCache()}), as
     * {@code ./dkv compute-node} does, for a join without class loading.
     *
     * @param name       what to call it in messages.
     * @param heap       its -Xmx value, e.g. "512m".
     * @param jvmOptions options for its JVM after dkv's own, e.g. {@code -Dname=value}.
     * @param mainClass  the class whose main the JVM runs, e.g. {@link RoleMains#COMPUTE_NODE}.
     * @param arguments  that main's arguments.
     * @param log        where its stdout and stderr go.
     * @param prefix     a command that execs the JVM in its place (e.g. {@code ip netns exec HOST}), or empty.
     */
    public static RoleProcess launch(
        final String name,
        final String heap,
        final List<String> jvmOptions,
        final String mainClass,
        final List<String> arguments,
        final Path log,
        final List<String> prefix)
    {
        final List<String> command = new ArrayList<>(prefix);
        command.addAll(ChildJvm.java());
        if (RoleMains.COMPUTE_NODE.equals(mainClass))
        {
            command.addAll(ChildJvm.computeNodeAotCache());
        }
        command.add("-Xmx" + heap);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        if (jvmOptions.stream().anyMatch(option -> option.startsWith("-D" + ParentWatch.PARENT_PID_PROPERTY + "=")))
        {
            // tied to its launcher: the role runs under a watch that stops it once the launcher is gone
            command.add(ParentWatch.class.getName());
        }
        command.add(mainClass);
        command.addAll(arguments);
        final Process process;
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + name + " (" + command.getFirst() + "): " +
                ex.getMessage(), ex);
        }
        final Thread stopOnExit = new Thread(process::destroy, "dkv-stop-" + name);
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        return new RoleProcess(name, process, log, stopOnExit);
    }

    /**
     * Look once, without waiting, whether it said it is ready.
     *
     * @return the match of {@code readyLine} in its output (its groups then answer {@link #readyGroup(int)}), or null
     * while it has not printed one.
     */
    public Matcher pollReady(final Pattern readyLine)
    {
        if (ready == null)
        {
            final Matcher matcher = readyLine.matcher(read(log));
            if (matcher.find())
            {
                ready = matcher;
            }
        }
        return ready;
    }

    private Matcher awaitReady(final Pattern readyLine)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (true)
        {
            final Matcher matcher = pollReady(readyLine);
            if (matcher != null)
            {
                return matcher;
            }
            if (!process.isAlive())
            {
                throw new IllegalStateException(name + " exited with " + process.exitValue() +
                    " before it was ready:\n" + tail(log));
            }
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException(name + " was not ready within " + START_TIMEOUT_MS + " ms:\n" +
                    tail(log));
            }
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting " + name, ex);
            }
        }
    }

    private static void removeHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the hook runs anyway
        }
    }

    private static String read(final Path log)
    {
        try
        {
            return Files.readString(log, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return "";
        }
    }

    private static String tail(final Path log)
    {
        final String text = read(log);
        return text.length() <= LOG_TAIL_CHARS ? text : "..." + text.substring(text.length() - LOG_TAIL_CHARS);
    }

    /** @return group {@code group} of the line that said it was ready. */
    public String readyGroup(final int group)
    {
        if (ready == null)
        {
            throw new IllegalStateException(name + " has not said it is ready");
        }
        return ready.group(group);
    }

    /** @return the end of what it wrote, for an error about it. */
    public String logTail()
    {
        return tail(log);
    }

    public Path log()
    {
        return log;
    }

    public String name()
    {
        return name;
    }

    public long pid()
    {
        return process.pid();
    }

    /** @return whether it runs; once it does not, it is no longer stopped on this JVM's exit. */
    public boolean isAlive()
    {
        final boolean alive = process.isAlive();
        if (!alive)
        {
            removeHook(stopOnExit);
        }
        return alive;
    }

    /** @return its exit status once it exited; -1 while it runs. */
    public int exitStatus()
    {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /**
     * Freeze it with SIGSTOP, as a long pause would: its sockets and memory stay, nothing of it runs
     * after this returns (kill returns before every thread has stopped, so this waits until they have).
     */
    public void pause()
    {
        signal("STOP");
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXIT_TIMEOUT_MS);
        while (!allThreadsStopped())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException(name + " (process " + process.pid() + ") did not stop within " +
                    EXIT_TIMEOUT_MS +
                    " ms of SIGSTOP");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** Let it run again with SIGCONT after {@link #pause()}. */
    public void resume()
    {
        signal("CONT");
    }

    private boolean allThreadsStopped()
    {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(process.pid()), "task")))
        {
            for (final Path task : (Iterable<Path>)tasks::iterator)
            {
                final String stat = Files.readString(task.resolve("stat"));
                // the state follows the command name, which is in parentheses and may hold spaces
                final char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'T' && state != 't')
                {
                    return false;
                }
            }
            return true;
        }
        catch (final IOException ex)
        {
            // gone (it cannot run then either) or a thread ended while listed: look again unless gone
            return !process.isAlive();
        }
    }

    /**
     * Send it {@code SIGSIGNAL} (e.g. {@code STOP}, {@code CONT}) and return at once, its threads perhaps still
     * running; it may have exited already.
     */
    public void signal(final String signal)
    {
        try
        {
            final int exit =
                new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
            if (exit != 0 && process.isAlive())
            {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " (" + name +
                    ") exited with " + exit);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot signal " + name + ": " + ex.getMessage(), ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, ex);
        }
    }

    /** Ask it to stop with SIGTERM (as Ctrl-C: a compute node drains) and return at once. */
    public void terminate()
    {
        process.destroy();
    }

    /** Kill it with SIGKILL and return at once, before it is reaped. */
    public void terminateForcibly()
    {
        removeHook(stopOnExit);
        process.destroyForcibly();
    }

    /** Kill it with SIGKILL, as a crash would: nothing of it runs after this returns. */
    public void kill()
    {
        removeHook(stopOnExit);
        process.destroyForcibly();
        try
        {
            process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Close processes in the reverse of the order they were started: the last started may depend on the first. */
    public static void closeAll(final List<RoleProcess> started)
    {
        final List<RoleProcess> reversed = new ArrayList<>(started);
        Collections.reverse(reversed);
        reversed.forEach(RoleProcess::close);
    }

    /** Stop it as Ctrl-C does (it closes cleanly), killing it when it does not exit in time. */
    public void close()
    {
        stop(EXIT_TIMEOUT_MS);
    }

    /**
     * Stop it with SIGTERM, as {@link #close()} does, and say how it ended.
     *
     * @param timeoutMs how long it may take to exit before it is killed.
     * @return its exit status: 0 for a clean stop, 137 when it had to be killed, -1 when not even that ended it.
     */
    public int stop(final long timeoutMs)
    {
        removeHook(stopOnExit);
        process.destroy();
        try
        {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly().waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        return process.isAlive() ? -1 : process.exitValue();
    }
}
