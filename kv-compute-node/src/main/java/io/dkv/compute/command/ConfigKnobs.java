package io.dkv.compute.command;

import io.dkv.compute.limits.MemoryUnits;
import io.dkv.compute.resp.RespNumbers;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The settings CONFIG SET may change here: redis 7.0's encoding thresholds (hash, set, sorted set, list and stream
 * listpack, intset and node sizes), which choose how redis lays a small value out in its memory and change no reply.
 * dkv lays collections out its own way, so they change nothing here either; they are kept, checked and read back as
 * redis does (its numeric parsing, memory units for the byte sizes, bounds and error texts), so that clients and
 * Redis's own tests that set them go on. One more is kept and used: busy-reply-threshold (lua-time-limit), the time a
 * script runs before other commands get BUSY. Every other setting is fixed when the node starts. Thread-safe.
 */
final class ConfigKnobs
{
    /** One setting: its name, the older name redis also takes, its bounds, whether it takes memory units. */
    private record Knob(String name, String alias, long min, long max, boolean unsigned, boolean memory, long initial)
    {
    }

    private static final List<Knob> KNOBS = List.of(
        new Knob("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, Long.MAX_VALUE, true, false, 512),
        new Knob("hash-max-listpack-value", "hash-max-ziplist-value", 0, Long.MAX_VALUE, true, true, 64),
        new Knob("set-max-intset-entries", null, 0, Long.MAX_VALUE, true, false, 512),
        new Knob("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, Long.MAX_VALUE, true, false, 128),
        new Knob("zset-max-listpack-value", "zset-max-ziplist-value", 0, Long.MAX_VALUE, true, true, 64),
        new Knob("list-max-listpack-size", "list-max-ziplist-size", Integer.MIN_VALUE, Integer.MAX_VALUE, false, false,
            -2),
        new Knob("list-compress-depth", null, 0, Integer.MAX_VALUE, false, false, 0),
        new Knob("stream-node-max-bytes", null, 0, Long.MAX_VALUE, true, true, 4096),
        new Knob("stream-node-max-entries", null, 0, Long.MAX_VALUE, false, false, 100),
        // the one that changes something here: how long a script runs before others get BUSY (io.dkv.compute.script)
        new Knob("busy-reply-threshold", "lua-time-limit", 0, Long.MAX_VALUE, false, false, 5000));

    private final Map<String, Knob> byName = new LinkedHashMap<>();
    private final Map<Knob, Long> values = new LinkedHashMap<>();

    ConfigKnobs()
    {
        for (final Knob knob : KNOBS)
        {
            byName.put(knob.name, knob);
            if (knob.alias != null)
            {
                byName.put(knob.alias, knob);
            }
            values.put(knob, knob.initial);
        }
    }

    /** @return true when {@code name} (lower case) is one of these settings, by its name or its older one. */
    boolean has(final String name)
    {
        return byName.containsKey(name);
    }

    /** @return the settings by their names, with their values, for CONFIG GET's patterns. */
    synchronized Map<String, String> current()
    {
        final Map<String, String> current = new LinkedHashMap<>();
        values.forEach((knob, value) -> current.put(knob.name, Long.toString(value)));
        return current;
    }

    /** @return the value of a setting by its name (lower case), which must be one of these. */
    synchronized long value(final String name)
    {
        return values.get(byName.get(name));
    }

    /** @return the value of a setting named as asked (its name or its older one), or null when it is none of these. */
    synchronized String get(final String name)
    {
        final Knob knob = byName.get(name);
        return knob == null ? null : Long.toString(values.get(knob));
    }

    /**
     * Set every pair or none, as redis's CONFIG SET: the names checked first (an unknown one, a fixed one, one given
     * twice), then each value parsed and bounded in turn.
     *
     * @param names   the settings' names, lower case.
     * @param given   their values, in the same order.
     * @param isFixed whether a name is a setting this node fixes when it starts.
     * @return null when set, else the error to answer.
     */
    synchronized String set(final List<String> names, final List<byte[]> given, final Predicate<String> isFixed)
    {
        final Knob[] knobs = new Knob[names.size()];
        final long[] parsed = new long[knobs.length];
        final String error = parse(names, given, isFixed, knobs, parsed);
        if (error != null)
        {
            return error;
        }
        for (int i = 0; i < knobs.length; i++)
        {
            values.put(knobs[i], parsed[i]);
        }
        return null;
    }

    /**
     * As {@link #set}, setting nothing: what a CONFIG SET that changes other settings too checks before it changes
     * them, so that it changes all or none.
     *
     * @return null when {@link #set} would set them, else the error it would answer.
     */
    synchronized String check(final List<String> names, final List<byte[]> given, final Predicate<String> isFixed)
    {
        return parse(names, given, isFixed, new Knob[names.size()], new long[names.size()]);
    }

    private String parse(final List<String> names, final List<byte[]> given, final Predicate<String> isFixed,
        final Knob[] knobs, final long[] parsed)
    {
        for (int i = 0; i < names.size(); i++)
        {
            final Knob knob = byName.get(names.get(i));
            if (knob == null)
            {
                return isFixed.test(names.get(i)) ?
                    "ERR CONFIG SET is not supported by this dkv compute node: it is configured when started" :
                    "ERR Unknown option or number of arguments for CONFIG SET - '" + names.get(i) + "'";
            }
            for (int j = 0; j < i; j++)
            {
                if (knobs[j] == knob)
                {
                    return failed(names.get(i), "duplicate parameter");
                }
            }
            knobs[i] = knob;
        }
        for (int i = 0; i < knobs.length; i++)
        {
            final Knob knob = knobs[i];
            final byte[] text = given.get(i);
            final Long memory = knob.memory ? memory(text) : null;
            final long value = knob.memory ? (memory == null ? 0 : memory) : RespNumbers.parseLong(text);
            if (knob.memory ? memory == null : !RespNumbers.isLong(text))
            {
                return failed(knob.name, knob.memory ? "argument must be a memory value" :
                    "argument couldn't be parsed into an integer");
            }
            final boolean outside = knob.unsigned ?
                Long.compareUnsigned(value, knob.max) > 0 || Long.compareUnsigned(value, knob.min) < 0 :
                value > knob.max || value < knob.min;
            if (outside)
            {
                return failed(knob.name, "argument must be between " + knob.min + " and " + knob.max + " inclusive");
            }
            parsed[i] = value;
        }
        return null;
    }

    /** @return redis's memtoull of the text (digits, then b, k, kb, m, mb, g or gb in any case), or null: none. */
    static Long memory(final byte[] text)
    {
        return MemoryUnits.parse(text);
    }

    static String failed(final String name, final String why)
    {
        return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why;
    }
}
