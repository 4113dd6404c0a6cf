package io.dkv.load.check.nemesis;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The fault kinds by name: each found by the name the command line gives it, an unknown name refused with the names
 * there are, and each kind's place in a run: which may overlap, which need test hosts or read the membership, which
 * change the memory tier or skew clocks, and what each needs of the command line and the cluster.
 */
class FaultKindsTest
{
    private static final List<String> NAMES = List.of("kill", "pause", "partition", "scale", "kill-memory",
        "add-memory", "drain-memory", "long-pause", "kill-mid-write", "one-way-partition", "flapping-partition",
        "clock", "pause-meta", "pause-memory", "kill-all-memory", "kill-refilling", "kill-cluster", "restart-cluster");

    /** A cluster without test hosts, autoscaler, memory nodes to kill or a memory tier to change. */
    private static final NemesisTargets BARE = new NemesisTargets(List.of(), null, List.of(), 0, null, 0, 0,
        MemoryNodeKills.none(), MemoryTierChanges.none(), null);

    @Test
    void everyKindIsFoundByItsNameInTheOrderTheCommandLineListsThem()
    {
        assertEquals(NAMES, names(FaultKinds.all()));
        for (final FaultKind kind : FaultKinds.all())
        {
            assertSame(kind, FaultKinds.named(kind.name()));
        }
    }

    @Test
    void anUnknownNameIsRefusedNamingItAndEveryKnownOne()
    {
        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> FaultKinds.parse(List.of("kill", "flood")));

        assertEquals("unknown nemesis 'flood': expected kill, pause, partition, scale, kill-memory, add-memory, " +
            "drain-memory, long-pause, kill-mid-write, one-way-partition, flapping-partition, clock, pause-meta, " +
            "pause-memory, kill-all-memory, kill-refilling, kill-cluster, restart-cluster or none",
            refused.getMessage());
    }

    @Test
    void theKindsAskedForComeOnceEachInTheOrderFirstNamedAndNoneIsNoKind()
    {
        final List<FaultKind> kinds = FaultKinds.parse(List.of("clock", "none", "kill", "clock"));

        assertEquals(List.of("clock", "kill"), names(kinds));
        assertEquals("clock,kill", FaultKinds.text(kinds));
        assertEquals(List.of(), FaultKinds.parse(List.of("none")));
        assertEquals("none", FaultKinds.text(List.of()));
    }

    @Test
    void eachKindTakesItsPlaceInARun()
    {
        assertEquals(List.of("kill", "pause", "kill-memory", "long-pause", "kill-mid-write", "clock", "pause-meta"),
            names(FaultKinds.overlapping(FaultKinds.all())));
        assertEquals(List.of("partition", "one-way-partition", "flapping-partition"),
            namesOf(FaultKind::needsTestHosts));
        assertEquals(List.of("kill-memory", "add-memory", "drain-memory", "pause-memory", "kill-all-memory",
            "kill-refilling", "kill-cluster", "restart-cluster"), namesOf(FaultKind::readsMembership));
        assertEquals(List.of("add-memory", "drain-memory"), namesOf(FaultKind::changesMemoryTier));
        assertEquals(List.of("add-memory", "drain-memory"), namesOf(FaultKind::beginsOnlyWhileRunning));
        assertEquals(List.of("clock"), namesOf(FaultKind::skewsClocks));
    }

    @Test
    void aKindThatNeedsAnOptionIsRefusedWithoutItSayingWhich()
    {
        final ClusterShape oneCopy = new ClusterShape(2, 1, false);
        final ClusterShape twoCopies = new ClusterShape(2, 2, false);

        assertEquals("nemesis 'kill-memory' needs --replicas 2 or more (it is 1): with one copy a key is unavailable " +
            "while its memory node is down, and nothing refills it", refusal(oneCopy, "kill-memory"));
        assertNull(refusal(twoCopies, "kill-memory"));
        assertEquals("nemesis 'scale' needs --autoscale MIN..MAX (and --through compute)", refusal(oneCopy, "scale"));
        assertNull(refusal(new ClusterShape(2, 1, true), "scale"));
        assertEquals("nemesis 'drain-memory' needs more memory nodes than copies of each key (--memory-nodes 2, " +
            "--replicas 2), or 'add-memory' beside it: a drain never leaves fewer members than copies, nor none",
            refusal(twoCopies, "drain-memory"));
        assertNull(refusal(twoCopies, "drain-memory", "add-memory"));
        assertNull(refusal(new ClusterShape(3, 2, false), "drain-memory"));
        assertEquals("nemesis 'add-memory' with partitions: the harness reads the membership before it strikes a " +
            "memory node, and cannot reach the test hosts' MetaServer", refusal(oneCopy, "one-way-partition",
            "add-memory"));
        assertNull(refusal(oneCopy, "partition", "kill", "clock"));
        assertEquals("nemesis 'kill-refilling' needs --replicas 2 or more over 2 or more memory nodes (it is 1 " +
            "copies over 2): it kills one node while another refills", refusal(oneCopy, "kill-refilling"));
        assertNull(refusal(twoCopies, "kill-refilling", "kill-all-memory", "kill-cluster", "restart-cluster"));
    }

    @Test
    void aKindThatNeedsWhatTheClusterLacksIsUnfitSayingWhat()
    {
        for (final String partition : List.of("partition", "one-way-partition", "flapping-partition"))
        {
            assertEquals("partitions need test hosts", unfit(partition));
        }
        assertEquals("scale faults need compute nodes run by an autoscaler", unfit("scale"));
        assertEquals("kill-memory needs memory nodes keeping 2 or more copies of each key: 0 memory nodes, 1 copies",
            unfit("kill-memory"));
        assertEquals("add-memory and drain-memory need memory nodes to change: [kill, drain-memory]",
            unfit("drain-memory", "kill", "drain-memory"));
        for (final String anywhere : List.of("kill", "pause", "long-pause", "kill-mid-write", "clock"))
        {
            assertNull(unfit(anywhere), anywhere);
        }
    }

    @Test
    void askedBothTheMemoryTierAddsAndDrainsInTurnWhicheverWasDrawn()
    {
        final FaultKind add = FaultKinds.named("add-memory");
        final FaultKind drain = FaultKinds.named("drain-memory");

        // a tier without members is at its most: the turn is a drain's
        assertSame(drain, add.inTurn(List.of(add, drain), BARE));
        assertSame(add, add.inTurn(List.of(add, FaultKinds.named("kill")), BARE));
        assertSame(drain, drain.inTurn(List.of(drain), BARE));
        assertSame(FaultKinds.named("kill"), FaultKinds.named("kill").inTurn(List.of(add, drain), BARE));
    }

    private static String refusal(final ClusterShape cluster, final String... names)
    {
        return FaultKinds.refusal(FaultKinds.parse(List.of(names)), cluster);
    }

    /** @return why the kind cannot be caused on a bare cluster, asked with the others named (itself alone if none). */
    private static String unfit(final String name, final String... asked)
    {
        final List<FaultKind> kinds = FaultKinds.parse(asked.length == 0 ? List.of(name) : List.of(asked));
        return FaultKinds.named(name).unfit(kinds, BARE);
    }

    private static List<String> namesOf(final Predicate<FaultKind> property)
    {
        return names(FaultKinds.all().stream().filter(property).toList());
    }

    private static List<String> names(final List<FaultKind> kinds)
    {
        return kinds.stream().map(FaultKind::name).toList();
    }
}
