package io.dkv.checker.elle;

import org.agrona.collections.IntArrayList;

/**
 * A cycle of the dependency graph: edge i leads from node i to node i + 1, the last edge back to node 0. An edge
 * may be {@link #REALTIME_ORDER}: not an edge of the graph but real-time order itself, which is transitive, so
 * that a run of real-time edges reads as one dependency.
 *
 * @param nodes the transactions in cycle order.
 * @param edges the edges, as indices into the graph or {@link #REALTIME_ORDER}.
 */
record Cycle(int[] nodes, int[] edges)
{
    static final int REALTIME_ORDER = -1;

    /** @param edges a closed walk of edges, the first leaving {@code start}. */
    static Cycle of(final DependencyGraph graph, final int start, final int[] edges)
    {
        final int[] nodes = new int[edges.length];
        nodes[0] = start;
        for (int i = 1; i < edges.length; i++)
        {
            nodes[i] = graph.target(edges[i - 1]);
        }
        return new Cycle(nodes, edges);
    }

    int type(final DependencyGraph graph, final int i)
    {
        return edges[i] == REALTIME_ORDER ? DependencyGraph.REALTIME : graph.type(edges[i]);
    }

    /** @return the cycle with each run of two or more real-time edges made one, starting after a data edge. */
    Cycle withRealtimeRunsJoined(final DependencyGraph graph)
    {
        final int length = nodes.length;
        int start = 0;
        while (start < length && type(graph, (start + length - 1) % length) == DependencyGraph.REALTIME)
        {
            start++;
        }
        if (start == length)
        {
            return this;
        }
        final IntArrayList joinedNodes = new IntArrayList(length, -1);
        final IntArrayList joinedEdges = new IntArrayList(length, -1);
        int i = 0;
        while (i < length)
        {
            final int at = (start + i) % length;
            joinedNodes.addInt(nodes[at]);
            if (type(graph, at) != DependencyGraph.REALTIME)
            {
                joinedEdges.addInt(edges[at]);
                i++;
                continue;
            }
            int run = 1;
            while (i + run < length && type(graph, (start + i + run) % length) == DependencyGraph.REALTIME)
            {
                run++;
            }
            joinedEdges.addInt(run == 1 ? edges[at] : REALTIME_ORDER);
            i += run;
        }
        return new Cycle(joinedNodes.toIntArray(), joinedEdges.toIntArray());
    }

    /** @return true when no transaction appears twice. */
    boolean isSimple()
    {
        for (int i = 0; i < nodes.length; i++)
        {
            for (int j = i + 1; j < nodes.length; j++)
            {
                if (nodes[i] == nodes[j])
                {
                    return false;
                }
            }
        }
        return true;
    }

    int count(final DependencyGraph graph, final int type)
    {
        int count = 0;
        for (int i = 0; i < edges.length; i++)
        {
            count += type(graph, i) == type ? 1 : 0;
        }
        return count;
    }

    /** @return the anomaly the cycle's dependency types make, Adya's classes after Elle's naming. */
    String anomaly(final DependencyGraph graph)
    {
        final int antiDependencies = count(graph, DependencyGraph.RW);
        final String name;
        if (antiDependencies == 0)
        {
            name = count(graph, DependencyGraph.WR) > 0 ? AnomalyNames.G1C : AnomalyNames.G0;
        }
        else
        {
            name = antiDependencies == 1 ? AnomalyNames.G_SINGLE : AnomalyNames.G2_ITEM;
        }
        return count(graph, DependencyGraph.REALTIME) > 0 ? name + AnomalyNames.REALTIME_SUFFIX : name;
    }
}
