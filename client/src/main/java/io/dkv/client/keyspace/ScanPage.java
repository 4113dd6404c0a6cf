package io.dkv.client.keyspace;

import java.util.List;

/**
 * One step of a key scan: the keys it found and the cursor the next step starts from ({@link ScanCursor#START} once
 * the scan is over).
 *
 * @param cursor    where the next step starts; {@link ScanCursor#START}: every node's index was read to its end.
 * @param keys      the keys found, each its own array; a key may come again in a later step of the same scan.
 * @param restarted whether this step started the scan over, its cursor being of a membership since replaced: what
 *                  earlier steps found may come again, so a count of the keys starts again from this step's.
 */
public record ScanPage(long cursor, List<byte[]> keys, boolean restarted)
{
    /** @return true when this was the scan's last step. */
    public boolean last()
    {
        return cursor == ScanCursor.START;
    }

    /**
     * @param counted the keys the scan's earlier steps found.
     * @return the keys of the scan so far with this step's: this step's alone when it started the scan over.
     */
    public long countAfter(final long counted)
    {
        return (restarted ? 0 : counted) + keys.size();
    }
}
