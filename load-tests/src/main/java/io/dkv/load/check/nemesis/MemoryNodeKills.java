package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;
import io.dkv.raas.Membership;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * When the nemesis may kill a memory node of a cluster that keeps several copies of each key: only
 * while every memory node serves its copies. A node down (its lease ran out) or still joining
 * (restarted, its copies being refilled) holds no copy that is read, so killing a second one could
 * take every copy of a key at two per key, a fault the store does not claim to survive. The joining
 * node itself is spared too: killed again before its refill ends, it would never serve, and the
 * kill that matters comes after, when its refilled copies are the only ones some keys have. With
 * one copy per key there is nothing to guard: a killed memory node restarts from its data directory.
 * <p>
 * Where the nemesis adds and drains memory nodes ({@link MemoryTierChanges}), the memory nodes are
 * the members of the moment, and no memory node is killed, whatever the copies, while a membership
 * change runs: the node that drives it would die with it, and the change would stay half done. A
 * change itself waits for the same as a kill, every member live and no other change running.
 */
public final class MemoryNodeKills
{
    private final Map<Role, Long> nodeIds;
    private final int replicas;
    private final boolean changes;
    private final Supplier<Membership> membership;

    /**
     * @param nodeIds    the memory nodes' roles and their node ids.
     * @param replicas   copies of each key the cluster keeps.
     * @param membership reads the membership anew; it may throw when it cannot.
     */
    MemoryNodeKills(final Map<Role, Long> nodeIds, final int replicas, final Supplier<Membership> membership)
    {
        this(nodeIds, replicas, false, membership);
    }

    /**
     * @param changes true where the nemesis adds or drains memory nodes: no memory node is then killed while a change
     *                runs, even at one copy.
     */
    public MemoryNodeKills(final Map<Role, Long> nodeIds, final int replicas, final boolean changes,
        final Supplier<Membership> membership)
    {
        this.nodeIds = new LinkedHashMap<>(nodeIds);
        this.replicas = replicas;
        this.changes = changes;
        this.membership = membership;
    }

    /** @return the guard of a cluster without memory nodes to kill on purpose: it never refuses. */
    static MemoryNodeKills none()
    {
        return new MemoryNodeKills(Map.of(), 1, () ->
        {
            throw new IllegalStateException("no membership to read");
        });
    }

    /** @return the memory nodes that are members now, in the order they came. */
    synchronized List<Role> memoryNodes()
    {
        return new ArrayList<>(nodeIds.keySet());
    }

    /** @return the node id of a memory node, or 0 when it is none of them. */
    synchronized long nodeId(final Role memoryNode)
    {
        return nodeIds.getOrDefault(memoryNode, 0L);
    }

    /** A memory node joined the memory tier: it is guarded, and may be struck, as the others. */
    synchronized void joined(final Role memoryNode, final long nodeId)
    {
        nodeIds.put(memoryNode, nodeId);
    }

    /** A memory node left the memory tier: it is no member to wait for, and nothing strikes it again. */
    synchronized void left(final Role memoryNode)
    {
        nodeIds.remove(memoryNode);
    }

    int replicas()
    {
        return replicas;
    }

    /**
     * @return null when {@code target} may be killed now; else why not, with the membership that says so. Roles
     * other than memory nodes, and any role while keys have one copy and no membership change is made, may always be
     * killed.
     */
    String whyNot(final Role target)
    {
        if ((replicas < 2 && !changes) || nodeId(target) == 0)
        {
            return null;
        }
        final Membership now;
        try
        {
            now = membership.get();
        }
        catch (final RuntimeException ex)
        {
            return "the membership could not be read to see that the other memory nodes serve (" + ex + ")";
        }
        if (now.phase() != Membership.STEADY)
        {
            return changeRuns(now) + ": no memory node is killed until it ends";
        }
        return replicas < 2 ? null : notServing(now, "no memory node is killed until every one is live again, so " +
            "that no key loses more than one of its " + replicas + " copies");
    }

    /**
     * @return null when a memory node may be added or drained now; else why not: a change runs, or a member is down or
     * joining (its copies, or those a change would copy from it, are not all there).
     */
    String whyNotChange()
    {
        final Membership now;
        try
        {
            now = membership.get();
        }
        catch (final RuntimeException ex)
        {
            return "the membership could not be read to see that no change runs (" + ex + ")";
        }
        if (now.phase() != Membership.STEADY)
        {
            return changeRuns(now) + ": one change at a time";
        }
        return notServing(now, "no memory node is added or drained until every member is live again");
    }

    private static String changeRuns(final Membership now)
    {
        return "a membership change is in its " + Membership.phaseName(now.phase()) + " phase in membership epoch " +
            now.epoch();
    }

    private String notServing(final Membership now, final String rule)
    {
        for (final Role node : memoryNodes())
        {
            final long id = nodeId(node);
            if (id != 0 && !now.serves(id))
            {
                final int state = now.state(id);
                return node + " is " + (state == 0 ? "no member" : Membership.stateName(state)) +
                    " in membership epoch " + now.epoch() + ": " + rule;
            }
        }
        return null;
    }

    /** @return the memory node's state as the membership says now, e.g. "down in membership epoch 4", for the log. */
    String describe(final Role memoryNode)
    {
        try
        {
            final Membership now = membership.get();
            final int state = now.state(nodeId(memoryNode));
            return (state == 0 ? "no member" : Membership.stateName(state)) + " in membership epoch " + now.epoch();
        }
        catch (final RuntimeException ex)
        {
            return "of a state unknown (the membership could not be read: " + ex + ")";
        }
    }

    /** @return the membership read anew; it throws when it cannot be read now. */
    Membership membership()
    {
        return membership.get();
    }
}
