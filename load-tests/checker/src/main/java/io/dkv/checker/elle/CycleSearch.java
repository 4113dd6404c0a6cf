package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Finds the cycles of the dependency graph, Elle's way: strongly connected components first, then within each
 * component a shortest cycle of each class in turn, from the strongest anomaly to the weakest: write-write only
 * (G0), write-write and write-read (G1c), exactly one anti-dependency (G-single), two or more (G2-item).
 *
 * <p>Cycles of data dependencies alone come first: they break serializability, whatever the model. Then, for
 * strict serializability, the cycles real-time order closes: a data dependency against real time (a transaction
 * depending on one that completed before it was invoked, a stale read for instance) is such a cycle by itself and
 * reported each time; the components of the whole graph no such cycle explains are searched as above.
 *
 * <p>Every cycle is named by the dependencies it takes; a component reports each name once. The searches for cycles
 * with anti-dependencies may give up on a huge component (a shared budget of edges examined), but every component
 * reports at least one cycle, so that a history with a cycle is never valid.
 */
final class CycleSearch
{
    private static final int[] NO_SCOPE = null;
    private static final int CLASSES = 4;

    private final DependencyGraph graph;
    private final Transactions transactions;
    private final boolean realtime;
    private final long edgeBudget;
    private final StronglyConnectedComponents components;
    private StronglyConnectedComponents parts;
    private PathFinder paths;

    CycleSearch(final DependencyGraph graph, final Transactions transactions, final boolean realtime,
        final long edgeBudget)
    {
        this.graph = graph;
        this.transactions = transactions;
        this.realtime = realtime;
        this.edgeBudget = edgeBudget;
        this.components = new StronglyConnectedComponents(graph);
    }

    /** Report each cycle found with the name of its anomaly. */
    void search(final BiConsumer<String, Cycle> sink)
    {
        final int[] allNodes = new int[graph.nodeCount()];
        for (int node = 0; node < allNodes.length; node++)
        {
            allNodes[node] = node;
        }
        final BitSet explained = new BitSet(allNodes.length);
        for (final int[] component : components.find(allNodes, DependencyGraph.DATA, NO_SCOPE, 0))
        {
            searchComponent(component, 0, DependencyGraph.DATA, sink);
            markAll(explained, component);
        }
        if (realtime)
        {
            findDependenciesAgainstRealtime(explained, sink);
            for (final int[] component : components.find(allNodes, DependencyGraph.ALL, NO_SCOPE, 0))
            {
                if (!anyMarked(explained, component))
                {
                    searchComponent(component, DependencyGraph.REALTIME, DependencyGraph.ALL, sink);
                }
            }
        }
    }

    /** A data dependency on a transaction that completed before the dependent one was invoked: a cycle of two. */
    private void findDependenciesAgainstRealtime(final BitSet explained, final BiConsumer<String, Cycle> sink)
    {
        for (int node = 0; node < graph.nodeCount(); node++)
        {
            final long invoked = transactions.operation(node).invoke().index();
            for (int edge = graph.firstEdge(node); edge < graph.firstEdge(node + 1); edge++)
            {
                final int target = graph.target(edge);
                if (graph.type(edge) != DependencyGraph.REALTIME && completion(target) < invoked &&
                    !joinedBefore(node, edge, target))
                {
                    final Cycle cycle = new Cycle(new int[]{node, target}, new int[]{edge, Cycle.REALTIME_ORDER});
                    sink.accept(cycle.anomaly(graph), cycle);
                    explained.set(node);
                    explained.set(target);
                }
            }
        }
    }

    /** @return true when an earlier data edge joins the same two transactions, reported already. */
    private boolean joinedBefore(final int node, final int edge, final int target)
    {
        for (int earlier = graph.firstEdge(node); earlier < edge; earlier++)
        {
            if (graph.target(earlier) == target && graph.type(earlier) != DependencyGraph.REALTIME)
            {
                return true;
            }
        }
        return false;
    }

    private long completion(final int node)
    {
        final Operation operation = transactions.operation(node);
        return operation.isIndeterminate() ? Long.MAX_VALUE : operation.completion().index();
    }

    private static void markAll(final BitSet marks, final int[] nodes)
    {
        for (final int node : nodes)
        {
            marks.set(node);
        }
    }

    private static boolean anyMarked(final BitSet marks, final int[] nodes)
    {
        for (final int node : nodes)
        {
            if (marks.get(node))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param extra        REALTIME to let the cycles take real-time edges, or 0.
     * @param fallbackMask the edges the component was found with, for a cycle when no class search found one.
     */
    private void searchComponent(
        final int[] component, final int extra, final int fallbackMask, final BiConsumer<String, Cycle> sink)
    {
        if (paths == null)
        {
            // most histories have no cycle: the search structures are built for the first component only
            parts = new StronglyConnectedComponents(graph);
            paths = new PathFinder(graph, edgeBudget);
        }
        final int[] scope = components.componentOf();
        final int scopeId = scope[component[0]];
        final List<String> found = new ArrayList<>(CLASSES);
        for (int cycleClass = 0; cycleClass < CLASSES; cycleClass++)
        {
            report(find(cycleClass, component, scope, scopeId, extra), found, sink);
        }
        if (found.isEmpty())
        {
            final int start = component[0];
            final int[] edges = paths.shortestPath(start, start, fallbackMask, 0, scope, scopeId, false);
            report(Cycle.of(graph, start, edges), found, sink);
        }
    }

    private void report(final Cycle found, final List<String> names, final BiConsumer<String, Cycle> sink)
    {
        if (found != null)
        {
            final Cycle cycle = found.withRealtimeRunsJoined(graph);
            final String anomaly = cycle.anomaly(graph);
            if (!names.contains(anomaly))
            {
                names.add(anomaly);
                sink.accept(anomaly, cycle);
            }
        }
    }

    private Cycle find(final int cycleClass, final int[] component, final int[] scope, final int scopeId,
        final int extra)
    {
        return switch (cycleClass)
        {
            case 0 -> cycleWithin(component, DependencyGraph.WW | extra, scope, scopeId);
            case 1 ->
                cycleThrough(component, DependencyGraph.WW | DependencyGraph.WR | extra, DependencyGraph.WR, scope,
                    scopeId);
            case 2 -> cycleWithOneAntiDependency(component, DependencyGraph.WW | DependencyGraph.WR | extra, scope,
                scopeId);
            default -> cycleWithAntiDependencies(component, DependencyGraph.DATA | extra, scope, scopeId);
        };
    }

    /** @return a cycle taking only edges of the mask, or null. */
    private Cycle cycleWithin(final int[] component, final int edgeMask, final int[] scope, final int scopeId)
    {
        final List<int[]> within = parts.find(component, edgeMask, scope, scopeId);
        if (within.isEmpty())
        {
            return null;
        }
        final int start = within.getFirst()[0];
        final int[] partOf = parts.componentOf();
        final int[] edges = paths.shortestPath(start, start, edgeMask, 0, partOf, partOf[start], false);
        return Cycle.of(graph, start, edges);
    }

    /** @return a cycle taking only edges of the mask, at least one of the required type, or null. */
    private Cycle cycleThrough(
        final int[] component, final int edgeMask, final int required, final int[] scope, final int scopeId)
    {
        final int[] partOf = parts.componentOf();
        for (final int[] part : parts.find(component, edgeMask, scope, scopeId))
        {
            for (final int node : part)
            {
                for (int edge = graph.firstEdge(node); edge < graph.firstEdge(node + 1); edge++)
                {
                    final int target = graph.target(edge);
                    if (graph.type(edge) == required && partOf[target] == partOf[node])
                    {
                        final int[] back = paths.shortestPath(target, node, edgeMask, 0, partOf, partOf[node], false);
                        return Cycle.of(graph, node, PathFinder.prepend(edge, back));
                    }
                }
            }
        }
        return null;
    }

    /**
     * @return a cycle of one anti-dependency and edges of the mask, or null. An anti-dependency within a component
     * of the mask's edges closes one at once; others need a path back that leaves that component, looked for
     * within the budget.
     */
    private Cycle cycleWithOneAntiDependency(
        final int[] component, final int edgeMask, final int[] scope, final int scopeId)
    {
        parts.find(component, edgeMask, scope, scopeId);
        final int[] partOf = parts.componentOf();
        for (final int node : component)
        {
            for (int edge = graph.firstEdge(node); edge < graph.firstEdge(node + 1); edge++)
            {
                final int target = graph.target(edge);
                if (graph.type(edge) == DependencyGraph.RW && partOf[target] == partOf[node])
                {
                    final int[] back = paths.shortestPath(target, node, edgeMask, 0, partOf, partOf[node], false);
                    return Cycle.of(graph, node, PathFinder.prepend(edge, back));
                }
            }
        }
        for (final int node : component)
        {
            for (int edge = graph.firstEdge(node); edge < graph.firstEdge(node + 1); edge++)
            {
                final int target = graph.target(edge);
                if (graph.type(edge) == DependencyGraph.RW && scope[target] == scopeId)
                {
                    final int[] back = paths.shortestPath(target, node, edgeMask, 0, scope, scopeId, true);
                    if (back != null)
                    {
                        return Cycle.of(graph, node, PathFinder.prepend(edge, back));
                    }
                }
            }
        }
        return null;
    }

    /** @return a simple cycle of edges of the mask with two anti-dependencies or more, or null (within the budget). */
    private Cycle cycleWithAntiDependencies(
        final int[] component, final int edgeMask, final int[] scope, final int scopeId)
    {
        for (final int node : component)
        {
            for (int edge = graph.firstEdge(node); edge < graph.firstEdge(node + 1); edge++)
            {
                final int target = graph.target(edge);
                if (graph.type(edge) == DependencyGraph.RW && scope[target] == scopeId)
                {
                    final int[] back =
                        paths.shortestPath(target, node, edgeMask, DependencyGraph.RW, scope, scopeId, true);
                    if (back != null)
                    {
                        final Cycle cycle = Cycle.of(graph, node, PathFinder.prepend(edge, back));
                        if (cycle.isSimple())
                        {
                            return cycle;
                        }
                    }
                }
            }
        }
        return null;
    }
}
