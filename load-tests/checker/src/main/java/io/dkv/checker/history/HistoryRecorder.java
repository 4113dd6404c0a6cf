package io.dkv.checker.history;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Records a history as client threads run: every event gets the next index and a time from one
 * clock, and is written through to a JSON lines file (when given) so a crash of the recorder
 * still leaves the history so far, or kept in memory (when not). Not both: a long run's events
 * (a list-append read carries the whole list it saw) outgrow a client process's heap, and the
 * file is where they are read back from.
 *
 * <p>Events are appended under one lock: a recorded history's order is the order in which the
 * threads reported, which for an operation's invoke and completion is also the real-time order.
 */
public final class HistoryRecorder implements AutoCloseable
{
    private final long originNanos;
    private final Path file;
    /** The events, when no file is given; else null. */
    private final List<Op> ops;
    private final BufferedWriter out;
    private int recorded;

    /** @param file where to write the events as they come, or null to keep them in memory only. */
    public HistoryRecorder(final Path file)
    {
        this(file, System.nanoTime());
    }

    /**
     * @param file        where to write the events as they come, or null to keep them in memory only.
     * @param originNanos the {@link System#nanoTime()} at which the history began: processes of one host share
     *                    the clock, so recorders in several processes given one origin write comparable times.
     */
    public HistoryRecorder(final Path file, final long originNanos)
    {
        this.originNanos = originNanos;
        this.file = file;
        this.ops = file == null ? new ArrayList<>() : null;
        try
        {
            this.out = file == null ? null : Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the history to " + file + ": " + ex.getMessage(), ex);
        }
    }

    public Op invoke(final int process, final String f, final String key, final Object value)
    {
        return add(OpType.INVOKE, process, f, key, value, null);
    }

    public Op ok(final Op invoke, final Object value)
    {
        return add(OpType.OK, invoke.process(), invoke.f(), invoke.key(), value, null);
    }

    public Op fail(final Op invoke, final String error)
    {
        return add(OpType.FAIL, invoke.process(), invoke.f(), invoke.key(), invoke.value(), error);
    }

    /** The outcome is unknown: the process must not invoke again (use a new process number). */
    public Op info(final Op invoke, final String error)
    {
        return add(OpType.INFO, invoke.process(), invoke.f(), invoke.key(), invoke.value(), error);
    }

    private synchronized Op add(
        final OpType type, final int process, final String f, final String key, final Object value, final String error)
    {
        final Op op = new Op(recorded++, type, process, f, key, value, System.nanoTime() - originNanos, error);
        if (ops != null)
        {
            ops.add(op);
        }
        else
        {
            try
            {
                HistoryJson.writeLine(op, out);
                // an invocation must be on file before the operation runs: an effect without it would read as
                // impossible
                out.flush();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot write the history: " + ex.getMessage(), ex);
            }
        }
        return op;
    }

    /**
     * @return the history so far, of a recorder that keeps it in memory.
     * @throws IllegalStateException when it writes to a file: {@link HistoryJson#read} reads it back from there.
     */
    public synchronized History history()
    {
        if (ops == null)
        {
            throw new IllegalStateException("the history is written to " + file + ", not kept in memory: read it " +
                "from there (HistoryJson.read)");
        }
        return History.of(new ArrayList<>(ops));
    }

    public synchronized void close()
    {
        if (out != null)
        {
            try
            {
                out.close();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot close the history file: " + ex.getMessage(), ex);
            }
        }
    }
}
