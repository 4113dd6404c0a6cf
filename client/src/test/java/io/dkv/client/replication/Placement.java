package io.dkv.client.replication;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One key's replicas before and after a membership change, each list head first. Nodes are numbered in the order
 * they first appear, those of the list before first; a node in the list after only is entering the placement (it
 * starts without the key), a node in the list before only is leaving it.
 */
final class Placement
{
    private final String[] names;
    private final int[] before;
    private final int[] after;
    private final int[] entering;
    private final int[] leaving;

    private Placement(final String[] names, final int[] before, final int[] after)
    {
        this.names = names;
        this.before = before;
        this.after = after;
        entering = Arrays.stream(after).filter(node -> !contains(before, node)).toArray();
        leaving = Arrays.stream(before).filter(node -> !contains(after, node)).toArray();
    }

    /**
     * @param before the node names before the change, head first, separated by spaces: "A X".
     * @param after  the node names after the change: "N A".
     */
    static Placement of(final String before, final String after)
    {
        final List<String> names = new ArrayList<>();
        final int[] beforeNodes = nodes(before, names);
        final int[] afterNodes = nodes(after, names);
        if (beforeNodes.length != afterNodes.length || names.size() > 4 || Arrays.equals(beforeNodes, afterNodes))
        {
            throw new IllegalArgumentException("not a move of one key's replicas: before [" + before +
                "] after [" + after + "]");
        }
        return new Placement(names.toArray(String[]::new), beforeNodes, afterNodes);
    }

    private static int[] nodes(final String list, final List<String> names)
    {
        final String[] split = list.trim().split(" +");
        final int[] nodes = new int[split.length];
        for (int i = 0; i < split.length; i++)
        {
            if (!names.contains(split[i]))
            {
                names.add(split[i]);
            }
            nodes[i] = names.indexOf(split[i]);
            for (int j = 0; j < i; j++)
            {
                if (nodes[j] == nodes[i])
                {
                    throw new IllegalArgumentException("node " + split[i] + " twice in [" + list + "]");
                }
            }
        }
        return nodes;
    }

    private static boolean contains(final int[] nodes, final int node)
    {
        return Arrays.stream(nodes).anyMatch(n -> n == node);
    }

    int nodes()
    {
        return names.length;
    }

    String name(final int node)
    {
        return names[node];
    }

    /** @return the replicas before the change, head first. */
    int[] before()
    {
        return before;
    }

    /** @return the replicas after the change, head first. */
    int[] after()
    {
        return after;
    }

    int[] entering()
    {
        return entering;
    }

    int[] leaving()
    {
        return leaving;
    }

    boolean isEntering(final int node)
    {
        return contains(entering, node);
    }

    @Override
    public String toString()
    {
        return list(before) + " -> " + list(after);
    }

    private String list(final int[] nodes)
    {
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < nodes.length; i++)
        {
            out.append(i == 0 ? "" : " ").append(names[nodes[i]]);
        }
        return out.append(']').toString();
    }
}
