package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;
import io.dkv.process.RoleProcess;
import io.dkv.raas.Membership;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The nemesis grows and shrinks the memory tier within bounds: a drain never leaves fewer members than copies of each
 * key, an add never goes past the most members the run allows, and asked both, it adds and drains in turn. The roles
 * here are never started: every strike below is one that must be skipped, before any process would be.
 */
class MemoryTierChangesTest
{
    @TempDir
    Path logs;

    private final List<String> lines = new ArrayList<>();

    @Test
    void aDrainThatWouldLeaveFewerMembersThanCopiesIsSkippedSayingWhy()
    {
        final MemoryTierChanges tier = tier(2, 2, 4);

        assertNull(tier.drain(0));
        assertEquals(List.of("nemesis: drain-memory skipped: draining one of the 2 members would leave 1, fewer " +
            "than the 2 copies of each key"), lines);
        assertEquals(AddMemoryFault.NAME, tier.next(), "at the fewest members, the turn is an add's");
    }

    @Test
    void theLastMemberIsNeverDrainedAtOneCopy()
    {
        assertNull(tier(1, 1, 3).drain(0));
        assertEquals(List.of("nemesis: drain-memory skipped: draining one of the 1 member would leave 0, fewer than " +
            "one"), lines);
    }

    @Test
    void anAddPastTheMostMembersIsSkippedAndTheTurnIsADrains()
    {
        final MemoryTierChanges tier = tier(4, 2, 4);

        assertNull(tier.add());
        assertEquals(List.of("nemesis: add-memory skipped: the memory tier has 4 members, the most this run lets it " +
            "have (--memory-nodes + 2)"), lines);
        assertEquals(DrainMemoryFault.NAME, tier.next());
    }

    @Test
    void betweenTheBoundsTheFirstChangeIsAnAdd()
    {
        assertEquals(AddMemoryFault.NAME, tier(3, 1, 5).next());
    }

    /** @return changes of {@code members} live memory nodes keeping {@code replicas} copies, at most {@code most}. */
    private MemoryTierChanges tier(final int members, final int replicas, final int most)
    {
        final Map<Role, Long> nodes = new LinkedHashMap<>();
        final long[] ids = new long[members];
        final int[] states = new int[members];
        for (int i = 0; i < members; i++)
        {
            ids[i] = CheckCluster.FIRST_MEMORY_NODE_ID + i;
            states[i] = Membership.LIVE;
            nodes.put(new Role("memory node " + ids[i], "64m", incarnation -> List.of("never-started"),
                Pattern.compile("never"), logs, "memory-node-" + ids[i], List.of()), ids[i]);
        }
        final MemoryNodeKills guard = new MemoryNodeKills(nodes, replicas, true,
            () -> new Membership(3, replicas, ids, states));
        return new MemoryTierChanges(guard, most, new NoProcesses(), CheckCluster.FIRST_MEMORY_NODE_ID + members,
            CheckCluster.FIRST_MEMORY_NODE_ID + 63, 0, lines::add);
    }

    /** Every strike here is skipped: none may start a process. */
    private static final class NoProcesses implements MemoryTierChanges.Processes
    {
        public Role startJoining(final long nodeId)
        {
            throw new AssertionError("memory node " + nodeId + " started");
        }

        public RoleProcess startDrain(final long nodeId)
        {
            throw new AssertionError("memory node " + nodeId + " drained");
        }

        public RoleProcess startMetaChange(final List<String> arguments)
        {
            throw new AssertionError("meta change " + arguments);
        }

        public RoleProcess startDrive()
        {
            throw new AssertionError("memory-node --drive");
        }

        public long phaseGapMs()
        {
            return 0;
        }
    }
}
