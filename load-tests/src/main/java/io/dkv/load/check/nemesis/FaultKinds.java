package io.dkv.load.check.nemesis;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The fault kinds by name, the one place that lists them: a kind is added here, beside its class. It reads
 * {@code --nemesis}, refusing a name it does not know with the names it does, and the kinds asked for together.
 */
public final class FaultKinds
{
    /** The value of {@code --nemesis} that asks for no fault. */
    public static final String NONE = "none";

    /** In the order the command line names them. */
    private static final List<FaultKind> KINDS = List.of(
        new KillFault(),
        new PauseFault(),
        new PartitionFault(),
        new ScaleFault(),
        new KillMemoryFault(),
        new AddMemoryFault(),
        new DrainMemoryFault(),
        new LongPauseFault(),
        new KillMidWriteFault(),
        new OneWayPartitionFault(),
        new FlappingPartitionFault(),
        new ClockFault(),
        new MetaPauseFault(),
        new MemoryPauseFault(),
        new KillAllMemoryFault(),
        new KillRefillingFault(),
        new ClusterRestartFault(false),
        new ClusterRestartFault(true));

    private FaultKinds()
    {
    }

    /** @return every kind. */
    public static List<FaultKind> all()
    {
        return KINDS;
    }

    /**
     * @return the kind of that name.
     * @throws IllegalArgumentException naming the value and every kind's name when no kind has that name.
     */
    public static FaultKind named(final String name)
    {
        for (final FaultKind kind : KINDS)
        {
            if (kind.name().equals(name))
            {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown nemesis '" + name + "': expected " + text(KINDS, ", ") + " or " +
            NONE);
    }

    /**
     * @param names the values of {@code --nemesis}: kinds by name, and {@link #NONE} for none.
     * @return the kinds named, each once, in the order first named; a list of the caller's own.
     * @throws IllegalArgumentException naming the value and every kind's name when no kind has a name given.
     */
    public static List<FaultKind> parse(final List<String> names)
    {
        final List<FaultKind> kinds = new ArrayList<>();
        for (final String name : names)
        {
            if (!NONE.equals(name))
            {
                final FaultKind kind = named(name);
                if (!kinds.contains(kind))
                {
                    kinds.add(kind);
                }
            }
        }
        return kinds;
    }

    /** @return those of the kinds that may overlap, in their order: what the run's other nemeses cause. */
    public static List<FaultKind> overlapping(final List<FaultKind> kinds)
    {
        return kinds.stream().filter(FaultKind::mayOverlap).toList();
    }

    /**
     * @return why the command line cannot ask for these kinds together on this cluster, or null when it can: a kind
     * may need an option, and one that reads the membership cannot go with one that needs test hosts.
     */
    public static String refusal(final List<FaultKind> asked, final ClusterShape cluster)
    {
        final boolean testHosts = asked.stream().anyMatch(FaultKind::needsTestHosts);
        for (final FaultKind kind : asked)
        {
            final String refused = kind.refusal(asked, cluster);
            if (refused != null)
            {
                return refused;
            }
            if (kind.readsMembership() && testHosts)
            {
                return "nemesis '" + kind.name() + "' with partitions: the harness reads the membership before it " +
                    "strikes a memory node, and cannot reach the test hosts' MetaServer";
            }
        }
        return null;
    }

    /** @return the kinds' names as {@code --nemesis} takes them, comma-separated; {@link #NONE} for none. */
    public static String text(final List<FaultKind> kinds)
    {
        return kinds.isEmpty() ? NONE : text(kinds, ",");
    }

    /** @return the kinds' names, {@code separator} between each two. */
    public static String text(final List<FaultKind> kinds, final String separator)
    {
        return kinds.stream().map(FaultKind::name).collect(Collectors.joining(separator));
    }

    /**
     * @return true for a fault that kills every in-memory copy of keys without a clean stop (every memory node at
     * once, the whole cluster with SIGKILL, a refilling node's last serving replica): under appendfsync everysec a
     * write acknowledged within the fsync interval before it may be lost. A clean stop and start loses nothing.
     */
    public static boolean losesEveryCopy(final String kindName)
    {
        return KillAllMemoryFault.NAME.equals(kindName) || ClusterRestartFault.KILL.equals(kindName) ||
            KillRefillingFault.NAME.equals(kindName);
    }

    /** @return true when a kind of that name is among those asked for. */
    static boolean asks(final List<FaultKind> asked, final String name)
    {
        return asked.stream().anyMatch(kind -> kind.name().equals(name));
    }
}
