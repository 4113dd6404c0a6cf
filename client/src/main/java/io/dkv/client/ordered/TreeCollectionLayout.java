package io.dkv.client.ordered;

import java.nio.ByteBuffer;

/**
 * The header of a sorted set or a list: the value at its key (kind {@code ValueKind.ZSET} or {@code LIST}), which
 * names its trees' nodes and where each tree starts. Every change of the value writes it, so that a reader checks
 * the header alone to know that the nodes it read are of one instant.
 *
 * <pre>
 *   0  generation  long  drawn at random when the value was made, never 0: its nodes' keys carry it
 *   8  next node   int   the first node number none of its nodes has had (numbers are never used twice)
 *  12  trees       int   how many trees follow: a sorted set 2 (by score, by member), a list 1
 *  16  changes     long  how many changes it has had: every node written is stamped with it ({@link TreeNodeLayout})
 *  24  tree 0      80 bytes ({@link TreeRootLayout})
 *  104 tree 1      ...  (a sorted set's)
 *  104 end buffers      a list's first and last elements ({@link ListEndsLayout}), to the value's end
 * </pre>
 */
public final class TreeCollectionLayout
{
    public static final int GENERATION_OFFSET = 0;
    public static final int NEXT_NODE_OFFSET = 8;
    public static final int TREES_OFFSET = 12;
    public static final int CHANGES_OFFSET = 16;
    public static final int FIRST_TREE_OFFSET = 24;

    private TreeCollectionLayout()
    {
    }

    /** @return the bytes of a header of {@code trees} trees. */
    public static int length(final int trees)
    {
        return FIRST_TREE_OFFSET + trees * TreeRootLayout.LENGTH;
    }

    static byte[] encode(final long generation, final int nextNode, final long changes, final TreeRoot[] trees,
        final ListEnds ends)
    {
        final int length = length(trees.length);
        final ByteBuffer buffer = ByteBuffer.allocate(length + (ends == null ? 0 : ends.length()));
        if (ends != null)
        {
            ListEndsLayout.write(buffer, length, ends.head, ends.tail);
        }
        buffer.putLong(GENERATION_OFFSET, generation).putInt(NEXT_NODE_OFFSET, nextNode)
            .putInt(TREES_OFFSET, trees.length).putLong(CHANGES_OFFSET, changes);
        for (int i = 0; i < trees.length; i++)
        {
            TreeRootLayout.write(buffer, FIRST_TREE_OFFSET + i * TreeRootLayout.LENGTH, trees[i]);
        }
        return buffer.array();
    }

    /** @return a copy of the header naming another generation: a copy of the value (a rename keeps it). */
    public static byte[] withGeneration(final byte[] header, final long generation)
    {
        final byte[] copy = header.clone();
        ByteBuffer.wrap(copy).putLong(GENERATION_OFFSET, generation);
        return copy;
    }
}
