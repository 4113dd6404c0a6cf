package io.dkv.checker.elle;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;
import org.agrona.collections.IntArrayList;

import java.util.Arrays;
import java.util.List;

/**
 * Real-time order as few edges as keep its transitive closure: T1 precedes T2 when T1 completed before T2 was
 * invoked, and instead of every such pair, each invocation gets an edge from each transaction of the frontier.
 *
 * <p>The frontier holds the completed transactions no completed transaction follows yet. When a transaction
 * completes, it replaces in the frontier those it followed (the frontier at its invocation): they still reach
 * every later transaction through it. The frontier's members overlap each other in time, so it holds no more
 * transactions than ran at once, and the edges stay near-linear in the history's length.
 */
final class RealtimeDependencies
{
    private RealtimeDependencies()
    {
    }

    static void add(final History history, final Transactions transactions, final DependencyGraph.Builder graph)
    {
        final List<Op> ops = history.ops();
        final int[] transactionOfOp = new int[ops.size()];
        Arrays.fill(transactionOfOp, -1);
        for (int transaction = 0; transaction < transactions.count(); transaction++)
        {
            final Operation operation = transactions.operation(transaction);
            if (!operation.isFail())
            {
                transactionOfOp[(int)operation.invoke().index()] = transaction;
                if (operation.completion() != null)
                {
                    transactionOfOp[(int)operation.completion().index()] = transaction;
                }
            }
        }

        final int[] firstPredecessorEdge = new int[transactions.count()];
        final int[] endPredecessorEdge = new int[transactions.count()];
        final IntArrayList frontier = new IntArrayList();
        for (int index = 0; index < transactionOfOp.length; index++)
        {
            final int transaction = transactionOfOp[index];
            if (transaction < 0)
            {
                continue;
            }
            final Op op = ops.get(index);
            if (op.isInvoke())
            {
                firstPredecessorEdge[transaction] = graph.size();
                for (int i = 0; i < frontier.size(); i++)
                {
                    graph.add(frontier.getInt(i), transaction, DependencyGraph.REALTIME, 0, 0);
                }
                endPredecessorEdge[transaction] = graph.size();
            }
            else if (op.type() == OpType.OK)
            {
                for (int edge = firstPredecessorEdge[transaction]; edge < endPredecessorEdge[transaction]; edge++)
                {
                    frontier.fastUnorderedRemoveInt(graph.source(edge));
                }
                frontier.addInt(transaction);
            }
        }
    }
}
