package io.dkv.compute.command;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * What INFO commandstats and errorstats report, counted by every event loop at once: per command, the calls run, the
 * time they took, those refused before they ran (arity, AUTH) and those that answered an error; per error prefix (the
 * error's first word: ERR, WRONGTYPE, NOAUTH...), the errors answered. A command's counters are made when the table
 * is, so counting allocates nothing; an error prefix's the first time it is answered.
 */
public final class CommandStats
{
    /** One command's counters. */
    static final class Counters
    {
        final LongAdder calls = new LongAdder();
        final LongAdder nanos = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder failed = new LongAdder();
    }

    private final Map<String, Counters> commands = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

    /** @return the counters of a command, by its full name ("get", "config|get"), made at the first asking. */
    Counters of(final String fullName)
    {
        return commands.computeIfAbsent(fullName, name -> new Counters());
    }

    /** Count a call of a command run outside the table's own path (pipelined GETs, sliced MGETs), taking that long. */
    public void called(final String fullName, final long nanos)
    {
        final Counters counters = of(fullName);
        counters.calls.increment();
        counters.nanos.add(nanos);
    }

    /** Count an error answered, by its first word (the whole text where it has no space, as redis). */
    void error(final String message)
    {
        final int space = message.indexOf(' ');
        final String prefix = space < 0 ? message : message.substring(0, space);
        errors.computeIfAbsent(prefix, unused -> new LongAdder()).increment();
    }

    /**
     * Count an error answered, read from the reply written: its first word after the '-'.
     *
     * @param reply the reply's bytes, from the '-' to the first space or line end.
     */
    void error(final byte[] reply, final int length)
    {
        int end = 1;
        while (end < length && reply[end] != ' ' && reply[end] != '\r')
        {
            end++;
        }
        errors.computeIfAbsent(new String(reply, 1, end - 1, java.nio.charset.StandardCharsets.ISO_8859_1),
            prefix -> new LongAdder()).increment();
    }

    /** Each command that has been called, refused or failed, by name, with its four figures, in name order. */
    void forEachCommand(final BiConsumer<String, long[]> visitor)
    {
        for (final Map.Entry<String, Counters> entry : new TreeMap<>(commands).entrySet())
        {
            final Counters counters = entry.getValue();
            final long calls = counters.calls.sum();
            final long rejected = counters.rejected.sum();
            final long failed = counters.failed.sum();
            if (calls != 0 || rejected != 0 || failed != 0)
            {
                visitor.accept(entry.getKey(), new long[]{calls, counters.nanos.sum() / 1_000, rejected, failed});
            }
        }
    }

    /** Each error prefix answered, with its count, in prefix order. */
    void forEachError(final BiConsumer<String, Long> visitor)
    {
        for (final Map.Entry<String, LongAdder> entry : new TreeMap<>(errors).entrySet())
        {
            visitor.accept(entry.getKey(), entry.getValue().sum());
        }
    }

    /** Forget every figure (CONFIG RESETSTAT). */
    void reset()
    {
        commands.values().forEach(counters ->
        {
            counters.calls.reset();
            counters.nanos.reset();
            counters.rejected.reset();
            counters.failed.reset();
        });
        errors.clear();
    }
}
