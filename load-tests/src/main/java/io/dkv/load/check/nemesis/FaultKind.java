package io.dkv.load.check.nemesis;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One kind of fault, as {@code --nemesis} names it: how it strikes and heals, and what the schedule, the command line
 * and the cluster ask of it. The kinds are listed by name in {@link FaultKinds}; one is added there, beside its class.
 */
public abstract class FaultKind
{
    /** What a kind is to the schedule, the command line and the cluster, beside how it strikes. */
    enum Trait
    {
        /** It holds one role at a time: the run's other nemeses may cause it beside the first. */
        MAY_OVERLAP,
        /** It cuts the network between test hosts (network namespaces), which the roles must run on. */
        NEEDS_TEST_HOSTS,
        /** It strikes by the membership as read from this host, which cannot reach the test hosts' MetaServer. */
        READS_MEMBERSHIP,
        /** It adds or drains memory nodes: the clients then follow the membership. */
        CHANGES_MEMORY_TIER,
        /** It shifts and skews clocks: every role then reads its clocks from a control file. */
        SKEWS_CLOCKS,
        /** It cannot be cut short, and would hold on: it is not begun once the nemesis is stopped. */
        RUNS_TO_ITS_END
    }

    private final String name;
    private final Set<Trait> traits = EnumSet.noneOf(Trait.class);

    FaultKind(final String name, final Trait... traits)
    {
        this.name = name;
        Collections.addAll(this.traits, traits);
    }

    /** @return its name on the command line, in the nemesis log and on the timeline. */
    public final String name()
    {
        return name;
    }

    /**
     * @return true when it holds one role at a time, so that the run's other nemeses may cause it beside the first
     * ({@code --faults-at-once}).
     */
    public final boolean mayOverlap()
    {
        return traits.contains(Trait.MAY_OVERLAP);
    }

    /** @return true when it cuts the network between test hosts (network namespaces), which the roles must run on. */
    public final boolean needsTestHosts()
    {
        return traits.contains(Trait.NEEDS_TEST_HOSTS);
    }

    /**
     * @return true when it strikes by the membership as read from this host, which cannot reach the test hosts'
     * MetaServer: it is refused beside a kind that needs test hosts.
     */
    public final boolean readsMembership()
    {
        return traits.contains(Trait.READS_MEMBERSHIP);
    }

    /** @return true when it adds or drains memory nodes: the clients then follow the membership. */
    public final boolean changesMemoryTier()
    {
        return traits.contains(Trait.CHANGES_MEMORY_TIER);
    }

    /** @return true when it shifts and skews clocks: every role then reads its clocks from a control file. */
    public final boolean skewsClocks()
    {
        return traits.contains(Trait.SKEWS_CLOCKS);
    }

    /** @return true when it is not to begin once the nemesis is stopped: it cannot be cut short, and would hold on. */
    final boolean beginsOnlyWhileRunning()
    {
        return traits.contains(Trait.RUNS_TO_ITS_END);
    }

    /**
     * @param asked   every kind the command line asks for, this one among them.
     * @param cluster the cluster the command line asks for.
     * @return why the command line cannot have this kind, naming the option it needs; null when it can.
     */
    String refusal(final List<FaultKind> asked, final ClusterShape cluster)
    {
        return null;
    }

    /**
     * @param asked the kinds the nemesis causes, this one among them.
     * @return why the nemesis cannot cause this kind on what it strikes; null when it can.
     */
    String unfit(final List<FaultKind> asked, final NemesisTargets targets)
    {
        return null;
    }

    /**
     * @param asked the kinds the nemesis causes, this one among them.
     * @return the kind to cause when this one is drawn: itself, unless it takes turns with another.
     */
    FaultKind inTurn(final List<FaultKind> asked, final NemesisTargets targets)
    {
        return this;
    }

    /**
     * Cause the fault, hold it and heal it, logging what it did and recording it as an event; or skip it, saying why.
     * A stopped nemesis's waits end at once ({@link Nemesis#sleep}), so that the fault heals without its hold.
     */
    abstract void strike(Nemesis nemesis, Strike strike);

    public String toString()
    {
        return name;
    }
}
