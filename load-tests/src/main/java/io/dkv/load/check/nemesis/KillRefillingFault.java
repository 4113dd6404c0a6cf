package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;
import io.dkv.raas.Membership;

import java.util.List;
import java.util.Locale;

/**
 * Where keys have several copies: SIGKILL of a memory node A, A started again, and while A refills (joining) SIGKILL
 * of another, B, started again after it: the copies B held as the one serving replica are lost from memory while A's
 * are half refilled. B comes back from its disk as the replica that served last, and every key settles on B's copy,
 * never on A's half-refilled one nor cleared by A's refill (issue 66's lost transfers: A's refill "copied or cleared"
 * its keys from a B that then came back empty). Struck only while every memory node is live and no change runs.
 */
final class KillRefillingFault extends FaultKind
{
    static final String NAME = "kill-refilling";
    /** How long to look for A joining before giving the second kill up: A's start and registration. */
    private static final long JOINING_WAIT_MS = 30_000;
    /** How long to wait for a memory node to serve again after the second restart: the pool's cut and a refill. */
    private static final long SERVING_WAIT_MS = 120_000;

    KillRefillingFault()
    {
        super(NAME, Trait.READS_MEMBERSHIP);
    }

    String refusal(final List<FaultKind> asked, final ClusterShape cluster)
    {
        return cluster.replicas() >= 2 && cluster.memoryNodes() >= 2 ? null : "nemesis '" + NAME + "' needs " +
            "--replicas 2 or more over 2 or more memory nodes (it is " + cluster.replicas() + " copies over " +
            cluster.memoryNodes() + "): it kills one node while another refills";
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        final MemoryNodeKills kills = nemesis.targets().memoryKills();
        final List<Role> memoryNodes = kills.memoryNodes();
        if (memoryNodes.size() < 2)
        {
            nemesis.log("nemesis: " + NAME + " skipped: fewer than two memory nodes");
            return;
        }
        final Role first = memoryNodes.get(strike.pick() % memoryNodes.size());
        final Role second = memoryNodes.get((strike.pick() + 1) % memoryNodes.size());
        final String why = kills.whyNot(first);
        if (why != null)
        {
            nemesis.skipped(NAME, first, why);
            return;
        }
        if (!nemesis.take(NAME, first, false))
        {
            return;
        }
        try
        {
            if (!nemesis.take(NAME, second, false))
            {
                return;
            }
            try
            {
                killDuringRefill(nemesis, kills, first, second, strike.holdMs());
            }
            finally
            {
                nemesis.release(second);
            }
        }
        finally
        {
            nemesis.release(first);
        }
    }

    private static void killDuringRefill(final Nemesis nemesis, final MemoryNodeKills kills, final Role first,
        final Role second, final long holdMs)
    {
        final long start = nemesis.sinceOrigin();
        nemesis.log(String.format(Locale.ROOT, "nemesis: %s %s (process %d), restarted, then %s (process %d) while " +
            "it refills, restarted %d ms later", NAME, first, first.pid(), second, second.pid(), holdMs));
        first.kill();
        final String firstRestart = nemesis.restart(first);
        final String joining = awaitJoining(nemesis, kills, first);
        second.kill();
        final long killedAt = nemesis.sinceOrigin();
        nemesis.sleep(holdMs);
        final String before = kills.describe(second);
        final String secondRestart = nemesis.restart(second);
        // the members that served restart from their disks and the pool comes back at one cut, taking back what they
        // acknowledged meanwhile: everysec's losses run until a memory node serves again after the cut
        final Waited waited = awaitServingAfterTheCut(nemesis, kills, killedAt);
        final String servedAgain = waited.seen();
        final long lossesUntil = waited.lossesUntil();
        final String detail = first + " " + firstRestart + ", " + joining + "; " + second + " killed, was " + before +
            ", " + secondRestart + "; " + servedAgain;
        nemesis.log("nemesis: " + NAME + ": " + detail);
        nemesis.caused(new NemesisEvent(NAME, first.name() + ", " + second.name(), start, nemesis.sinceOrigin(),
            detail, start, lossesUntil));
    }

    /**
     * Wait for the pool's cut: every member stops serving (those that served restart from their disks), then one
     * serves again, after the cut; writes acknowledged before that may be taken back, none after. Where no moment
     * without a member serving is seen, the pool took no cut (a node that cannot restart from a disk), and the
     * losses end with the second kill.
     *
     * @return until when acknowledged writes may be lost, and what was seen.
     */
    private static Waited awaitServingAfterTheCut(final Nemesis nemesis, final MemoryNodeKills kills,
        final long killedAt)
    {
        final long from = nemesis.sinceOrigin();
        final long deadline = from + SERVING_WAIT_MS * 1_000_000L;
        long noneServedAt = 0;
        while (nemesis.sinceOrigin() < deadline)
        {
            try
            {
                final Membership membership = kills.membership();
                int serving = 0;
                int live = 0;
                for (final long member : membership.memberIds())
                {
                    serving += membership.serves(member) ? 1 : 0;
                    live += membership.state(member) == Membership.LIVE ? 1 : 0;
                }
                if (serving == 0 && noneServedAt == 0)
                {
                    noneServedAt = nemesis.sinceOrigin();
                }
                if (noneServedAt != 0 && serving > 0)
                {
                    final long servedAt = nemesis.sinceOrigin();
                    return new Waited(servedAt, String.format(Locale.ROOT, "no memory node served %,d ms after " +
                        "the restart, one served again %,d ms after that", (noneServedAt - from) / 1_000_000L,
                        (servedAt - noneServedAt) / 1_000_000L));
                }
                if (noneServedAt == 0 && live == membership.memberIds().length)
                {
                    return new Waited(killedAt, "every memory node live again with no moment none served: no cut");
                }
            }
            catch (final RuntimeException ex)
            {
                // the MetaServer does not answer now: looked at again
            }
            // not the nemesis's sleep: a nemesis stopping still waits, or the losses' window would end too soon
            try
            {
                Thread.sleep(50);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return new Waited(nemesis.sinceOrigin(), "interrupted while waiting for the pool's cut");
            }
        }
        return new Waited(nemesis.sinceOrigin(), "no memory node served again within " + SERVING_WAIT_MS +
            " ms of the restart");
    }

    /** Until when the fault may lose acknowledged writes, and what the wait for the pool's cut saw. */
    private record Waited(long lossesUntil, String seen)
    {
    }

    /** @return what the membership said of the node when the second kill came. */
    private static String awaitJoining(final Nemesis nemesis, final MemoryNodeKills kills, final Role node)
    {
        final long deadline = nemesis.sinceOrigin() + JOINING_WAIT_MS * 1_000_000L;
        while (nemesis.sinceOrigin() < deadline)
        {
            try
            {
                if (kills.membership().state(kills.nodeId(node)) == Membership.JOINING)
                {
                    return "joining when the second kill came";
                }
            }
            catch (final RuntimeException ex)
            {
                // the MetaServer does not answer now: looked at again
            }
            if (!nemesis.sleep(20))
            {
                break;
            }
        }
        return kills.describe(node) + " when the second kill came (not seen joining within " + JOINING_WAIT_MS +
            " ms)";
    }
}
