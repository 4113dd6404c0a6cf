package io.dkv.checker.elle;

import org.agrona.collections.IntArrayList;
import org.agrona.collections.LongArrayList;

/**
 * Dependencies between transactions as a compressed adjacency structure: the edges leaving node v are
 * {@code firstEdge(v)} to {@code firstEdge(v + 1) - 1}, each with a target, a type bit (see
 * {@link DependencyType}) and a reason: the key and the position in its version order that justify it.
 *
 * <p>Within a node, edges keep the order they were added in: data dependencies come before real-time ones, so
 * searches prefer them when both join the same pair.
 */
final class DependencyGraph
{
    static final int WW = DependencyType.WW.bit();
    static final int WR = DependencyType.WR.bit();
    static final int RW = DependencyType.RW.bit();
    static final int REALTIME = DependencyType.REALTIME.bit();
    static final int DATA = WW | WR | RW;
    static final int ALL = DATA | REALTIME;

    private final int nodeCount;
    private final int[] firstEdge;
    private final int[] targets;
    private final byte[] types;
    private final long[] reasons;

    private DependencyGraph(
        final int nodeCount, final int[] firstEdge, final int[] targets, final byte[] types, final long[] reasons)
    {
        this.nodeCount = nodeCount;
        this.firstEdge = firstEdge;
        this.targets = targets;
        this.types = types;
        this.reasons = reasons;
    }

    int nodeCount()
    {
        return nodeCount;
    }

    int firstEdge(final int node)
    {
        return firstEdge[node];
    }

    int target(final int edge)
    {
        return targets[edge];
    }

    int type(final int edge)
    {
        return types[edge];
    }

    /** @return the key of the edge's reason (see {@link Builder#add}). */
    int reasonKey(final int edge)
    {
        return (int)(reasons[edge] >>> 32);
    }

    /** @return the position in the key's version order of the edge's reason (see {@link Builder#add}). */
    int reasonPosition(final int edge)
    {
        return (int)reasons[edge];
    }

    /** Collects edges in any order, then lays them out by source. */
    static final class Builder
    {
        private final int nodeCount;
        private final IntArrayList sources = new IntArrayList();
        private final IntArrayList targets = new IntArrayList();
        private final IntArrayList types = new IntArrayList();
        private final LongArrayList reasons = new LongArrayList();

        Builder(final int nodeCount)
        {
            this.nodeCount = nodeCount;
        }

        /**
         * @param position for ww, the position of the source's element (the target's is next); for wr, the position
         *                 of the last element read; for rw, the position of the target's element (the source read the
         *                 elements before it); unused for real time.
         */
        void add(final int source, final int target, final int type, final int key, final int position)
        {
            sources.addInt(source);
            targets.addInt(target);
            types.addInt(type);
            reasons.addLong((long)key << 32 | (position & 0xFFFF_FFFFL));
        }

        int size()
        {
            return sources.size();
        }

        int source(final int edge)
        {
            return sources.getInt(edge);
        }

        DependencyGraph build()
        {
            final int edgeCount = sources.size();
            final int[] firstEdge = new int[nodeCount + 1];
            for (int edge = 0; edge < edgeCount; edge++)
            {
                firstEdge[sources.getInt(edge) + 1]++;
            }
            for (int node = 0; node < nodeCount; node++)
            {
                firstEdge[node + 1] += firstEdge[node];
            }
            final int[] next = new int[nodeCount];
            System.arraycopy(firstEdge, 0, next, 0, nodeCount);
            final int[] sortedTargets = new int[edgeCount];
            final byte[] sortedTypes = new byte[edgeCount];
            final long[] sortedReasons = new long[edgeCount];
            for (int edge = 0; edge < edgeCount; edge++)
            {
                final int slot = next[sources.getInt(edge)]++;
                sortedTargets[slot] = targets.getInt(edge);
                sortedTypes[slot] = (byte)types.getInt(edge);
                sortedReasons[slot] = reasons.getLong(edge);
            }
            return new DependencyGraph(nodeCount, firstEdge, sortedTargets, sortedTypes, sortedReasons);
        }
    }
}
