package io.dkv.client.keyspace;

/**
 * The cursor of a key scan: where in the memory nodes' indexes the next step starts, and under which membership.
 * A plain number, as redis's (a client keeps it as text and hands it back to any compute node), never negative as a
 * Java long, and 0 only at the start and the end.
 *
 * <pre>
 *   63      0
 *   62      1: a scan in progress (so no position of one reads as 0)
 *   61..50  epoch tag   the low 12 bits of the membership epoch the scan runs under
 *   49..43  node        the memory node's rank among the scanned nodes, by node id
 *   42..27  subtable    the subtable's index in that node's index region
 *   26..0   group       the bucket group within the subtable
 * </pre>
 *
 * Every compute node and client that read the same membership ranks the nodes the same way, so a cursor means the
 * same place to each of them.
 */
public final class ScanCursor
{
    public static final long START = 0;
    public static final int EPOCH_TAG_BITS = 12;
    public static final int MAX_NODES = 1 << 7;
    public static final int MAX_SUBTABLES = 1 << 16;
    public static final int MAX_GROUPS = 1 << 27;

    private static final long IN_PROGRESS = 1L << 62;
    private static final int EPOCH_SHIFT = 50;
    private static final int NODE_SHIFT = 43;
    private static final int SUBTABLE_SHIFT = 27;
    private static final long EPOCH_MASK = (1L << EPOCH_TAG_BITS) - 1;

    private ScanCursor()
    {
    }

    /** @return the cursor of a position in progress: never {@link #START}. */
    public static long of(final int epochTag, final int node, final int subtable, final int group)
    {
        if (node < 0 || node >= MAX_NODES || subtable < 0 || subtable >= MAX_SUBTABLES || group < 0 ||
            group >= MAX_GROUPS)
        {
            throw new IllegalArgumentException("no cursor for node rank " + node + ", subtable " + subtable +
                ", group " + group + " (at most " + MAX_NODES + ", " + MAX_SUBTABLES + ", " + MAX_GROUPS + ")");
        }
        return IN_PROGRESS | ((epochTag & EPOCH_MASK) << EPOCH_SHIFT) | ((long)node << NODE_SHIFT) |
            ((long)subtable << SUBTABLE_SHIFT) | group;
    }

    /** @return the tag of a membership epoch, as a cursor keeps it. */
    public static int epochTag(final long epoch)
    {
        return (int)(epoch & EPOCH_MASK);
    }

    /** @return true when {@code cursor} is one this class makes: 0, or a position in progress. */
    public static boolean isValid(final long cursor)
    {
        return cursor == START || (cursor > 0 && (cursor & IN_PROGRESS) != 0);
    }

    public static int epochTagOf(final long cursor)
    {
        return (int)((cursor >>> EPOCH_SHIFT) & EPOCH_MASK);
    }

    public static int node(final long cursor)
    {
        return (int)((cursor >>> NODE_SHIFT) & (MAX_NODES - 1));
    }

    public static int subtable(final long cursor)
    {
        return (int)((cursor >>> SUBTABLE_SHIFT) & (MAX_SUBTABLES - 1));
    }

    public static int group(final long cursor)
    {
        return (int)(cursor & (MAX_GROUPS - 1));
    }
}
