package io.dkv.checker.elle;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Operation;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The graph machinery against brute force: components agree with mutual reachability, and the few real-time
 * edges still order every pair of transactions where one completed before the other was invoked.
 */
class DependencyGraphSearchTest
{
    @Test
    void componentsAreTheSetsOfMutuallyReachableTransactions()
    {
        final Random random = new Random(11);
        for (int round = 0; round < 50; round++)
        {
            final int nodes = 2 + random.nextInt(40);
            final DependencyGraph.Builder builder = new DependencyGraph.Builder(nodes);
            final int edges = random.nextInt(nodes * 2);
            for (int i = 0; i < edges; i++)
            {
                builder.add(random.nextInt(nodes), random.nextInt(nodes), DependencyGraph.WW, 0, 0);
            }
            final DependencyGraph graph = builder.build();
            final boolean[][] reaches = reachability(graph, DependencyGraph.ALL);
            final StronglyConnectedComponents components = new StronglyConnectedComponents(graph);
            final List<int[]> found = components.find(allNodes(nodes), DependencyGraph.ALL, null, 0);

            for (int u = 0; u < nodes; u++)
            {
                for (int v = 0; v < nodes; v++)
                {
                    final boolean together = components.componentOf()[u] == components.componentOf()[v];
                    assertEquals(u == v || (reaches[u][v] && reaches[v][u]), together,
                        "round " + round + ": " + u + ", " + v);
                }
            }
            for (final int[] component : found)
            {
                assertTrue(component.length > 1);
            }
        }
    }

    @Test
    void realtimeEdgesOrderEveryTransactionCompletedBeforeAnotherWasInvoked()
    {
        final History history = new ListAppendHistoryGenerator()
            .seed(12).transactions(400).keys(5).processes(6).failFraction(0.1).infoFraction(0.1).generate();
        final Transactions transactions = Transactions.of(history);
        final DependencyGraph.Builder builder = new DependencyGraph.Builder(transactions.count());
        RealtimeDependencies.add(history, transactions, builder);
        final DependencyGraph graph = builder.build();

        final boolean[][] reaches = reachability(graph, DependencyGraph.REALTIME);
        for (int a = 0; a < transactions.count(); a++)
        {
            for (int b = 0; b < transactions.count(); b++)
            {
                final Operation first = transactions.operation(a);
                final Operation second = transactions.operation(b);
                final boolean precedes = first.isOk() && !second.isFail() &&
                    first.completion().index() < second.invoke().index();
                assertEquals(precedes, reaches[a][b], first + " then " + second);
            }
        }
        assertTrue(builder.size() <= transactions.count() * 6, "real-time edges: " + builder.size());
    }

    private static int[] allNodes(final int count)
    {
        final int[] nodes = new int[count];
        for (int node = 0; node < count; node++)
        {
            nodes[node] = node;
        }
        return nodes;
    }

    /** @return for each pair, whether a path of one edge or more leads from the first to the second. */
    private static boolean[][] reachability(final DependencyGraph graph, final int edgeMask)
    {
        final int nodes = graph.nodeCount();
        final boolean[][] reaches = new boolean[nodes][nodes];
        for (int start = 0; start < nodes; start++)
        {
            final ArrayDeque<Integer> queue = new ArrayDeque<>();
            queue.add(start);
            while (!queue.isEmpty())
            {
                final int node = queue.poll();
                for (int edge = graph.firstEdge(node); edge < graph.firstEdge(node + 1); edge++)
                {
                    final int target = graph.target(edge);
                    if ((graph.type(edge) & edgeMask) != 0 && !reaches[start][target])
                    {
                        reaches[start][target] = true;
                        queue.add(target);
                    }
                }
            }
        }
        return reaches;
    }
}
