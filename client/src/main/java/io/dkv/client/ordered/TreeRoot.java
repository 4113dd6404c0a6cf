package io.dkv.client.ordered;

/**
 * A tree's root node, height and element count, and the paths to its first and last elements, as its owner's header
 * holds them ({@link TreeRootLayout}).
 */
final class TreeRoot
{
    /** Levels of the end paths a header keeps: a tree of 4 KiB nodes is 5 levels deep at 10^9 small elements. */
    static final int PATH_LEVELS = 8;

    int root;
    int height;
    long count;
    /** The node numbers from the root down to the first leaf, and to the last: {@link #pathLevels} of each. */
    final int[] first = new int[PATH_LEVELS];
    final int[] last = new int[PATH_LEVELS];
    /** How many levels of {@link #first} and {@link #last} name the tree's end paths; 0: not known. */
    int pathLevels;

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

    /** @return the path to the last element ({@code last}) or the first. */
    int[] endPath(final boolean last)
    {
        return last ? this.last : first;
    }
}
