package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;
import io.dkv.process.RoleProcess;
import io.dkv.raas.Membership;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The nemesis's changes of the memory tier, as an operator makes them while clients run: {@link AddMemoryFault}
 * starts a memory node with {@code --join} (a node id never used, a data directory of its own) and waits until the
 * change it drives is over, the node live and placed; {@link DrainMemoryFault} runs {@code memory-node --drain
 * ID} for a member, waits until it exits, and stops the drained node's process once it has left. Each step the change
 * prints goes to the nemesis log.
 * <p>
 * One change at a time, and none while a member is down or joining ({@link MemoryNodeKills#whyNotChange()}); the
 * tier stays between the copies of each key (at least one member) and a bound on its members; a skipped strike is
 * logged with the reason. A node that left is never started again: with its id no member any more, it would register
 * as a founding member with what its data directory held before the drain.
 * <p>
 * A change that failed is ended as an operator would ({@link UnfinishedChanges}), and the turn passes from add to drain
 * only with a change that completed.
 */
public final class MemoryTierChanges
{
    /** The processes the changes run, in the cluster under test. */
    public interface Processes
    {
        /** @return a memory node of that id started with --join, once it serves. */
        Role startJoining(long nodeId);

        /** @return {@code memory-node --drain} for that id started, once it printed its first line. */
        RoleProcess startDrain(long nodeId);

        /** @return {@code meta change} with these arguments started, once it printed its first line. */
        RoleProcess startMetaChange(List<String> arguments);

        /** @return {@code memory-node --drive} started, once it printed its first line. */
        RoleProcess startDrive();

        /** @return how long after a phase began every client acts in it: the view lease and an operation's timeout. */
        long phaseGapMs();
    }

    /** How long a change may take before the nemesis gives up waiting for it: several times what one takes. */
    static final long CHANGE_TIMEOUT_MS = 180_000;

    /** How long a node asking to join may stay no member, the membership steady, before it counts as refused. */
    private static final long REFUSED_AFTER_MS = 10_000;
    private static final long POLL_MS = 200;
    private static final String ADDED = "added: ";
    /** How long the log of a node whose change the membership shows over may take to say so too. */
    private static final long LAST_WORD_MS = 10_000;

    private final MemoryNodeKills members;
    private final int replicas;
    private final int maxMembers;
    private final Processes processes;
    private final UnfinishedChanges unfinished;
    private final long lastNodeId;
    private final long originNanos;
    private final Consumer<String> log;
    private final List<Role> joined = new ArrayList<>();
    private final Set<Role> left = new HashSet<>();
    private long nextNodeId;
    private boolean lastWasAdd;

    /**
     * @param members     the memory nodes, members now, and when the tier may change.
     * @param maxMembers  members the tier may grow to.
     * @param processes   starts the memory nodes, drains and membership commands.
     * @param firstNodeId the first node id no memory node had.
     * @param lastNodeId  the last node id an added memory node may take.
     */
    public MemoryTierChanges(final MemoryNodeKills members, final int maxMembers, final Processes processes,
        final long firstNodeId, final long lastNodeId, final long originNanos, final Consumer<String> log)
    {
        this.members = members;
        this.replicas = members.replicas();
        this.maxMembers = maxMembers;
        this.processes = processes;
        this.unfinished = new UnfinishedChanges(members, processes, log);
        this.nextNodeId = firstNodeId;
        this.lastNodeId = lastNodeId;
        this.originNanos = originNanos;
        this.log = log;
    }

    /** @return changes of a cluster whose memory tier the nemesis does not change: there is nothing to add or drain. */
    public static MemoryTierChanges none()
    {
        return new MemoryTierChanges(MemoryNodeKills.none(), 0, null, 1, 0, 0, line -> { });
    }

    /** @return true when the tier can change: it has memory nodes the nemesis knows of. */
    boolean changes()
    {
        return !members.memoryNodes().isEmpty();
    }

    /**
     * @return where both changes are asked, the one to make next: an add after a drain and a drain after an add, so
     * that the tier grows and shrinks in turn; an add at the fewest members, a drain at the most.
     */
    synchronized String next()
    {
        final int count = members.memoryNodes().size();
        if (count >= maxMembers)
        {
            return DrainMemoryFault.NAME;
        }
        if (count <= Math.max(1, replicas))
        {
            return AddMemoryFault.NAME;
        }
        return lastWasAdd ? DrainMemoryFault.NAME : AddMemoryFault.NAME;
    }

    /** @return the memory nodes added and still members or running, for the nemesis's other strikes and its heal. */
    synchronized List<Role> joined()
    {
        return joined.stream().filter(node -> !left.contains(node)).toList();
    }

    /** @return true when the role is a memory node that left the tier (or was refused): it is not to run again. */
    synchronized boolean left(final Role role)
    {
        return left.contains(role);
    }

    /**
     * Add a memory node: start one with --join and wait until its change is done, logging each step.
     *
     * @return what happened, or null when it was skipped (logged with the reason).
     */
    NemesisEvent add()
    {
        final String why = whyNotAdd();
        if (why != null)
        {
            log.accept("nemesis: add-memory skipped: " + why);
            return null;
        }
        final long start = System.nanoTime() - originNanos;
        final long id;
        synchronized (this)
        {
            id = nextNodeId++;
        }
        final String name = CheckCluster.MEMORY_NODE + id;
        log.accept(String.format(Locale.ROOT, "nemesis: add-memory %s: starting it with --join (%d members, %d " +
            "cop%s of each key)", name, members.memoryNodes().size(), replicas, replicas == 1 ? "y" : "ies"));
        final Role node;
        try
        {
            node = processes.startJoining(id);
        }
        catch (final RuntimeException ex)
        {
            log.accept("nemesis: add-memory " + name + " did not start: " + ex.getMessage());
            unfinished.settle();
            return new NemesisEvent(AddMemoryFault.NAME, name, start, System.nanoTime() - originNanos,
                "did not start: " + firstLine(ex.getMessage()));
        }
        synchronized (this)
        {
            joined.add(node);
        }
        final String outcome = awaitJoin(node, id);
        log.accept("nemesis: add-memory " + name + " (process " + node.pid() + "): " + outcome);
        if (members.nodeId(node) == id && outcome.startsWith(ADDED))
        {
            synchronized (this)
            {
                lastWasAdd = true;
            }
        }
        else
        {
            unfinished.settle();
        }
        return new NemesisEvent(AddMemoryFault.NAME, name, start, System.nanoTime() - originNanos, outcome);
    }

    /**
     * Drain a member, one of them by {@code pick}: run the drain command, wait until it exits, and stop the node once
     * it has left, logging each step.
     *
     * @return what happened, or null when it was skipped (logged with the reason).
     */
    NemesisEvent drain(final int pick)
    {
        final String why = whyNotDrain();
        if (why != null)
        {
            log.accept("nemesis: drain-memory skipped: " + why);
            return null;
        }
        final List<Role> now = members.memoryNodes();
        final Role target = now.get(pick % now.size());
        final long id = members.nodeId(target);
        final long start = System.nanoTime() - originNanos;
        log.accept(String.format(Locale.ROOT, "nemesis: drain-memory %s (process %d): memory-node --drain %d (%d " +
            "members, %d cop%s of each key)", target, target.pid(), id, now.size(), replicas,
            replicas == 1 ? "y" : "ies"));
        final RoleProcess drain;
        try
        {
            drain = processes.startDrain(id);
        }
        catch (final RuntimeException ex)
        {
            log.accept("nemesis: drain-memory " + target + ": the drain did not start: " + ex.getMessage());
            unfinished.settle();
            return new NemesisEvent(DrainMemoryFault.NAME, target.name(), start, System.nanoTime() - originNanos,
                "the drain did not start: " + firstLine(ex.getMessage()));
        }
        final int exit = awaitExit(drain, target);
        final String outcome;
        if (exit == 0)
        {
            target.stop();
            members.left(target);
            synchronized (this)
            {
                left.add(target);
                lastWasAdd = false;
            }
            outcome = "left the memory tier (the drain exited 0); its process stopped";
        }
        else
        {
            outcome = "the drain exited with status " + exit + ", the node stays: " + lastLine(drain.log());
        }
        log.accept("nemesis: drain-memory " + target + ": " + outcome);
        if (exit != 0)
        {
            unfinished.settle();
            leftAfterAll(target, id);
        }
        return new NemesisEvent(DrainMemoryFault.NAME, target.name(), start, System.nanoTime() - originNanos, outcome);
    }

    private String whyNotAdd()
    {
        final int count = members.memoryNodes().size();
        if (count >= maxMembers)
        {
            return "the memory tier has " + count + " members, the most this run lets it have (--memory-nodes + 2)";
        }
        synchronized (this)
        {
            if (nextNodeId > lastNodeId)
            {
                return "node id " + nextNodeId + " is past " + lastNodeId + ", the last this run gives a memory " +
                    "node: a client reaches at most " + (lastNodeId - CheckCluster.FIRST_MEMORY_NODE_ID + 1) +
                    " memory nodes over its life";
            }
        }
        return members.whyNotChange();
    }

    private String whyNotDrain()
    {
        final int count = members.memoryNodes().size();
        if (count - 1 < Math.max(1, replicas))
        {
            return "draining one of the " + count + " member" + (count == 1 ? "" : "s") + " would leave " +
                (count - 1) + ", fewer than " + (replicas == 1 ? "one" : "the " + replicas + " copies of each key");
        }
        return members.whyNotChange();
    }

    /** @return how the join ended: added, refused, or not over in time; the node's steps logged as they come. */
    private String awaitJoin(final Role node, final long id)
    {
        final ProgressLines progress = new ProgressLines(node.log(), "nemesis: memory node " + id + ": ", log);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CHANGE_TIMEOUT_MS);
        long notMemberSince = 0;
        boolean interrupted = false;
        try
        {
            while (true)
            {
                progress.logNew();
                Membership now = null;
                try
                {
                    now = members.membership();
                }
                catch (final RuntimeException ex)
                {
                    // the MetaServer may be restarting: the change goes on without this read
                }
                if (now != null && now.phase() == Membership.STEADY && now.placement(id) == Membership.PLACED &&
                    now.state(id) == Membership.LIVE)
                {
                    // the node moves the membership to its end before it prints so: its last word, for the log
                    final long quiet = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LAST_WORD_MS);
                    while (!progress.ended() && System.nanoTime() < quiet)
                    {
                        interrupted |= pause();
                        progress.logNew();
                    }
                    members.joined(node, id);
                    return ADDED + "live and placed in membership epoch " + now.epoch() + ", " +
                        members.memoryNodes().size() + " members";
                }
                final boolean noMember = now != null && now.phase() == Membership.STEADY && now.state(id) == 0;
                notMemberSince = noMember ? (notMemberSince == 0 ? System.nanoTime() : notMemberSince) : 0;
                if (!node.isAlive() || (notMemberSince != 0 &&
                    System.nanoTime() - notMemberSince > TimeUnit.MILLISECONDS.toNanos(REFUSED_AFTER_MS)))
                {
                    progress.logNew();
                    node.stop();
                    synchronized (this)
                    {
                        left.add(node);
                    }
                    return "not added (" + (now == null ? "membership unread" : now.toString()) + "), its " +
                        "process stopped: " + lastLine(node.log());
                }
                if (System.nanoTime() > deadline)
                {
                    if (now != null && (now.phase() == Membership.HANDOVER || now.phase() == Membership.CLEANUP) &&
                        now.placement(id) != 0)
                    {
                        // placed after a change that only has to end: ended by hand, it is a member
                        members.joined(node, id);
                        return "not added within " + CHANGE_TIMEOUT_MS + " ms, its change past the switch: " + now;
                    }
                    node.stop();
                    synchronized (this)
                    {
                        left.add(node);
                    }
                    return "not added within " + CHANGE_TIMEOUT_MS + " ms (" + now + "), its process stopped";
                }
                interrupted |= pause();
            }
        }
        finally
        {
            restoreInterrupt(interrupted);
        }
    }

    /** @return the drain's exit status once it ended (killed past {@link #CHANGE_TIMEOUT_MS}); its steps logged. */
    private int awaitExit(final RoleProcess drain, final Role target)
    {
        final ProgressLines progress = new ProgressLines(drain.log(), "nemesis: drain of " + target + ": ", log);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CHANGE_TIMEOUT_MS);
        boolean interrupted = false;
        try
        {
            while (drain.isAlive() && System.nanoTime() < deadline)
            {
                progress.logNew();
                interrupted |= pause();
            }
            if (drain.isAlive())
            {
                log.accept("nemesis: drain of " + target + " did not end within " + CHANGE_TIMEOUT_MS + " ms; " +
                    "stopping it, its change left as it is");
            }
            final int exit = drain.stop(RoleProcess.EXIT_TIMEOUT_MS);
            progress.logNew();
            return exit;
        }
        finally
        {
            restoreInterrupt(interrupted);
        }
    }

    /** A drain that failed in cleanup and was ended by hand took the node out after all: its process is stopped. */
    private void leftAfterAll(final Role target, final long id)
    {
        try
        {
            final Membership now = unfinished.readSoon();
            if (now != null && now.phase() == Membership.STEADY && now.state(id) == 0)
            {
                target.stop();
                members.left(target);
                synchronized (this)
                {
                    left.add(target);
                    lastWasAdd = false;
                }
                log.accept("nemesis: drain-memory " + target + ": left the memory tier once its change was ended by " +
                    "hand; its process stopped");
            }
        }
        catch (final RuntimeException ex)
        {
            log.accept("nemesis: the membership could not be read to see whether " + target + " left: " + ex);
        }
    }

    /**
     * Waits between reads, through interrupts: the nemesis is stopped by one, and a change under way is waited for
     * rather than left half done; the interrupt is kept for after.
     *
     * @return true when it was interrupted.
     */
    static boolean pause()
    {
        try
        {
            Thread.sleep(POLL_MS);
            return false;
        }
        catch (final InterruptedException ex)
        {
            return true;
        }
    }

    static void restoreInterrupt(final boolean interrupted)
    {
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static String firstLine(final String text)
    {
        return text == null ? "" : text.lines().findFirst().orElse("");
    }

    private static String lastLine(final Path log)
    {
        final List<String> lines = ProgressLines.read(log);
        return lines.isEmpty() ? "(no output)" : lines.getLast();
    }
}
