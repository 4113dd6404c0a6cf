package io.dkv.load.bench.compute;

import io.dkv.load.bench.ycsb.ChildProcesses;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server process timed from its exec to the line that says it is ready, read from its output as it is written (a
 * pipe, not a file polled); stopped with SIGTERM when closed, or when this JVM exits.
 */
final class TimedStart implements AutoCloseable
{
    static final long START_TIMEOUT_MS = 30_000;

    private final Process process;
    private final Thread stopOnExit;
    private final long execNs;
    private final long readyNs;
    private final Matcher ready;
    private final StringBuffer output;
    private final Thread drainer;

    private TimedStart(
        final Process process, final Thread stopOnExit, final long execNs, final long readyNs, final Matcher ready,
        final StringBuffer output,
        final Thread drainer)
    {
        this.drainer = drainer;
        this.process = process;
        this.stopOnExit = stopOnExit;
        this.execNs = execNs;
        this.readyNs = readyNs;
        this.ready = ready;
        this.output = output;
    }

    /**
     * @param command   what to exec; stderr goes with stdout.
     * @param readyLine what the line that says it is ready matches.
     * @throws IllegalStateException when it exits, or stays silent {@link #START_TIMEOUT_MS}, before it is ready, with
     *                               what it wrote.
     */
    static TimedStart start(final List<String> command, final Pattern readyLine) throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        final long execNs = System.nanoTime();
        final Process process = builder.start();
        final Thread stopOnExit = ChildProcesses.stopOnExit(process::destroy, "timed-start-stop");
        // a process that hangs before its ready line would block the read below for ever: killing it ends the read
        final Thread watchdog = Thread.ofVirtual().start(() ->
        {
            try
            {
                if (!process.waitFor(START_TIMEOUT_MS, TimeUnit.MILLISECONDS))
                {
                    process.destroyForcibly();
                }
            }
            catch (final InterruptedException ex)
            {
                // ready in time
            }
        });
        final StringBuffer text = new StringBuffer();
        try
        {
            final BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null)
            {
                text.append(line).append('\n');
                final Matcher matcher = readyLine.matcher(line);
                if (matcher.find())
                {
                    final long readyNs = System.nanoTime();
                    watchdog.interrupt();
                    return new TimedStart(process, stopOnExit, execNs, readyNs, matcher, text, drain(reader, text));
                }
            }
            throw new IllegalStateException(String.join(" ", command) + " ended its output (exit " + exit(process) +
                ") before a line matching " + readyLine + ":\n" + text);
        }
        catch (final IOException | RuntimeException ex)
        {
            watchdog.interrupt();
            ChildProcesses.stop(List.of(process));
            ChildProcesses.closed(stopOnExit);
            throw ex;
        }
    }

    /** Keep reading what it writes, so that it never blocks on a full pipe (a JVM writing an AOT cache is chatty). */
    private static Thread drain(final BufferedReader reader, final StringBuffer text)
    {
        return Thread.ofVirtual().start(() ->
        {
            try
            {
                String line;
                while ((line = reader.readLine()) != null)
                {
                    text.append(line).append('\n');
                }
            }
            catch (final IOException ex)
            {
                // closed with the process
            }
        });
    }

    private static String exit(final Process process)
    {
        try
        {
            return process.waitFor(1, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "none yet";
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** @return System.nanoTime just before the exec. */
    long execNs()
    {
        return execNs;
    }

    /** @return System.nanoTime once the ready line was read. */
    long readyNs()
    {
        return readyNs;
    }

    /** @return the ready line's match, for its groups. */
    Matcher ready()
    {
        return ready;
    }

    /** @return what it has written so far, its ready line included. */
    String output()
    {
        return output.toString();
    }

    public void close()
    {
        ChildProcesses.stop(List.of(process));
        ChildProcesses.closed(stopOnExit);
    }

    /**
     * Stop it with SIGTERM and give it {@code timeoutMs} to exit (a JVM writing an AOT cache at exit takes seconds).
     *
     * @return its exit status.
     * @throws IllegalStateException when it did not exit in time (it is killed then).
     */
    int closeWithin(final long timeoutMs) throws InterruptedException
    {
        // not Process.destroy: it closes our end of the pipe as well, and a training JVM assembles its AOT cache in a
        // child JVM at exit that writes to that pipe: it died of SIGPIPE (status 141) and left no cache
        process.toHandle().destroy();
        try
        {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly().waitFor(timeoutMs, TimeUnit.MILLISECONDS);
                throw new IllegalStateException("process " + process.pid() + " did not exit within " + timeoutMs +
                    " ms of SIGTERM");
            }
            // what it wrote last (why an AOT cache was not written, say) is read to its end
            drainer.join(timeoutMs);
            return process.exitValue();
        }
        finally
        {
            ChildProcesses.closed(stopOnExit);
        }
    }
}
