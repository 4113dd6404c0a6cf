package io.dkv.load.check.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Strikes the cluster while clients run: now and then it picks a fault among those asked for and a
 * role to hit, holds the fault a second or three, and heals it. Kills are SIGKILL and a restart of
 * the same role (its data directory kept); pauses are SIGSTOP and SIGCONT; partitions cut the test
 * hosts in two groups that cannot reach each other.
 */
final class Nemesis implements Runnable
{
    static final String KILL = "kill";
    static final String PAUSE = "pause";
    static final String PARTITION = "partition";
    static final List<String> KINDS = List.of(KILL, PAUSE, PARTITION);

    private final List<String> kinds;
    private final List<Role> targets;
    private final TestHosts hosts;
    private final List<String> hostNames;
    private final long originNanos;
    private final long quietMs;
    private final Random random;
    private final Consumer<String> log;
    private final List<NemesisEvent> events = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean running = true;

    /**
     * @param kinds     faults to cause: kill, pause, partition.
     * @param targets   roles that may be killed or paused.
     * @param hosts     the test hosts the roles run on, for partitions (null when they run on this host).
     * @param hostNames what runs on each host, for the log.
     * @param quietMs   mean time between the end of a fault and the next.
     */
    Nemesis(final List<String> kinds, final List<Role> targets, final TestHosts hosts, final List<String> hostNames,
        final long originNanos, final long quietMs, final long seed, final Consumer<String> log)
    {
        if (kinds.contains(PARTITION) && hosts == null)
        {
            throw new IllegalArgumentException("partitions need test hosts");
        }
        this.kinds = List.copyOf(kinds);
        this.targets = List.copyOf(targets);
        this.hosts = hosts;
        this.hostNames = List.copyOf(hostNames);
        this.originNanos = originNanos;
        this.quietMs = quietMs;
        this.random = new Random(seed);
        this.log = log;
    }

    public void run()
    {
        while (running && !kinds.isEmpty())
        {
            if (!sleep(quietMs / 2 + random.nextLong(quietMs)))
            {
                return;
            }
            final String kind = kinds.get(random.nextInt(kinds.size()));
            final long holdMs = 1_000 + random.nextLong(2_000);
            if (PARTITION.equals(kind))
            {
                partition(holdMs);
            }
            else
            {
                strike(kind, targets.get(random.nextInt(targets.size())), holdMs);
            }
        }
    }

    private void strike(final String kind, final Role target, final long holdMs)
    {
        final long start = System.nanoTime() - originNanos;
        String detail = "";
        log.accept(String.format(Locale.ROOT, "nemesis: %s %s (process %d) for %d ms", kind, target, target.pid(), holdMs));
        switch (kind)
        {
            case KILL ->
            {
                target.kill();
                sleep(holdMs);
                detail = restart(target);
            }
            case PAUSE ->
            {
                target.pause();
                sleep(holdMs);
                target.resume();
            }
            default -> throw new IllegalArgumentException("nemesis cannot " + kind);
        }
        events.add(new NemesisEvent(kind, target.name(), start, System.nanoTime() - originNanos, detail));
    }

    private void partition(final long holdMs)
    {
        final long start = System.nanoTime() - originNanos;
        final TestHosts.Partition partition = hosts.partition(random);
        final String sides = side(partition.sideA()) + " | " + side(partition.sideB());
        log.accept(String.format(Locale.ROOT, "nemesis: partition %s for %d ms", sides, holdMs));
        sleep(holdMs);
        hosts.heal(partition);
        events.add(new NemesisEvent(PARTITION, sides, start, System.nanoTime() - originNanos, ""));
    }

    private String side(final List<Integer> side)
    {
        final StringBuilder names = new StringBuilder("{");
        for (final int host : side)
        {
            names.append(names.length() == 1 ? "" : ", ").append(hostNames.get(host));
        }
        return names.append('}').toString();
    }

    private String restart(final Role target)
    {
        try
        {
            target.start();
            return "restarted as process " + target.pid();
        }
        catch (final RuntimeException ex)
        {
            log.accept("nemesis: " + target + " did not restart: " + ex.getMessage());
            return "did not restart: " + ex.getMessage();
        }
    }

    /** Stop striking; whatever is down comes back before this returns. */
    void stop(final Thread runner)
    {
        running = false;
        runner.interrupt();
        try
        {
            runner.join(TimeUnit.SECONDS.toMillis(60));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        for (final Role target : targets)
        {
            target.resume();
            if (!target.isAlive())
            {
                restart(target);
            }
        }
    }

    List<NemesisEvent> events()
    {
        synchronized (events)
        {
            return List.copyOf(events);
        }
    }

    private boolean sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
            return true;
        }
        catch (final InterruptedException ex)
        {
            // stop() interrupts: the fault under way is still healed by the caller
            return false;
        }
    }
}
