package io.dkv.compute;

import io.dkv.client.Durability;

import java.util.Locale;

/**
 * redis's {@code appendfsync}, as a compute node keeps it: what a write's OK promises about the memory nodes' disks,
 * while {@code appendonly} is yes. The memory nodes keep the keys (RocksDB); the compute node's client tells them of
 * each write ({@link Durability}), and with {@code appendonly no} tells them nothing, whatever this says.
 */
public enum AppendFsync
{
    /** Each write is answered once its memory nodes have its key on disk (fsync): durability sync. */
    ALWAYS(Durability.SYNC),
    /**
     * Each write tells its memory nodes, which write the key to disk soon after and fsync at least once a second: a
     * crash loses about the last second, as redis's everysec. Durability async.
     */
    EVERYSEC(Durability.ASYNC),
    /** The nodes are told nothing: memory only, a memory node that restarts comes back without these writes. */
    NO(Durability.NONE);

    /** The accepted values, in redis's order (its enum table's, which its CONFIG SET error lists), for error texts. */
    public static final String ACCEPTED = "everysec, always, no";

    private final Durability durability;

    AppendFsync(final Durability durability)
    {
        this.durability = durability;
    }

    /** @return what writes promise with appendonly yes and this. */
    public Durability durability()
    {
        return durability;
    }

    /** @return what writes promise with this and {@code appendOnly}: nothing at all without it. */
    public Durability durability(final boolean appendOnly)
    {
        return appendOnly ? durability : Durability.NONE;
    }

    /** @return the value as redis writes it: always, everysec or no. */
    public String text()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return the value named, in any case, or null when it is none of {@link #ACCEPTED}. */
    public static AppendFsync parse(final String text)
    {
        return switch (text.toLowerCase(Locale.ROOT))
        {
            case "always" -> ALWAYS;
            case "everysec" -> EVERYSEC;
            case "no" -> NO;
            default -> null;
        };
    }

    /** @return the closest setting to a client's durability: everysec (redis's default) for none. */
    public static AppendFsync of(final Durability durability)
    {
        return durability == Durability.SYNC ? ALWAYS : EVERYSEC;
    }

    /** @return true for yes, false for no (any case), null for anything else. */
    public static Boolean parseYesNo(final String text)
    {
        return switch (text.toLowerCase(Locale.ROOT))
        {
            case "yes" -> Boolean.TRUE;
            case "no" -> Boolean.FALSE;
            default -> null;
        };
    }
}
