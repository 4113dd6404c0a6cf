package io.dkv.verbs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM running a peer program for a test, driven by lines: the test writes a command to the
 * child's stdin and reads one reply line from its stdout, {@code ok [values]} or
 * {@code error <reason>}. The child's stderr is kept (and echoed) so that every failure can show
 * what the child said before it went wrong.
 */
public final class ChildProcess implements AutoCloseable
{
    /**
     * What every dkv JVM is started with (the root pom's {@code dkv.jvm.flags}), plus a small heap:
     * the children hold little on the heap and the machines running these tests may be small.
     */
    static final List<String> JVM_FLAGS = List.of(
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED",
        "-XX:+UseParallelGC",
        "-Xmx256m");

    static final Duration DEFAULT_REPLY_TIMEOUT = Duration.ofSeconds(20);

    private static final int STDERR_KEPT_CHARS = 32 * 1024;
    private static final Duration EXIT_GRACE = Duration.ofSeconds(5);

    /** Marks the end of the child's stdout in {@link #lines}; compared by identity. */
    private static final String END_OF_OUTPUT = new String("end of output");

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuilder stderr = new StringBuilder();
    private final Thread stdoutPump;
    private final Thread stderrPump;

    private ChildProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        this.stdin = process.outputWriter(StandardCharsets.UTF_8);
        this.stdoutPump = Thread.ofPlatform().daemon().name(name + "-stdout").start(this::pumpStdout);
        this.stderrPump = Thread.ofPlatform().daemon().name(name + "-stderr").start(this::pumpStderr);
    }

    /**
     * Start {@code mainClass} in a new JVM with the flags dkv needs and this JVM's class path.
     *
     * @param name         how messages refer to the child.
     * @param launchPrefix command words put before the java executable, e.g. {@code ip netns exec ns}.
     * @param mainClass    the program.
     * @param args         its arguments.
     * @return the running child.
     */
    public static ChildProcess start(final String name, final List<String> launchPrefix, final Class<?> mainClass,
        final String... args)
    {
        final List<String> command = new ArrayList<>(launchPrefix);
        command.add(javaExecutable());
        command.addAll(JVM_FLAGS);
        command.add("-cp");
        // under surefire this is a manifest-only jar whose Class-Path names every test and main class
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        try
        {
            return new ChildProcess(name, new ProcessBuilder(command).start());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + name + ": " + command, ex);
        }
    }

    static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    String name()
    {
        return name;
    }

    /**
     * Send a command and wait for its reply.
     *
     * @return the words after {@code ok}.
     * @throws AssertionError when the child answers {@code error}, exits or stays silent too long.
     */
    public String[] call(final String command)
    {
        return call(command, DEFAULT_REPLY_TIMEOUT);
    }

    public String[] call(final String command, final Duration timeout)
    {
        send(command);
        return awaitOk(command, timeout);
    }

    /**
     * Wait for the reply to a command sent earlier with {@link #send(String)}.
     *
     * @return the words after {@code ok}.
     */
    public String[] awaitOk(final String command, final Duration timeout)
    {
        final String reply = readLine(timeout);
        if (reply.equals("ok"))
        {
            return new String[0];
        }
        if (reply.startsWith("ok "))
        {
            return reply.substring(3).split(" ");
        }
        throw failure("'" + command + "' answered '" + reply + "'");
    }

    public void send(final String line)
    {
        try
        {
            stdin.write(line);
            stdin.write('\n');
            stdin.flush();
        }
        catch (final IOException ex)
        {
            throw failure("cannot send '" + line + "': " + ex);
        }
    }

    /**
     * @return the next line the child printed.
     * @throws AssertionError when none comes within {@code timeout} or the child closed its stdout.
     */
    public String readLine(final Duration timeout)
    {
        final String line;
        try
        {
            line = lines.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw failure("interrupted while waiting for a line");
        }
        if (line == null)
        {
            throw failure("printed nothing within " + timeout);
        }
        if (line == END_OF_OUTPUT)
        {
            lines.add(END_OF_OUTPUT);
            throw failure("closed its output");
        }
        return line;
    }

    /** @return the child's process id (of the JVM itself when started without a prefix). */
    public long pid()
    {
        return process.pid();
    }

    /**
     * @return an assertion error that names the child and carries what it printed on stderr.
     */
    public AssertionError failure(final String what)
    {
        return new AssertionError(name + " " + what + "; " + describe());
    }

    /**
     * @return the child's pid, exit status and what it printed on stderr so far.
     */
    public String describe()
    {
        final String status;
        if (process.isAlive())
        {
            status = "running";
        }
        else
        {
            // the pump may still be reading what the child wrote just before it exited
            joinQuietly(stderrPump, Duration.ofSeconds(1));
            status = "exited with " + process.exitValue();
        }
        final String text;
        synchronized (stderr)
        {
            text = stderr.toString();
        }
        return name + " (pid " + process.pid() + ", " + status + ") stderr:\n" + (text.isEmpty() ? "<empty>" : text);
    }

    /**
     * End the child: closing stdin asks it to release its resources and exit; one that does not
     * within a few seconds is killed, with anything it started.
     */
    public void close()
    {
        try
        {
            stdin.close();
        }
        catch (final IOException ignore)
        {
            // the child is gone already
        }
        try
        {
            if (!process.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS))
            {
                kill();
            }
        }
        catch (final InterruptedException ex)
        {
            kill();
            Thread.currentThread().interrupt();
        }
        joinQuietly(stdoutPump, Duration.ofSeconds(1));
        joinQuietly(stderrPump, Duration.ofSeconds(1));
    }

    /** Kill the child at once, and whatever it started. */
    public void kill()
    {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try
        {
            process.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void pumpStdout()
    {
        try (BufferedReader reader =
            new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                lines.add(line);
            }
        }
        catch (final IOException ignore)
        {
            // the stream closes when the child is killed
        }
        finally
        {
            lines.add(END_OF_OUTPUT);
        }
    }

    private void pumpStderr()
    {
        final InputStream in = process.getErrorStream();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                System.err.println("[" + name + "] " + line);
                synchronized (stderr)
                {
                    stderr.append(line).append('\n');
                    if (stderr.length() > STDERR_KEPT_CHARS)
                    {
                        stderr.delete(0, stderr.length() - STDERR_KEPT_CHARS);
                    }
                }
            }
        }
        catch (final IOException ignore)
        {
            // the stream closes when the child is killed
        }
    }

    private static void joinQuietly(final Thread thread, final Duration timeout)
    {
        try
        {
            thread.join(timeout);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
