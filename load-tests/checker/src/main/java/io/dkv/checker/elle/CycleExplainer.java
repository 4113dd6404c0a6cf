package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a cycle of the graph into a witness: its transactions labelled T1, T2, ... in cycle order, and each
 * dependency with the key, element and lists that justify it.
 */
final class CycleExplainer
{
    private final Transactions transactions;
    private final VersionOrders orders;
    private final DependencyGraph graph;

    CycleExplainer(final Transactions transactions, final VersionOrders orders, final DependencyGraph graph)
    {
        this.transactions = transactions;
        this.orders = orders;
        this.graph = graph;
    }

    Witness witness(final String anomaly, final Cycle cycle)
    {
        final int[] nodes = cycle.nodes();
        final List<Operation> members = new ArrayList<>(nodes.length);
        final StringBuilder text = new StringBuilder(256).append(summary(anomaly, cycle)).append('\n');
        for (int i = 0; i < nodes.length; i++)
        {
            final Operation member = transactions.operation(nodes[i]);
            members.add(member);
            text.append("  ").append(Describe.label(i + 1, member)).append(": ").append(Describe.transaction(member))
                .append('\n');
        }
        final List<Dependency> dependencies = new ArrayList<>(nodes.length);
        for (int i = 0; i < nodes.length; i++)
        {
            final int next = (i + 1) % nodes.length;
            final Dependency dependency = dependency(cycle, i, i + 1, members.get(i), next + 1, members.get(next));
            dependencies.add(dependency);
            text.append("  T").append(i + 1).append(" -").append(dependency.type().shortName()).append("-> T")
                .append(next + 1)
                .append(": ").append(dependency.explanation()).append(i + 1 < nodes.length ? "\n" : "");
        }
        return new Witness(anomaly, members, dependencies, text.toString());
    }

    private String summary(final String anomaly, final Cycle cycle)
    {
        final int antiDependencies = cycle.count(graph, DependencyGraph.RW);
        final String kind;
        if (antiDependencies == 0)
        {
            kind = cycle.count(graph, DependencyGraph.WR) == 0 ?
                "write-write dependencies" : "write-write and write-read dependencies";
        }
        else
        {
            kind = antiDependencies == 1 ? "exactly one anti-dependency" : antiDependencies + " anti-dependencies";
        }
        final boolean realtime = cycle.count(graph, DependencyGraph.REALTIME) > 0;
        return anomaly + ": a cycle of " + cycle.nodes().length + " transactions with " + kind +
            (realtime ? ", closed by real-time order (not strictly serializable, though perhaps serializable)" : "") +
            ":";
    }

    private Dependency dependency(
        final Cycle cycle, final int index, final int fromNumber, final Operation from, final int toNumber,
        final Operation to)
    {
        final String fromLabel = Describe.label(fromNumber, from);
        final String toLabel = Describe.label(toNumber, to);
        final int edge = cycle.edges()[index];
        final DependencyType type = DependencyType.ofBit(cycle.type(graph, index));
        if (type == DependencyType.REALTIME)
        {
            return new Dependency(from, to, type, null, null,
                fromLabel + " completed at " + from.completeTime() + " before " +
                toLabel + " was invoked at " + to.invokeTime() + " (realtime)");
        }
        final String key = transactions.keyName(graph.reasonKey(edge));
        final long[] order = orders.order(graph.reasonKey(edge));
        final int position = graph.reasonPosition(edge);
        return switch (type)
        {
            case WW -> new Dependency(from, to, type, key, order[position + 1],
                toLabel + " appended " + order[position + 1] + " to " + key + " right after " + fromLabel +
                " appended " + order[position] + " (ww on " + key + ")");
            case WR -> new Dependency(from, to, type, key, order[position],
                toLabel + " read " + key + " = " + Describe.prefix(order, position + 1) + ", ending at " +
                order[position] +
                ", which " + fromLabel + " appended (wr on " + key + ")");
            default -> new Dependency(from, to, type, key, order[position],
                fromLabel + " read " + key + (position == 0 ? " empty" : " = " + Describe.prefix(order, position)) +
                " and " + toLabel + " appended " + order[position] +
                (position == 0 ? ", its first element" : ", the next element") +
                " (rw on " + key + ")");
        };
    }
}
