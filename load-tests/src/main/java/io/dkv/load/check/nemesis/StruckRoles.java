package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;

import java.util.HashSet;
import java.util.Set;

/**
 * The roles under a fault now, shared by the nemeses of a run that strikes several at once ({@code --faults-at-once}):
 * no role is struck by two faults together, and where keys have several copies no memory node is struck while another
 * one is (the membership, which says the same, lags a kill by the node's lease).
 */
final class StruckRoles
{
    private final Set<Role> struck = new HashSet<>();
    private final boolean copies;
    private Role memoryNode;

    /** @param copies true when keys have several copies: memory nodes are then struck one at a time. */
    StruckRoles(final boolean copies)
    {
        this.copies = copies;
    }

    /**
     * @param isMemoryNode whether the target is a memory node.
     * @return null when the target is now the caller's to strike; else why not.
     */
    synchronized String take(final Role target, final boolean isMemoryNode)
    {
        if (struck.contains(target))
        {
            return "another fault holds it";
        }
        if (isMemoryNode && copies && memoryNode != null)
        {
            return "another fault holds " + memoryNode + ", and a key keeps no more than one copy down";
        }
        struck.add(target);
        if (isMemoryNode)
        {
            memoryNode = target;
        }
        return null;
    }

    synchronized void release(final Role target)
    {
        struck.remove(target);
        if (target == memoryNode)
        {
            memoryNode = null;
        }
    }
}
