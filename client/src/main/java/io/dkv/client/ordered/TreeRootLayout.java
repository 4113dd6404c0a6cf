package io.dkv.client.ordered;

import java.nio.ByteBuffer;

/**
 * Where a tree starts, as its owner's header holds it (80 bytes at an offset of the header): the root, and the
 * numbers of the nodes from the root down to the first leaf and to the last, so that a push or pop at either end
 * reads its path in one round trip instead of one a level (client/README.md, "Sorted sets and lists").
 *
 * <pre>
 *   0  root    int      the root node's number, 0 when the tree is empty
 *   4  height  int      levels: 1 when the root is a leaf, 0 when empty
 *   8  count   long     elements
 *  16  first   8 ints   the path to the first leaf, root first; all 0 when the tree is deeper than 8 levels
 *  48  last    8 ints   the path to the last leaf, likewise
 *  80
 * </pre>
 */
public final class TreeRootLayout
{
    public static final int ROOT_OFFSET = 0;
    public static final int HEIGHT_OFFSET = 4;
    public static final int COUNT_OFFSET = 8;
    public static final int FIRST_PATH_OFFSET = 16;
    public static final int LAST_PATH_OFFSET = FIRST_PATH_OFFSET + TreeRoot.PATH_LEVELS * Integer.BYTES;
    public static final int LENGTH = LAST_PATH_OFFSET + TreeRoot.PATH_LEVELS * Integer.BYTES;

    private TreeRootLayout()
    {
    }

    static TreeRoot read(final ByteBuffer header, final int offset)
    {
        final TreeRoot root = new TreeRoot(header.getInt(offset + ROOT_OFFSET), header.getInt(offset + HEIGHT_OFFSET),
            header.getLong(offset + COUNT_OFFSET));
        for (int level = 0; level < TreeRoot.PATH_LEVELS; level++)
        {
            root.first[level] = header.getInt(offset + FIRST_PATH_OFFSET + level * Integer.BYTES);
            root.last[level] = header.getInt(offset + LAST_PATH_OFFSET + level * Integer.BYTES);
        }
        final boolean known = root.height > 0 && root.height <= TreeRoot.PATH_LEVELS &&
            root.first[0] == root.root && root.last[0] == root.root;
        root.pathLevels = known ? root.height : 0;
        return root;
    }

    static void write(final ByteBuffer header, final int offset, final TreeRoot root)
    {
        header.putInt(offset + ROOT_OFFSET, root.root).putInt(offset + HEIGHT_OFFSET, root.height)
            .putLong(offset + COUNT_OFFSET, root.count);
        for (int level = 0; level < TreeRoot.PATH_LEVELS; level++)
        {
            final boolean named = level < root.pathLevels;
            header.putInt(offset + FIRST_PATH_OFFSET + level * Integer.BYTES, named ? root.first[level] : 0);
            header.putInt(offset + LAST_PATH_OFFSET + level * Integer.BYTES, named ? root.last[level] : 0);
        }
    }
}
