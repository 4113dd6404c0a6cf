package io.dkv.client.ordered;

import java.nio.ByteBuffer;

/**
 * Where a tree starts, as its owner's header holds it (16 bytes at an offset of the header):
 *
 * <pre>
 *   0  root    int   the root node's number, 0 when the tree is empty
 *   4  height  int   levels: 1 when the root is a leaf, 0 when empty
 *   8  count   long  elements
 *  16
 * </pre>
 */
public final class TreeRootLayout
{
    public static final int ROOT_OFFSET = 0;
    public static final int HEIGHT_OFFSET = 4;
    public static final int COUNT_OFFSET = 8;
    public static final int LENGTH = 16;

    private TreeRootLayout()
    {
    }

    static TreeRoot read(final ByteBuffer header, final int offset)
    {
        return new TreeRoot(header.getInt(offset + ROOT_OFFSET), header.getInt(offset + HEIGHT_OFFSET),
            header.getLong(offset + COUNT_OFFSET));
    }

    static void write(final ByteBuffer header, final int offset, final TreeRoot root)
    {
        header.putInt(offset + ROOT_OFFSET, root.root).putInt(offset + HEIGHT_OFFSET, root.height)
            .putLong(offset + COUNT_OFFSET, root.count);
    }
}
