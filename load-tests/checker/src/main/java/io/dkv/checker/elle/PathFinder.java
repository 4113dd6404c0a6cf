package io.dkv.checker.elle;

/**
 * Breadth-first searches for shortest paths, so that witnesses are as short as the graph allows.
 *
 * <p>A search may require the path to take at least one edge of a given type: it then runs over states
 * (node, taken yet), two per node. Searches over large components can be given a shared budget of edges to
 * examine, so that looking for a rarer kind of cycle cannot run away on a badly broken history.
 */
final class PathFinder
{
    private final DependencyGraph graph;
    private final int[] seenIn;
    private final int[] parentState;
    private final int[] parentEdge;
    private final int[] queue;
    private int search;
    private long budget;

    PathFinder(final DependencyGraph graph, final long budget)
    {
        this.graph = graph;
        this.budget = budget;
        final int states = graph.nodeCount() * 2;
        seenIn = new int[states];
        parentState = new int[states];
        parentEdge = new int[states];
        queue = new int[states];
    }

    /**
     * @param from     where the path starts.
     * @param to       where it ends; equal to {@code from} for a cycle through it.
     * @param edgeMask the dependency types it may take.
     * @param required a dependency type it must take at least once, or 0.
     * @param scope    a number per node, the path staying on nodes numbered {@code scopeId}.
     * @param budgeted true to count the edges examined against the budget, and give up once it is spent.
     * @return the edges of a shortest such path, or null when there is none (or the budget ran out).
     */
    int[] shortestPath(
        final int from,
        final int to,
        final int edgeMask,
        final int required,
        final int[] scope,
        final int scopeId,
        final boolean budgeted)
    {
        if (budgeted && budget <= 0)
        {
            return null;
        }
        search++;
        final int start = from << 1;
        final int goal = to << 1 | (required == 0 ? 0 : 1);
        seenIn[start] = search;
        int head = 0;
        int tail = 0;
        queue[tail++] = start;
        while (head < tail)
        {
            final int state = queue[head++];
            final int node = state >>> 1;
            final int end = graph.firstEdge(node + 1);
            for (int edge = graph.firstEdge(node); edge < end; edge++)
            {
                final int type = graph.type(edge);
                final int target = graph.target(edge);
                if ((type & edgeMask) == 0 || scope[target] != scopeId)
                {
                    continue;
                }
                if (budgeted && --budget <= 0)
                {
                    return null;
                }
                final int next = target << 1 | (state & 1) | ((type & required) != 0 ? 1 : 0);
                if (next == goal)
                {
                    return edges(start, state, edge);
                }
                if (seenIn[next] != search)
                {
                    seenIn[next] = search;
                    parentState[next] = state;
                    parentEdge[next] = edge;
                    queue[tail++] = next;
                }
            }
        }
        return null;
    }

    private int[] edges(final int start, final int last, final int finalEdge)
    {
        int length = 1;
        for (int state = last; state != start; state = parentState[state])
        {
            length++;
        }
        final int[] edges = new int[length];
        edges[length - 1] = finalEdge;
        int i = length - 2;
        for (int state = last; state != start; state = parentState[state])
        {
            edges[i--] = parentEdge[state];
        }
        return edges;
    }

    /** @return the edge, then the path: a closed walk when the path leads back to the edge's source. */
    static int[] prepend(final int first, final int[] path)
    {
        final int[] edges = new int[path.length + 1];
        edges[0] = first;
        System.arraycopy(path, 0, edges, 1, path.length);
        return edges;
    }
}
