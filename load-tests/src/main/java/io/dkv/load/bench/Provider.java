package io.dkv.load.bench;

import java.util.Locale;

/**
 * The verbs providers the benchmarks measure, each with the floor the verbs benchmark compares it with.
 */
public enum Provider
{
    SHM("local memory"),
    TCP("tcp ping-pong"),
    /** An RNIC through libibverbs: its one-sided requests beside this host's own memory. */
    VERBS("local memory");

    private final String floorName;

    Provider(final String floorName)
    {
        this.floorName = floorName;
    }

    /** @return the name {@link io.dkv.verbs.Verbs#open} knows the provider by. */
    public String verbsName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return what this provider's figures are compared with. */
    public String floorName()
    {
        return floorName;
    }

    public String toString()
    {
        return verbsName();
    }
}
