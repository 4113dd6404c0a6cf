package io.dkv.format;

import java.nio.ByteBuffer;

/**
 * A generation's journal: the value at {@link ReservedKeys#journalKey}, which says that the generation's segments (or
 * pieces) numbered 0 to {@code count - 1} are, or will soon be, read by nobody. Written when a writer begins a long
 * string's pieces (removed when a transaction publishes them), and when a transaction drops a large collection or a
 * string in pieces (removed once the segments are): a sweep removes the segments of a journal older than its bound,
 * whoever left it.
 *
 * <pre>
 *   0  time   long  epoch milliseconds when it was written
 *   8  count  int   segment numbers of the generation it covers, from 0
 *  12  flags  int   bit 0, CLAIMED: its segments are being removed, and none will be published (a journal of
 *                   {@link #LENGTH_UNFLAGGED} bytes, as written before flags were, has none)
 *  16
 * </pre>
 */
public final class JournalLayout
{
    public static final int TIME_OFFSET = 0;
    public static final int COUNT_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;
    public static final int LENGTH = 16;
    public static final int LENGTH_UNFLAGGED = 12;
    public static final int CLAIMED = 1;

    private JournalLayout()
    {
    }

    public static byte[] encode(final long timeMillis, final int count, final int flags)
    {
        return ByteBuffer.allocate(LENGTH).putLong(TIME_OFFSET, timeMillis).putInt(COUNT_OFFSET, count)
            .putInt(FLAGS_OFFSET, flags).array();
    }

    /** @return true when {@code value} has a journal's length. */
    public static boolean isJournal(final byte[] value)
    {
        return value != null && (value.length == LENGTH || value.length == LENGTH_UNFLAGGED);
    }

    /** @return true when the journal's segments are being removed: a writer may not publish them. */
    public static boolean claimed(final byte[] journal)
    {
        return journal.length == LENGTH && (ByteBuffer.wrap(journal).getInt(FLAGS_OFFSET) & CLAIMED) != 0;
    }

    /** @return the same journal, claimed. */
    public static byte[] claim(final byte[] journal)
    {
        return encode(time(journal), count(journal), CLAIMED);
    }

    public static long time(final byte[] journal)
    {
        return ByteBuffer.wrap(journal).getLong(TIME_OFFSET);
    }

    public static int count(final byte[] journal)
    {
        return ByteBuffer.wrap(journal).getInt(COUNT_OFFSET);
    }
}
