package io.dkv.load.check.nemesis;

import io.dkv.compute.autoscale.ManagedNode;
import io.dkv.load.check.harness.Role;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What a fault kind strikes with, one per nemesis: the cluster it strikes, its randomness (seeded, so that a seed
 * strikes the same faults again), its waits (cut short once it is stopped), its log and the faults it caused, and
 * the roles that other nemeses of the run hold ({@link StruckRoles}).
 */
final class Nemesis
{
    /** What a fault does to a role it holds: strike it, wait out the hold, heal it. */
    interface RoleFault
    {
        /**
         * @param why what made the nemesis pick the target, for the event; empty when it drew it.
         * @return the event's detail, or null when it did not strike after all (saying why in the log).
         */
        String hold(Role target, long holdMs, String why);
    }

    /** What a fault does to a compute node the autoscaler runs. */
    interface NodeFault
    {
        /** @return the event's detail. */
        String hold(ManagedNode target, long holdMs);
    }

    private final NemesisTargets targets;
    private final Random random;
    private final Consumer<String> log;
    /** What the nemesis waits on between its steps, notified when it is stopped. */
    private final Object wakeUp = new Object();
    private final List<NemesisEvent> events = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean running = true;
    private StruckRoles struck = new StruckRoles(false);

    Nemesis(final NemesisTargets targets, final long seed, final Consumer<String> log)
    {
        this.targets = targets;
        this.random = new Random(seed);
        this.log = log;
    }

    /** Share the roles under a fault with the run's other nemeses, so that no two faults hold one role. */
    void sharing(final StruckRoles struck)
    {
        this.struck = struck;
    }

    NemesisTargets targets()
    {
        return targets;
    }

    /** @return the nemesis's one source of randomness: every draw of every kind comes from it, in turn. */
    Random random()
    {
        return random;
    }

    void log(final String line)
    {
        log.accept(line);
    }

    boolean running()
    {
        return running;
    }

    /** Stop: the fault under way heals at once, without waiting out its hold. */
    void halt()
    {
        synchronized (wakeUp)
        {
            running = false;
            wakeUp.notifyAll();
        }
    }

    /** @return true when the time passed, false when the nemesis was stopped first (the caller heals at once). */
    boolean sleep(final long ms)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        synchronized (wakeUp)
        {
            while (running)
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    return true;
                }
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(wakeUp, left);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return false;
        }
    }

    /** Wait, whether stopped or not: between the looks of a search that ends by itself. */
    static void pause(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** @return nanoseconds since the history began: the time of an event. */
    long sinceOrigin()
    {
        return System.nanoTime() - targets.originNanos();
    }

    void caused(final NemesisEvent event)
    {
        events.add(event);
    }

    List<NemesisEvent> events()
    {
        synchronized (events)
        {
            return List.copyOf(events);
        }
    }

    /**
     * @return the roles to strike now: those the cluster began with and the memory nodes added since, less those that
     * left the memory tier.
     */
    List<Role> roles()
    {
        final List<Role> now = new ArrayList<>();
        for (final Role target : targets.roles())
        {
            if (!targets.tier().left(target))
            {
                now.add(target);
            }
        }
        now.addAll(targets.tier().joined());
        return now;
    }

    /** @return how the restart went, for the log and the event; one that failed is logged too. */
    String restart(final Role target)
    {
        try
        {
            target.start();
            return "restarted as process " + target.pid();
        }
        catch (final RuntimeException ex)
        {
            log("nemesis: " + target + " did not restart: " + ex.getMessage());
            return "did not restart: " + ex.getMessage();
        }
    }

    /** @param label what the log calls the fault. */
    void skipped(final String label, final Role target, final String why)
    {
        log("nemesis: " + label + " " + target + " skipped: " + why);
    }

    /**
     * @param isMemoryNode whether the target is a memory node, struck one at a time where keys have several copies.
     * @return true when the target is now this nemesis's to strike, until {@link #release}; else it is skipped, saying
     * which fault holds it.
     */
    boolean take(final String label, final Role target, final boolean isMemoryNode)
    {
        final String taken = struck.take(target, isMemoryNode);
        if (taken != null)
        {
            skipped(label, target, taken);
            return false;
        }
        return true;
    }

    void release(final Role target)
    {
        struck.release(target);
    }

    /**
     * Take several roles at once, for a fault that strikes them together ({@link #take}, as other roles, not one
     * memory node at a time).
     *
     * @return the roles taken, to {@link #release} each; null when one is another fault's (it is skipped, saying so,
     * and none is kept).
     */
    List<Role> takeAll(final String label, final List<Role> roles)
    {
        final List<Role> taken = new ArrayList<>();
        for (final Role role : roles)
        {
            if (!take(label, role, false))
            {
                taken.forEach(this::release);
                return null;
            }
            taken.add(role);
        }
        return taken;
    }

    /**
     * @return true when every memory node may be struck at once now: there is one, every one is live and no change
     * runs; else false, the skip logged with why.
     */
    boolean mayStrikeEveryMemoryNode(final String label)
    {
        final List<Role> memoryNodes = targets.memoryKills().memoryNodes();
        if (memoryNodes.isEmpty())
        {
            log("nemesis: " + label + " skipped: no memory node");
            return false;
        }
        final String why = targets.memoryKills().whyNot(memoryNodes.get(0));
        if (why != null)
        {
            skipped(label, memoryNodes.get(0), why);
            return false;
        }
        return true;
    }

    /**
     * Hold a role under a fault, unless another fault holds it: log the strike, let the fault strike, hold and heal,
     * and record what it did.
     *
     * @param label what the log and the timeline call the fault.
     * @param why   what made the nemesis pick the target, for the log; empty when it drew it.
     */
    void holdRole(final String label, final Role target, final long holdMs, final String why, final RoleFault fault)
    {
        if (!take(label, target, targets.memoryKills().nodeId(target) != 0))
        {
            return;
        }
        try
        {
            final long start = sinceOrigin();
            log(String.format(Locale.ROOT, "nemesis: %s %s (process %d) for %d ms%s", label, target, target.pid(),
                holdMs, why.isEmpty() ? "" : ": " + why));
            final String detail = fault.hold(target, holdMs, why);
            if (detail != null)
            {
                caused(new NemesisEvent(label, target.name(), start, sinceOrigin(), detail));
            }
        }
        finally
        {
            release(target);
        }
    }

    /** Hold a node the autoscaler runs under a fault: log the strike, let the fault strike and heal, record it. */
    void holdNode(final String label, final ManagedNode target, final long holdMs, final NodeFault fault)
    {
        final long start = sinceOrigin();
        log(String.format(Locale.ROOT, "nemesis: %s %s for %d ms", label, target.describe(), holdMs));
        final String detail = fault.hold(target, holdMs);
        caused(new NemesisEvent(label, "compute node " + target.nodeId(), start, sinceOrigin(), detail));
    }
}
