package io.dkv.client.ordered;

/**
 * One node of an ordered keyspace's index ({@link KeyIndex}), a B-link tree: the value of the reserved key
 * {@code ReservedKeys.segmentKey(node id, INDEX_NODE)}, kind {@code SEGMENT}.
 *
 * <pre>
 *   0  type         byte     {@link TreeNodeLayout#LEAF} or {@link TreeNodeLayout#INNER}
 *   1  spare        3 bytes  0
 *   4  entries      int      how many entries follow the high key
 *   8  right        long     the id of its right neighbour at its level, 0 for the last
 *  16  high length  int      -1 when it has no high key (the last at its level)
 *  20  high key     the least key above every key it may hold
 *  20 + n: entries, each:
 *        a leaf's:         keyLength int | key
 *        an inner node's:  child long | keyLength int | key   (entry 0's key empty: the node's own low end)
 * </pre>
 *
 * A node holds the keys from its left neighbour's high key (or the least key) up to its own high key, and names its
 * right neighbour, as Lehman and Yao's B-link tree: a walk that reaches a node from a parent read before the node
 * split finds its key at or past the high key and moves right.
 */
public final class IndexNodeLayout
{
    public static final int TYPE_OFFSET = 0;
    public static final int ENTRIES_OFFSET = 4;
    public static final int RIGHT_OFFSET = 8;
    public static final int HIGH_LENGTH_OFFSET = 16;
    public static final int HIGH_OFFSET = 20;
    /** The high key's length of the last node at its level. */
    public static final int NO_HIGH = -1;
    public static final int LEAF_ENTRY_HEADER = Integer.BYTES;
    public static final int INNER_ENTRY_HEADER = Long.BYTES + Integer.BYTES;

    private IndexNodeLayout()
    {
    }
}
