package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;
import io.dkv.raas.Membership;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With several copies of each key, the nemesis kills a memory node only while every other one serves:
 * one down or still joining holds no copy that is read, and a second one down could take every copy
 * of a key. The roles here are never started; the membership is what the test says it is.
 */
class MemoryNodeKillsTest
{
    private static final long EPOCH = 5;

    @TempDir
    Path logs;

    private final Map<Role, Long> memoryNodes = new LinkedHashMap<>();
    private final AtomicInteger reads = new AtomicInteger();

    @Test
    void aMemoryNodeMayBeKilledWhileEveryOtherOneIsLive()
    {
        final MemoryNodeKills kills = kills(2, Membership.LIVE, Membership.LIVE, Membership.LIVE);

        for (final Role node : kills.memoryNodes())
        {
            assertNull(kills.whyNot(node), node::toString);
        }
    }

    @Test
    void noMemoryNodeIsKilledWhileOneIsJoiningNorTheJoiningOneBeforeItsRefillEnds()
    {
        final MemoryNodeKills kills = kills(2, Membership.LIVE, Membership.JOINING, Membership.LIVE);

        assertEquals("memory node 102 is joining in membership epoch 5: no memory node is killed until every one " +
            "is live again, so that no key loses more than one of its 2 copies", kills.whyNot(node(0)));
        assertTrue(kills.whyNot(node(2)).startsWith("memory node 102 is joining"), kills.whyNot(node(2)));
        assertTrue(kills.whyNot(node(1)).startsWith("memory node 102 is joining"), kills.whyNot(node(1)));
    }

    @Test
    void noMemoryNodeIsKilledWhileAnotherIsDown()
    {
        final MemoryNodeKills kills = kills(3, Membership.DOWN, Membership.LIVE, Membership.LIVE);

        assertTrue(kills.whyNot(node(1)).startsWith("memory node 101 is down in membership epoch 5"),
            kills.whyNot(node(1)));
        assertTrue(kills.whyNot(node(2)).startsWith("memory node 101 is down"), kills.whyNot(node(2)));
    }

    @Test
    void noMemoryNodeIsKilledWhenTheMembershipCannotBeRead()
    {
        final MemoryNodeKills kills = new MemoryNodeKills(roles(3), 2, () ->
        {
            throw new IllegalStateException("MetaServer 1 does not answer");
        });

        assertTrue(kills.whyNot(node(0)).contains("the membership could not be read") &&
            kills.whyNot(node(0)).contains("MetaServer 1 does not answer"), kills.whyNot(node(0)));
    }

    @Test
    void withOneCopyPerKeyOrAnotherRoleAnyKillGoesAheadWithoutReadingTheMembership()
    {
        final Role driver = role("driver");

        assertNull(kills(1, Membership.DOWN, Membership.JOINING, Membership.LIVE).whyNot(node(0)));
        assertNull(kills(2, Membership.DOWN, Membership.JOINING, Membership.LIVE).whyNot(driver));
        assertEquals(0, reads.get(), "membership reads");
    }

    @Test
    void noMemoryNodeIsKilledWhileAMembershipChangeRunsEvenAtOneCopyWhereTheTierChanges()
    {
        final long[] ids = {101, 102, 103};
        final int[] live = {Membership.LIVE, Membership.LIVE, Membership.LIVE};
        final Membership filling = new Membership(EPOCH, 1, ids, live, new long[3],
            new int[]{Membership.PLACED, Membership.PLACED, Membership.PLACED_AFTER}, Membership.FILL);
        final MemoryNodeKills kills = new MemoryNodeKills(roles(3), 1, true, () -> filling);

        assertEquals("a membership change is in its fill phase in membership epoch 5: no memory node is killed until " +
            "it ends", kills.whyNot(node(0)));
        assertEquals("a membership change is in its fill phase in membership epoch 5: one change at a time",
            kills.whyNotChange());
        assertNull(kills.whyNot(role("driver")), "other roles are struck as ever");
    }

    @Test
    void noMemoryNodeIsAddedOrDrainedWhileAMemberIsDownAndANodeThatLeftIsNoLongerWaitedFor()
    {
        final MemoryNodeKills kills = kills(2, Membership.LIVE, Membership.LIVE, Membership.DOWN);

        assertEquals("memory node 103 is down in membership epoch 5: no memory node is added or drained until every " +
            "member is live again", kills.whyNotChange());
        kills.left(node(2));
        assertNull(kills.whyNotChange());
        assertEquals(List.of(node(0), node(1)), kills.memoryNodes());
    }

    @Test
    @Timeout(60)
    void theNemesisSkipsAndLogsEveryMemoryNodeKillWhileOneIsJoining() throws Exception
    {
        final MemoryNodeKills kills = kills(2, Membership.LIVE, Membership.JOINING, Membership.LIVE);
        final List<String> lines = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch skips = new CountDownLatch(6);
        final NemesisScheduler nemesis = new NemesisScheduler(
            FaultKinds.parse(List.of(KillMemoryFault.NAME, KillFault.NAME)), targets(kills, System.nanoTime()), 2, 7,
            line ->
            {
                lines.add(line);
                skips.countDown();
            });
        final Thread runner = new Thread(nemesis, "nemesis");
        runner.start();

        assertTrue(skips.await(50, TimeUnit.SECONDS), lines::toString);
        // before stop(), which tries to restart whatever is not alive, and these roles never were
        final List<String> struck;
        synchronized (lines)
        {
            struck = List.copyOf(lines);
        }
        nemesis.stop(runner);

        assertEquals(List.of(), nemesis.events());
        assertTrue(struck.stream().allMatch(line -> line.matches("nemesis: (kill|kill-memory) memory node 10[123] " +
            "skipped: memory node 102 is joining in membership epoch 5: .*")), struck::toString);
        assertTrue(struck.stream().anyMatch(line -> line.startsWith("nemesis: kill-memory ")), struck::toString);
    }

    @Test
    void killMemoryNeedsTwoOrMoreCopiesOfEachKey()
    {
        final MemoryNodeKills kills = kills(1, Membership.LIVE, Membership.LIVE, Membership.LIVE);

        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new NemesisScheduler(FaultKinds.parse(List.of(KillMemoryFault.NAME)), targets(kills, 0), 1_000, 1,
                line -> { }));
        assertEquals("kill-memory needs memory nodes keeping 2 or more copies of each key: 3 memory nodes, 1 copies",
            refused.getMessage());
    }

    /** @return the memory nodes of these kills as the nemesis's only targets: no test hosts, no autoscaler. */
    private static NemesisTargets targets(final MemoryNodeKills kills, final long originNanos)
    {
        return new NemesisTargets(kills.memoryNodes(), null, List.of(), originNanos, null, 0, 0, kills,
            MemoryTierChanges.none(), null);
    }

    /** @return the rule over memory nodes 101, 102, 103 in these states, in membership epoch {@link #EPOCH}. */
    private MemoryNodeKills kills(final int replicas, final int... states)
    {
        final Map<Role, Long> nodes = roles(states.length);
        final long[] ids = nodes.values().stream().mapToLong(Long::longValue).toArray();
        return new MemoryNodeKills(nodes, replicas, () ->
        {
            reads.incrementAndGet();
            return new Membership(EPOCH, replicas, ids, states);
        });
    }

    private Map<Role, Long> roles(final int count)
    {
        if (memoryNodes.isEmpty())
        {
            for (int i = 0; i < count; i++)
            {
                memoryNodes.put(role("memory node " + (101 + i)), 101L + i);
            }
        }
        return memoryNodes;
    }

    private Role node(final int index)
    {
        return List.copyOf(memoryNodes.keySet()).get(index);
    }

    private Role role(final String name)
    {
        return new Role(name, "64m", incarnation -> List.of("never-started"), Pattern.compile("never"), logs,
            name.replace(' ', '-'), List.of());
    }
}
