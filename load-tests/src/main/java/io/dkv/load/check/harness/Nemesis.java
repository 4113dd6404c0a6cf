package io.dkv.load.check.harness;

import io.dkv.checker.history.HistoryJson;
import io.dkv.clock.ClockControl;
import io.dkv.compute.autoscale.Autoscaler;
import io.dkv.compute.autoscale.ManagedNode;
import io.dkv.memory.MemoryNodeConfiguration;
import io.dkv.meta.MetaServerConfiguration;

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
 * hosts in two groups that cannot reach each other. Where an autoscaler runs the compute nodes, the nodes it runs
 * are killed and paused too (it replaces the killed ones itself), and a scale fault moves its target so far under the
 * load that it starts nodes up to its maximum, then back above it, so that it drains them again.
 * <p>
 * Where keys have several copies, a memory-node kill holds the node dead past its lease, so that the
 * MetaServer declares it down and clients go on with the other copies, and restarts it at the end: it
 * comes back joining, refills its copies and is live again. No memory node is killed, by either kind
 * of kill, while any is not live ({@link MemoryNodeKills}).
 * <p>
 * The memory tier grows and shrinks too ({@link MemoryTierChanges}): an add starts a memory node that joins by moving
 * keys to itself, a drain moves a member's keys to the others and stops it once it has left; each waits until its
 * change is over (some 15 s: three phases, each a view lease and an operation's timeout apart). Asked both, the
 * nemesis adds and drains in turn. No change starts while another runs or a member is down or joining, and no memory
 * node is killed while a change runs; a drained node is never restarted, an added one is struck as the others.
 * <p>
 * A long pause stops a client process, the driver or a compute node for longer than the memory nodes' grace period
 * ({@link #LONG_PAUSE_MS}), with whatever it had in flight: the store must fence what it sends when it resumes.
 */
final class Nemesis implements Runnable
{
    static final String KILL = "kill";
    static final String PAUSE = "pause";
    static final String PARTITION = "partition";
    static final String SCALE = "scale";
    static final String KILL_MEMORY = "kill-memory";
    static final String ADD_MEMORY = "add-memory";
    static final String DRAIN_MEMORY = "drain-memory";
    static final String LONG_PAUSE = "long-pause";
    static final String KILL_MID_WRITE = "kill-mid-write";
    static final String ONE_WAY_PARTITION = "one-way-partition";
    static final String FLAPPING_PARTITION = "flapping-partition";
    static final String CLOCK = "clock";
    static final List<String> KINDS = List.of(KILL, PAUSE, PARTITION, SCALE, KILL_MEMORY, ADD_MEMORY, DRAIN_MEMORY,
        LONG_PAUSE, KILL_MID_WRITE, ONE_WAY_PARTITION, FLAPPING_PARTITION, CLOCK);
    /** The kinds that cut the test hosts' network, which need test hosts. */
    static final List<String> PARTITIONS = List.of(PARTITION, ONE_WAY_PARTITION, FLAPPING_PARTITION);
    /** How long a flapping partition stays cut, or healed, at least; as long again at most. */
    static final long FLAP_MS = 150;
    /** Kinds that strike one role at a time, which several nemeses of a run may cause together. */
    static final List<String> OVERLAPPING = List.of(KILL, PAUSE, KILL_MEMORY, LONG_PAUSE, KILL_MID_WRITE, CLOCK);
    /** How long kill-mid-write looks for a write in flight before it gives up its turn. */
    static final long MID_WRITE_SEARCH_MS = 3_000;

    /**
     * How long {@link #LONG_PAUSE} stops a client, the driver or a compute node: past a memory node's grace period, so
     * that a CAS it had in flight may find the block its word named reused (client/README.md, "Operations that outlast
     * the grace period").
     */
    static final long LONG_PAUSE_MS = MemoryNodeConfiguration.GRACE_MS_DEFAULT + 5_000;

    /**
     * How long a memory node killed by {@link #KILL_MEMORY} stays dead before its hold: its lease and the
     * MetaServer's check of it, after which it is declared down.
     */
    static final long KILL_MEMORY_DOWN_MS =
        MetaServerConfiguration.LEASE_MS_DEFAULT + MetaServerConfiguration.LEASE_CHECK_MS_DEFAULT;

    /** The largest step of a role's wall clock, either way, in milliseconds (the smallest is half a second). */
    static final long CLOCK_STEP_MS = 10_000;
    /**
     * The fastest a role's clocks run, and the slowest, against true time. Nodes renew their leases three times per
     * lease, so a MetaServer's clock running 3x fast leaves a renewal no margin before the lease it measures ends:
     * that clocks drift less is an assumption the store makes, not a fault to look for.
     */
    static final double CLOCK_FAST = 2.0;
    static final double CLOCK_SLOW = 0.25;
    /** Clock faults hold longer than others: a rate needs time to put a clock seconds off. */
    static final long CLOCK_HOLD_MS = 3_000;

    /** How long a surge lasts beyond its hold: time for new compute nodes' JVMs to start and join. */
    private static final long SCALE_JOIN_MS = 3_000;

    private final List<String> kinds;
    private final List<Role> targets;
    private final TestHosts hosts;
    private final List<String> hostNames;
    private final long originNanos;
    private final long quietMs;
    private final Random random;
    private final Consumer<String> log;
    private final Autoscaler autoscaler;
    private final double calmTarget;
    private final double surgeTarget;
    private final MemoryNodeKills memoryKills;
    private final MemoryTierChanges tier;
    /** What the nemesis waits on between its steps, notified when it is stopped. */
    private final Object wakeUp = new Object();
    private final List<NemesisEvent> events = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean running = true;
    private StruckRoles struck = new StruckRoles(false);
    private WritesInFlight writes;

    /**
     * @param kinds     faults to cause: kill, pause, partition, scale, kill-memory, add-memory, drain-memory.
     * @param targets   roles that may be killed or paused.
     * @param hosts     the test hosts the roles run on, for partitions (null when they run on this host).
     * @param hostNames what runs on each host, for the log.
     * @param quietMs   mean time between the end of a fault and the next.
     */
    Nemesis(final List<String> kinds, final List<Role> targets, final TestHosts hosts, final List<String> hostNames,
        final long originNanos, final long quietMs, final long seed, final Consumer<String> log)
    {
        this(kinds, targets, hosts, hostNames, originNanos, quietMs, seed, log, null, 0, 0, MemoryNodeKills.none(),
            MemoryTierChanges.none());
    }

    /**
     * @param autoscaler  the autoscaler of the compute nodes, whose nodes are struck too; or null.
     * @param calmTarget  its target per node under which the run's load keeps its minimum.
     * @param surgeTarget its target per node under which the run's load asks for its maximum.
     * @param memoryKills the memory nodes among the targets, and when one may be killed.
     * @param tier        adds and drains memory nodes.
     */
    Nemesis(final List<String> kinds, final List<Role> targets, final TestHosts hosts, final List<String> hostNames,
        final long originNanos, final long quietMs, final long seed, final Consumer<String> log,
        final Autoscaler autoscaler, final double calmTarget, final double surgeTarget,
        final MemoryNodeKills memoryKills, final MemoryTierChanges tier)
    {
        if ((kinds.contains(ADD_MEMORY) || kinds.contains(DRAIN_MEMORY)) && !tier.changes())
        {
            throw new IllegalArgumentException("add-memory and drain-memory need memory nodes to change: " + kinds);
        }
        this.tier = tier;
        if (kinds.contains(KILL_MEMORY) && (memoryKills.replicas() < 2 || memoryKills.memoryNodes().isEmpty()))
        {
            throw new IllegalArgumentException("kill-memory needs memory nodes keeping 2 or more copies of each key: " +
                memoryKills.memoryNodes().size() + " memory nodes, " + memoryKills.replicas() + " copies");
        }
        this.memoryKills = memoryKills;
        if (kinds.stream().anyMatch(PARTITIONS::contains) && hosts == null)
        {
            throw new IllegalArgumentException("partitions need test hosts");
        }
        if (kinds.contains(SCALE) && autoscaler == null)
        {
            throw new IllegalArgumentException("scale faults need compute nodes run by an autoscaler");
        }
        this.autoscaler = autoscaler;
        this.calmTarget = calmTarget;
        this.surgeTarget = surgeTarget;
        this.kinds = List.copyOf(kinds);
        this.targets = List.copyOf(targets);
        this.hosts = hosts;
        this.hostNames = List.copyOf(hostNames);
        this.originNanos = originNanos;
        this.quietMs = quietMs;
        this.random = new Random(seed);
        this.log = log;
    }

    /**
     * Share the roles under a fault with the run's other nemeses, so that no two faults hold one role.
     *
     * @return this.
     */
    Nemesis sharing(final StruckRoles struck)
    {
        this.struck = struck;
        return this;
    }

    /**
     * @param writes where kill-mid-write finds a client with a write in flight.
     * @return this.
     */
    Nemesis aimingAt(final WritesInFlight writes)
    {
        this.writes = writes;
        return this;
    }

    public void run()
    {
        while (running && !kinds.isEmpty())
        {
            if (!sleep(quietMs / 2 + random.nextLong(quietMs)) || !running)
            {
                return;
            }
            final String kind = memoryTierTurn(kinds.get(random.nextInt(kinds.size())));
            final long holdMs = 1_000 + random.nextLong(2_000);
            final List<ManagedNode> scaled = autoscaler == null ? List.of() : autoscaler.servingNodes();
            final List<Role> targets = targets();
            final int pick = random.nextInt(targets.size() + scaled.size());
            if (ADD_MEMORY.equals(kind) || DRAIN_MEMORY.equals(kind))
            {
                if (!changeMemoryTier(kind, pick))
                {
                    return;
                }
            }
            else if (PARTITION.equals(kind) || ONE_WAY_PARTITION.equals(kind))
            {
                partition(holdMs, ONE_WAY_PARTITION.equals(kind));
            }
            else if (FLAPPING_PARTITION.equals(kind))
            {
                flappingPartition(holdMs);
            }
            else if (SCALE.equals(kind))
            {
                scale(holdMs);
            }
            else if (LONG_PAUSE.equals(kind))
            {
                final List<Role> clientSide = clientSide(targets);
                if (pick >= clientSide.size() && !scaled.isEmpty())
                {
                    strike(PAUSE, scaled.get(pick % scaled.size()), LONG_PAUSE_MS);
                }
                else
                {
                    strike(PAUSE, LONG_PAUSE, clientSide.get(pick % clientSide.size()), LONG_PAUSE_MS, "");
                }
            }
            else if (KILL_MEMORY.equals(kind))
            {
                final List<Role> memoryNodes = memoryKills.memoryNodes();
                killMemoryNode(memoryNodes.get(pick % memoryNodes.size()), holdMs);
            }
            else if (KILL_MID_WRITE.equals(kind))
            {
                killMidWrite(targets, holdMs);
            }
            else if (CLOCK.equals(kind))
            {
                // the autoscaler's compute nodes keep the system's clocks: its launcher sets no clock file
                strike(CLOCK, targets.get(pick % targets.size()), CLOCK_HOLD_MS + holdMs * 2);
            }
            else if (pick >= targets.size())
            {
                strike(kind, scaled.get(pick - targets.size()), holdMs);
            }
            else
            {
                strike(kind, targets.get(pick), holdMs);
            }
        }
    }

    /**
     * @return the roles that send requests to the memory nodes, those a long pause stops: the clients, the driver and
     * the compute nodes, not the MetaServer or the memory nodes (whose CPUs serve no one-sided request).
     */
    private List<Role> clientSide(final List<Role> roles)
    {
        final List<Role> clientSide = new ArrayList<>();
        for (final Role role : roles)
        {
            if (!role.name().equals(CheckCluster.META_SERVER) && !role.name().startsWith(CheckCluster.MEMORY_NODE))
            {
                clientSide.add(role);
            }
        }
        return clientSide;
    }

    /** @return the kind drawn, or where the nemesis adds and drains memory nodes, the change whose turn it is. */
    private String memoryTierTurn(final String drawn)
    {
        final boolean both = kinds.contains(ADD_MEMORY) && kinds.contains(DRAIN_MEMORY);
        return both && (ADD_MEMORY.equals(drawn) || DRAIN_MEMORY.equals(drawn)) ? tier.next() : drawn;
    }

    /**
     * Add or drain a memory node, uninterrupted: a change left half done would hold the tier in its phase.
     *
     * @return false when the nemesis was stopped before the change began.
     */
    private boolean changeMemoryTier(final String kind, final int pick)
    {
        if (!running)
        {
            return false;
        }
        final NemesisEvent event = ADD_MEMORY.equals(kind) ? tier.add() : tier.drain(pick);
        if (event != null)
        {
            events.add(event);
        }
        return true;
    }

    /**
     * @return the roles to strike now: those the cluster began with and the memory nodes added since, less those that
     * left the memory tier.
     */
    private List<Role> targets()
    {
        final List<Role> now = new ArrayList<>();
        for (final Role target : targets)
        {
            if (!tier.left(target))
            {
                now.add(target);
            }
        }
        now.addAll(tier.joined());
        return now;
    }

    private void strike(final String kind, final Role target, final long holdMs)
    {
        strike(kind, kind, target, holdMs, "");
    }

    /**
     * @param label what the log and the timeline call the fault (kill-mid-write is a kill).
     * @param why   what made the nemesis pick the target, for the log; empty when it drew it.
     */
    private void strike(final String kind, final String label, final Role target, final long holdMs,
        final String why)
    {
        final String whyNot = KILL.equals(kind) ? memoryKills.whyNot(target) : null;
        if (whyNot != null)
        {
            log.accept("nemesis: " + label + " " + target + " skipped: " + whyNot);
            return;
        }
        final String taken = struck.take(target, memoryKills.nodeId(target) != 0);
        if (taken != null)
        {
            log.accept("nemesis: " + label + " " + target + " skipped: " + taken);
            return;
        }
        try
        {
            final long start = System.nanoTime() - originNanos;
            String detail = why;
            log.accept(String.format(Locale.ROOT, "nemesis: %s %s (process %d) for %d ms%s", label, target,
                target.pid(), holdMs, why.isEmpty() ? "" : ": " + why));
            switch (kind)
            {
                case KILL ->
                {
                    target.kill();
                    sleep(holdMs);
                    detail += (detail.isEmpty() ? "" : "; ") + restart(target);
                }
                case PAUSE ->
                {
                    target.pause();
                    sleep(holdMs);
                    target.resume();
                }
                case CLOCK ->
                {
                    final ClockControl clock = target.clock();
                    if (clock == null)
                    {
                        log.accept("nemesis: clock " + target + " skipped: it has no clock control");
                        return;
                    }
                    detail += (detail.isEmpty() ? "" : "; ") + skew(clock);
                    log.accept("nemesis: clock " + target + " (" + clock.path().getFileName() + "): " + detail);
                    sleep(holdMs);
                    detail += "; then " + clock.describe();
                    clock.heal();
                }
                default -> throw new IllegalArgumentException("nemesis cannot " + kind);
            }
            events.add(new NemesisEvent(label, target.name(), start, System.nanoTime() - originNanos, detail));
        }
        finally
        {
            struck.release(target);
        }
    }

    /**
     * Step the wall clock (either way) or run both clocks fast or slow, drawn.
     *
     * @return what was done, for the log and the timeline.
     */
    private String skew(final ClockControl clock)
    {
        return switch (random.nextInt(3))
        {
            case 0 ->
            {
                final long stepMs = (500 + random.nextLong(CLOCK_STEP_MS - 500)) * (random.nextBoolean() ? 1 : -1);
                clock.stepWall(stepMs * 1_000_000L);
                yield String.format(Locale.ROOT, "wall clock stepped %+.1f s", stepMs / 1000.0);
            }
            case 1 ->
            {
                final double rate = 1.5 + random.nextDouble() * (CLOCK_FAST - 1.5);
                clock.rate(rate);
                yield String.format(Locale.ROOT, "clocks run fast, %.2fx", rate);
            }
            default ->
            {
                final double rate = CLOCK_SLOW + random.nextDouble() * (0.75 - CLOCK_SLOW);
                clock.rate(rate);
                yield String.format(Locale.ROOT, "clocks run slow, %.2fx", rate);
            }
        };
    }

    /**
     * SIGKILL aimed at a write in flight: the client process that has a write or compare-and-set invoked and not
     * completed, or the driver or a compute node it goes through, killed at once; restarted after the hold. Skipped,
     * saying so, when no write is in flight within {@link #MID_WRITE_SEARCH_MS}.
     */
    private void killMidWrite(final List<Role> targets, final long holdMs)
    {
        final List<Role> clients = new ArrayList<>();
        final List<Role> writePath = new ArrayList<>();
        for (final Role role : targets)
        {
            if (role.name().startsWith(CheckCluster.CLIENT) && role.isAlive())
            {
                // a client killed by another fault left its writes open in its history, cut already
                clients.add(role);
            }
            else if (role.name().equals(CheckCluster.DRIVER) || role.name().startsWith(CheckCluster.COMPUTE_NODE))
            {
                writePath.add(role);
            }
        }
        final long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MID_WRITE_SEARCH_MS);
        WritesInFlight.InFlight found = null;
        while (running && found == null && System.nanoTime() < giveUp)
        {
            Collections.shuffle(clients, random);
            found = writes == null ? null : writes.find(clients);
            if (found == null)
            {
                pause(1);
            }
        }
        if (found == null)
        {
            log.accept("nemesis: kill-mid-write skipped: no client had a write in flight within " +
                MID_WRITE_SEARCH_MS + " ms");
            return;
        }
        final Role target = writePath.isEmpty() || random.nextBoolean() ? found.client() :
            writePath.get(random.nextInt(writePath.size()));
        final String why = found.client() + " had " + found.write().f() + " " +
            (found.write().key() == null ? "" : found.write().key() + " ") +
            HistoryJson.valueText(found.write().value()) + " in flight (process " +
            found.write().process() + ")";
        strike(KILL, KILL_MID_WRITE, target, holdMs, why);
    }

    /**
     * SIGKILL of a memory node, held past its lease (declared down: clients go on with the other copies) and the hold,
     * then a restart: it comes back joining and refills its copies itself. Skipped, saying why, while any memory node
     * is not live.
     */
    private void killMemoryNode(final Role target, final long holdMs)
    {
        final String why = memoryKills.whyNot(target);
        if (why != null)
        {
            log.accept("nemesis: kill-memory " + target + " skipped: " + why);
            return;
        }
        final String taken = struck.take(target, true);
        if (taken != null)
        {
            log.accept("nemesis: kill-memory " + target + " skipped: " + taken);
            return;
        }
        try
        {
            killAndHold(target, holdMs);
        }
        finally
        {
            struck.release(target);
        }
    }

    private void killAndHold(final Role target, final long holdMs)
    {
        final long start = System.nanoTime() - originNanos;
        final long downMs = KILL_MEMORY_DOWN_MS + holdMs;
        log.accept(String.format(Locale.ROOT, "nemesis: kill-memory %s (process %d) for %d ms, then a restart to " +
            "rejoin", target, target.pid(), downMs));
        target.kill();
        sleep(downMs);
        final String before = memoryKills.describe(target);
        final String restarted = restart(target);
        log.accept("nemesis: " + target + " was " + before + "; " + restarted);
        events.add(new NemesisEvent(KILL_MEMORY, target.name(), start, System.nanoTime() - originNanos,
            "was " + before + "; " + restarted));
    }

    /** A node the autoscaler runs: killed for good (the autoscaler replaces it below its minimum) or paused. */
    private void strike(final String kind, final ManagedNode target, final long holdMs)
    {
        final long start = System.nanoTime() - originNanos;
        log.accept(String.format(Locale.ROOT, "nemesis: %s %s for %d ms", kind, target.describe(), holdMs));
        String detail = "";
        switch (kind)
        {
            case KILL ->
            {
                target.kill();
                sleep(holdMs);
                detail = "not restarted: the autoscaler replaces what it lost";
            }
            case PAUSE ->
            {
                target.pause();
                sleep(holdMs);
                target.resume();
            }
            default -> throw new IllegalArgumentException("nemesis cannot " + kind);
        }
        events.add(new NemesisEvent(kind, "compute node " + target.nodeId(), start, System.nanoTime() - originNanos,
            detail));
    }

    /**
     * The load surges past what the nodes are held to, for the hold and the time for new nodes to join, then calms:
     * the autoscaler starts nodes up to its maximum, then drains them after its scale-down window.
     */
    private void scale(final long holdMs)
    {
        final long start = System.nanoTime() - originNanos;
        final int before = autoscaler.running();
        log.accept(String.format(Locale.ROOT, "nemesis: scale: target %.4g ops/s per node (was %.4g) for %d ms",
            surgeTarget, calmTarget, holdMs + SCALE_JOIN_MS));
        autoscaler.retarget(surgeTarget);
        sleep(holdMs + SCALE_JOIN_MS);
        final int during = autoscaler.running();
        autoscaler.retarget(calmTarget);
        events.add(new NemesisEvent(SCALE, "compute nodes", start, System.nanoTime() - originNanos,
            before + " running before, " + during + " at the surge's end"));
    }

    private void partition(final long holdMs, final boolean oneWay)
    {
        final long start = System.nanoTime() - originNanos;
        final TestHosts.Partition partition = hosts.partition(random, oneWay);
        final String sides = side(partition.sideA()) + (oneWay ? " -> " : " | ") + side(partition.sideB());
        log.accept(String.format(Locale.ROOT, "nemesis: %s %s for %d ms%s", oneWay ? ONE_WAY_PARTITION : PARTITION,
            sides, holdMs, oneWay ? " (the first side's packets to the second dropped, the second's still arrive)" :
            ""));
        sleep(holdMs);
        hosts.heal(partition);
        events.add(new NemesisEvent(oneWay ? ONE_WAY_PARTITION : PARTITION, sides, start,
            System.nanoTime() - originNanos, ""));
    }

    /**
     * Cut and heal again and again for the hold, each time between other groups, each cut and each heal lasting
     * {@link #FLAP_MS} to twice that: connections that just came back are cut again before they settle.
     */
    private void flappingPartition(final long holdMs)
    {
        final long start = System.nanoTime() - originNanos;
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
        log.accept(String.format(Locale.ROOT, "nemesis: %s for %d ms, cut and healed every %d-%d ms",
            FLAPPING_PARTITION, holdMs, FLAP_MS, 2 * FLAP_MS));
        int cuts = 0;
        boolean stopped = false;
        while (!stopped && System.nanoTime() < end)
        {
            final TestHosts.Partition partition = hosts.partition(random, false);
            cuts++;
            stopped = !sleep(FLAP_MS + random.nextLong(FLAP_MS));
            hosts.heal(partition);
            stopped = stopped || !sleep(FLAP_MS + random.nextLong(FLAP_MS));
        }
        events.add(new NemesisEvent(FLAPPING_PARTITION, "all test hosts", start, System.nanoTime() - originNanos,
            cuts + " cuts"));
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
        synchronized (wakeUp)
        {
            running = false;
            wakeUp.notifyAll();
        }
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
        for (final Role target : targets())
        {
            final ClockControl clock = target.clock();
            if (clock != null)
            {
                clock.heal();
            }
            target.resume();
            if (!target.isAlive())
            {
                restart(target);
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
        String missing = "";
        long nextReport = System.nanoTime();
        while (System.nanoTime() < deadlineNanos)
        {
            missing = null;
            for (final Role target : targets())
            {
                if (!target.isAlive())
                {
                    final String restarted = restart(target);
                    log.accept("recovery: " + target + " " + restarted);
                    missing = target.isAlive() ? missing : target + " does not run (" + restarted + ")";
                }
            }
            if (missing == null && autoscaler != null && autoscaler.serving() < autoscaler.context().minNodes())
            {
                missing = "the autoscaler serves " + autoscaler.serving() + " compute nodes of its minimum " +
                    autoscaler.context().minNodes();
            }
            if (missing == null && hosts == null && (memoryKills.replicas() > 1 || tier.changes()))
            {
                missing = memoryKills.whyNotChange();
            }
            if (missing == null)
            {
                return null;
            }
            if (System.nanoTime() >= nextReport)
            {
                log.accept("recovery: waiting: " + missing);
                nextReport = System.nanoTime() + 5_000_000_000L;
            }
            pause(100);
        }
        return missing;
    }

    List<NemesisEvent> events()
    {
        synchronized (events)
        {
            return List.copyOf(events);
        }
    }

    /** @return true when the time passed, false when the nemesis was stopped first (the caller heals at once). */
    private boolean sleep(final long ms)
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

    private static void pause(final long ms)
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
}
