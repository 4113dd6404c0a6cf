package io.dkv.client.ordered;

/**
 * One node of an ordered tree, the value of its reserved key ({@code ReservedKeys.segmentKey(generation, node)}, kind
 * {@code SEGMENT}):
 *
 * <pre>
 *   0  type     byte     {@link #LEAF} or {@link #INNER}
 *   1  spare    3 bytes  0
 *   4  entries  int      how many entries follow
 *   8  stamp    long     the header's change count when this node was written (see below)
 *  16  entries, each:
 *        a leaf's:         keyLength int | valueLength int | key | value
 *        an inner node's:  child int | count long | keyLength int | key
 * </pre>
 *
 * A leaf's entries are elements in order (by key, unsigned bytes, in a keyed tree; by position in a list, whose keys
 * are empty). An inner node's entry i names a child node and the elements under it (the counts make ranks a walk
 * down); in a keyed tree its key (empty for entry 0) is a separator: every element under child i - 1 sorts below it,
 * every element under child i at or above it.
 *
 * <p>The stamp lets a transaction know that what it reads is of one instant: a node whose stamp is above the change
 * count of the header the transaction read was written after that header, so the transaction's view is torn and it
 * runs again (the commit would fail it anyway; a tree read across two instants can send a walk astray first).
 */
public final class TreeNodeLayout
{
    public static final byte LEAF = 0;
    public static final byte INNER = 1;
    public static final int TYPE_OFFSET = 0;
    public static final int ENTRIES_OFFSET = 4;
    public static final int STAMP_OFFSET = 8;
    public static final int HEADER_LENGTH = 16;
    /** A leaf entry's lengths. */
    public static final int LEAF_ENTRY_HEADER = 2 * Integer.BYTES;
    /** An inner entry's child, count and key length. */
    public static final int INNER_ENTRY_HEADER = Integer.BYTES + Long.BYTES + Integer.BYTES;

    private TreeNodeLayout()
    {
    }

    /** @return the bytes a leaf entry takes. */
    public static int leafEntryLength(final int keyLength, final int valueLength)
    {
        return LEAF_ENTRY_HEADER + keyLength + valueLength;
    }

    /** @return the bytes an inner entry takes. */
    public static int innerEntryLength(final int keyLength)
    {
        return INNER_ENTRY_HEADER + keyLength;
    }
}
