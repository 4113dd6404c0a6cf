package io.dkv.agent;

import org.agrona.BufferUtil;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.errors.ErrorLogReader;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An agent's errors, counted and kept rather than printed (as Aeron's media driver keeps them in its CnC file): each
 * distinct error (type, message and stack) once, with how often and when it was first and last seen, in a buffer
 * that a process of its own may map and read ({@link #read(AtomicBuffer, long)}). Every error is counted, even when
 * the buffer is full and a new distinct one cannot be kept.
 */
public final class ErrorLog implements ErrorHandler
{
    /** Bytes of an in-memory log: a few dozen distinct stack traces. */
    public static final int IN_MEMORY_BYTES = 64 * 1024;

    private final DistinctErrorLog log;
    private final AtomicBuffer buffer;
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong notKept = new AtomicLong();

    /**
     * @param buffer where the distinct errors are kept (zeroed, 8-byte aligned): a region of a file, or memory.
     * @param clock  the clock observations are stamped with.
     */
    public ErrorLog(final AtomicBuffer buffer, final EpochClock clock)
    {
        this.buffer = buffer;
        this.log = new DistinctErrorLog(buffer, clock);
    }

    /** @return a log in memory of {@link #IN_MEMORY_BYTES}, for an agent no other process reads. */
    public static ErrorLog inMemory(final EpochClock clock)
    {
        return new ErrorLog(new UnsafeBuffer(BufferUtil.allocateDirectAligned(IN_MEMORY_BYTES, 64)), clock);
    }

    public void onError(final Throwable error)
    {
        errors.incrementAndGet();
        if (!log.record(error))
        {
            notKept.incrementAndGet();
        }
    }

    /** @return errors seen, kept or not. */
    public long errors()
    {
        return errors.get();
    }

    /** @return errors seen while the buffer had no room for another distinct one. */
    public long notKept()
    {
        return notKept.get();
    }

    /** @return the distinct errors kept, as {@link #read(AtomicBuffer, long)} describes them. */
    public String describe()
    {
        final String kept = read(buffer, 0);
        return notKept.get() == 0 ? kept : kept + notKept.get() + " more error(s) not kept: the log was full\n";
    }

    /**
     * Describe the distinct errors in a log, one block each: how often, first and last seen, then the stack trace.
     *
     * @param buffer         the log's buffer (mapped from another process's file, or this one's).
     * @param sinceEpochMs   only errors last seen at or after this time; 0 for all.
     * @return the text, empty when no error was kept.
     */
    public static String read(final AtomicBuffer buffer, final long sinceEpochMs)
    {
        final StringBuilder text = new StringBuilder();
        ErrorLogReader.read(buffer, (count, first, last, encoded) -> text
            .append(count).append(count == 1 ? " observation" : " observations")
            .append(", first ").append(Instant.ofEpochMilli(first))
            .append(", last ").append(Instant.ofEpochMilli(last)).append(":\n")
            .append(encoded).append(encoded.endsWith("\n") ? "" : "\n"), sinceEpochMs);
        return text.toString();
    }
}
