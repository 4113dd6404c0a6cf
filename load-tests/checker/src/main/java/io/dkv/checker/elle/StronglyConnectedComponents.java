package io.dkv.checker.elle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Tarjan's strongly connected components, iterative (its own call stack) so that a chain of a hundred thousand
 * transactions does not overflow the thread's stack.
 *
 * <p>One instance serves many searches over parts of the graph. Every component found gets a new number, never
 * reused, so a node's number from an earlier search never passes for membership in a later one.
 */
final class StronglyConnectedComponents
{
    private static final int ON_STACK = -1;

    private final DependencyGraph graph;
    private final int[] componentOf;
    private final int[] visitedIn;
    private final int[] order;
    private final int[] low;
    private final int[] nextEdge;
    private final int[] callStack;
    private final int[] stack;
    private int search;
    private int nextComponent;

    StronglyConnectedComponents(final DependencyGraph graph)
    {
        this.graph = graph;
        final int nodes = graph.nodeCount();
        componentOf = new int[nodes];
        visitedIn = new int[nodes];
        order = new int[nodes];
        low = new int[nodes];
        nextEdge = new int[nodes];
        callStack = new int[nodes];
        stack = new int[nodes];
        Arrays.fill(componentOf, ON_STACK);
    }

    /**
     * @param nodes    where to start.
     * @param edgeMask the dependency types to follow.
     * @param scope    a number per node (another instance's {@link #componentOf()}), or null for every node.
     * @param scopeId  the number of the nodes the search may enter, when a scope is given.
     * @return the components of two nodes or more; every node reached has its component's number in
     * {@link #componentOf()}.
     */
    List<int[]> find(final int[] nodes, final int edgeMask, final int[] scope, final int scopeId)
    {
        search++;
        final List<int[]> components = new ArrayList<>();
        int visits = 0;
        int stackSize = 0;
        for (final int root : nodes)
        {
            if (visitedIn[root] == search)
            {
                continue;
            }
            int calls = 0;
            visits = visit(root, visits);
            stack[stackSize++] = root;
            callStack[calls++] = root;
            while (calls > 0)
            {
                final int node = callStack[calls - 1];
                final int edge = nextEdge[node];
                if (edge < graph.firstEdge(node + 1))
                {
                    nextEdge[node] = edge + 1;
                    final int target = graph.target(edge);
                    if ((graph.type(edge) & edgeMask) == 0 || (scope != null && scope[target] != scopeId))
                    {
                        continue;
                    }
                    if (visitedIn[target] != search)
                    {
                        visits = visit(target, visits);
                        stack[stackSize++] = target;
                        callStack[calls++] = target;
                    }
                    else if (componentOf[target] == ON_STACK)
                    {
                        low[node] = Math.min(low[node], order[target]);
                    }
                }
                else
                {
                    calls--;
                    if (low[node] == order[node])
                    {
                        final int component = nextComponent++;
                        int bottom = stackSize - 1;
                        while (stack[bottom] != node)
                        {
                            bottom--;
                        }
                        for (int i = bottom; i < stackSize; i++)
                        {
                            componentOf[stack[i]] = component;
                        }
                        if (stackSize - bottom > 1)
                        {
                            components.add(Arrays.copyOfRange(stack, bottom, stackSize));
                        }
                        stackSize = bottom;
                    }
                    if (calls > 0)
                    {
                        final int caller = callStack[calls - 1];
                        low[caller] = Math.min(low[caller], low[node]);
                    }
                }
            }
        }
        return components;
    }

    private int visit(final int node, final int visits)
    {
        visitedIn[node] = search;
        order[node] = visits;
        low[node] = visits;
        nextEdge[node] = graph.firstEdge(node);
        componentOf[node] = ON_STACK;
        return visits + 1;
    }

    /** @return each node's component number from the searches so far; valid for the nodes the last search reached. */
    int[] componentOf()
    {
        return componentOf;
    }
}
