package io.dkv.load.check.harness;

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
 */
final class MemoryNodeKills
{
    private final Map<Role, Long> nodeIds;
    private final int replicas;
    private final Supplier<Membership> membership;

    /**
     * @param nodeIds    the memory nodes' roles and their node ids.
     * @param replicas   copies of each key the cluster keeps.
     * @param membership reads the membership anew; it may throw when it cannot.
     */
    MemoryNodeKills(final Map<Role, Long> nodeIds, final int replicas, final Supplier<Membership> membership)
    {
        this.nodeIds = new LinkedHashMap<>(nodeIds);
        this.replicas = replicas;
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

    /** @return the memory nodes, in the order given. */
    List<Role> memoryNodes()
    {
        return new ArrayList<>(nodeIds.keySet());
    }

    int replicas()
    {
        return replicas;
    }

    /**
     * @return null when {@code target} may be killed now; else why not, with the membership that says so. Roles
     * other than memory nodes, and any role while keys have one copy, may always be killed.
     */
    String whyNot(final Role target)
    {
        if (replicas < 2 || !nodeIds.containsKey(target))
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
        for (final Map.Entry<Role, Long> node : nodeIds.entrySet())
        {
            if (!now.serves(node.getValue()))
            {
                final int state = now.state(node.getValue());
                return node.getKey() + " is " + (state == 0 ? "no member" : Membership.stateName(state)) +
                    " in membership epoch " + now.epoch() + ": no memory node is killed until every one is live " +
                    "again, so that no key loses more than one of its " + replicas + " copies";
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
            final int state = now.state(nodeIds.get(memoryNode));
            return (state == 0 ? "no member" : Membership.stateName(state)) + " in membership epoch " + now.epoch();
        }
        catch (final RuntimeException ex)
        {
            return "of a state unknown (the membership could not be read: " + ex + ")";
        }
    }
}
