package io.dkv.compute.command;

import io.dkv.client.Versioned;
import io.dkv.compute.script.CommandRules;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A connection's MULTI state, as redis's multiState and watched_keys: whether it is between MULTI and EXEC, the
 * commands queued (each checked for its name and arity when queued, so that EXEC runs it as is), whether a command
 * was refused while queuing (EXEC then answers EXECABORT), and the keys WATCHed with the version each had when first
 * watched (null: it had no value), which EXEC compares inside its transaction. Touched by the connection's event loop
 * thread only.
 */
final class MultiState
{
    /** A command queued: its spec (a subcommand's, for a container) and its request. */
    record Queued(CommandSpec spec, byte[][] args)
    {
    }

    private final List<Queued> queued = new ArrayList<>();
    private final Map<ByteBuffer, Versioned> watched = new LinkedHashMap<>();
    private boolean active;
    private boolean refused;
    private boolean writes;

    boolean active()
    {
        return active;
    }

    /** MULTI: queue from now on. */
    void begin()
    {
        active = true;
    }

    void queue(final CommandSpec spec, final byte[][] args)
    {
        // as redis: a transaction that EXEC will refuse keeps nothing more
        if (!refused)
        {
            queued.add(new Queued(spec, args));
            writes |= CommandRules.flaggedWrite(spec.name());
        }
    }

    /** @return whether a command queued writes: EXEC is then a write command, as redis counts it. */
    boolean writes()
    {
        return writes;
    }

    /** A command was refused while queuing (unknown, wrong arity...): EXEC will answer EXECABORT. */
    void refuse()
    {
        if (active)
        {
            refused = true;
        }
    }

    boolean refused()
    {
        return refused;
    }

    /** @return the commands queued, in their order. */
    List<Queued> queued()
    {
        return Collections.unmodifiableList(new ArrayList<>(queued));
    }

    /**
     * Watch a key, unless it is watched already: as redis, the first WATCH of a key counts, so a change between two
     * WATCHes of it still fails the EXEC.
     *
     * @param read reads the key's version now (null: no value).
     */
    void watch(final byte[] key, final Function<byte[], Versioned> read)
    {
        final ByteBuffer wrapped = ByteBuffer.wrap(key);
        if (!watched.containsKey(wrapped))
        {
            watched.put(wrapped, read.apply(key));
        }
    }

    /** @return the keys watched with the versions read when watched, null for a key that had no value. */
    Map<ByteBuffer, Versioned> watched()
    {
        return Collections.unmodifiableMap(new LinkedHashMap<>(watched));
    }

    void unwatch()
    {
        watched.clear();
    }

    /** EXEC (run or refused) or DISCARD: out of MULTI, nothing queued, nothing watched. */
    void end()
    {
        active = false;
        refused = false;
        queued.clear();
        writes = false;
        watched.clear();
    }
}
