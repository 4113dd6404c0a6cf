package io.dkv.client.ordered;

/** A tree's root node, height and element count, as its owner's header holds them ({@link TreeRootLayout}). */
final class TreeRoot
{
    int root;
    int height;
    long count;

    TreeRoot(final int root, final int height, final long count)
    {
        this.root = root;
        this.height = height;
        this.count = count;
    }

    static TreeRoot empty()
    {
        return new TreeRoot(0, 0, 0);
    }
}
