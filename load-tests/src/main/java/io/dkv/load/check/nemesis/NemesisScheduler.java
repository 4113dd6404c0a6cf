package io.dkv.load.check.nemesis;

import io.dkv.clock.ClockControl;
import io.dkv.compute.autoscale.Autoscaler;
import io.dkv.compute.autoscale.ManagedNode;
import io.dkv.load.check.harness.Role;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * When the nemesis strikes: now and then, a quiet time apart, it draws a fault among the kinds asked for, how long it
 * holds and a target, and lets the kind strike, hold and heal it ({@link FaultKind}). Stopped, it heals whatever is
 * still down, and waits until every role is back. Every draw comes from one seeded generator, in the same order, so
 * that a seed strikes the same faults again.
 */
final class NemesisScheduler implements Runnable
{
    private final List<FaultKind> kinds;
    private final long quietMs;
    private final Nemesis nemesis;

    /**
     * @param kinds   faults to cause.
     * @param quietMs mean time between the end of a fault and the next.
     * @param seed    of every draw.
     * @throws IllegalArgumentException when a kind cannot be caused on these targets, saying why.
     */
    NemesisScheduler(final List<FaultKind> kinds, final NemesisTargets targets, final long quietMs, final long seed,
        final Consumer<String> log)
    {
        for (final FaultKind kind : kinds)
        {
            final String unfit = kind.unfit(kinds, targets);
            if (unfit != null)
            {
                throw new IllegalArgumentException(unfit);
            }
        }
        this.kinds = List.copyOf(kinds);
        this.quietMs = quietMs;
        this.nemesis = new Nemesis(targets, seed, log);
    }

    /**
     * Share the roles under a fault with the run's other nemeses, so that no two faults hold one role.
     *
     * @return this.
     */
    NemesisScheduler sharing(final StruckRoles struck)
    {
        nemesis.sharing(struck);
        return this;
    }

    public void run()
    {
        final Random random = nemesis.random();
        final Autoscaler autoscaler = nemesis.targets().autoscaler();
        while (nemesis.running() && !kinds.isEmpty())
        {
            if (!nemesis.sleep(quietMs / 2 + random.nextLong(quietMs)) || !nemesis.running())
            {
                return;
            }
            final FaultKind kind = kinds.get(random.nextInt(kinds.size())).inTurn(kinds, nemesis.targets());
            final long holdMs = 1_000 + random.nextLong(2_000);
            final List<ManagedNode> scaled = autoscaler == null ? List.of() : autoscaler.servingNodes();
            final List<Role> roles = nemesis.roles();
            final int pick = random.nextInt(roles.size() + scaled.size());
            if (kind.beginsOnlyWhileRunning() && !nemesis.running())
            {
                return;
            }
            kind.strike(nemesis, new Strike(holdMs, pick, roles, scaled));
        }
    }

    /**
     * Stop striking; whatever is down comes back before this returns. The nemesis is woken from its waits, never
     * interrupted: a restart under way ends as it would have (one cut short leaves its role down, "interrupted while
     * starting"), and a change of the memory tier runs to its end or its timeout.
     */
    void stop(final Thread runner)
    {
        halt();
        join(runner);
        heal();
    }

    /** Stop striking: the fault under way heals at once, without waiting out its hold. */
    void halt()
    {
        nemesis.halt();
    }

    /** Wait, after {@link #halt()}, until the nemesis healed the fault it had under way and ended. */
    void join(final Thread runner)
    {
        try
        {
            runner.join(TimeUnit.SECONDS.toMillis(60) + MemoryTierChanges.CHANGE_TIMEOUT_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Resume what is paused and restart what does not run, once every nemesis of the run ended: one still in its own
     * restart would otherwise find its role started under it.
     */
    void heal()
    {
        for (final Role target : nemesis.roles())
        {
            final ClockControl clock = target.clock();
            if (clock != null)
            {
                clock.heal();
            }
            target.resume();
            if (!target.isAlive())
            {
                nemesis.restart(target);
            }
        }
    }

    /**
     * After {@link #stop}: wait until every role runs again (restarting one that does not, as often as it takes; a
     * drained memory node stays stopped), the autoscaler serves its minimum, and where the membership can be read and
     * matters (several copies, or a memory tier that changed), until no change runs and every member is live: what
     * must hold before the final reads.
     *
     * @return null when all is back by the deadline, else what was not.
     */
    String awaitEveryRoleBack(final long deadlineNanos)
    {
        final NemesisTargets targets = nemesis.targets();
        final Autoscaler autoscaler = targets.autoscaler();
        String missing = "";
        long nextReport = System.nanoTime();
        while (System.nanoTime() < deadlineNanos)
        {
            missing = null;
            for (final Role target : nemesis.roles())
            {
                if (!target.isAlive())
                {
                    final String restarted = nemesis.restart(target);
                    nemesis.log("recovery: " + target + " " + restarted);
                    missing = target.isAlive() ? missing : target + " does not run (" + restarted + ")";
                }
            }
            if (missing == null && autoscaler != null && autoscaler.serving() < autoscaler.context().minNodes())
            {
                missing = "the autoscaler serves " + autoscaler.serving() + " compute nodes of its minimum " +
                    autoscaler.context().minNodes();
            }
            if (missing == null && targets.hosts() == null &&
                (targets.memoryKills().replicas() > 1 || targets.tier().changes()))
            {
                missing = targets.memoryKills().whyNotChange();
            }
            if (missing == null)
            {
                return null;
            }
            if (System.nanoTime() >= nextReport)
            {
                nemesis.log("recovery: waiting: " + missing);
                nextReport = System.nanoTime() + 5_000_000_000L;
            }
            Nemesis.pause(100);
        }
        return missing;
    }

    List<NemesisEvent> events()
    {
        return nemesis.events();
    }
}
