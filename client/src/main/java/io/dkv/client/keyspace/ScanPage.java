package io.dkv.client.keyspace;

import java.util.List;

/**
 * One step of a key scan: the keys it found and the cursor the next step starts from ({@link ScanCursor#START} once
 * the scan is over).
 *
 * @param cursor where the next step starts; {@link ScanCursor#START}: every node's index was read to its end.
 * @param keys   the keys found, each its own array; a key may come again in a later step of the same scan.
 */
public record ScanPage(long cursor, List<byte[]> keys)
{
    /** @return true when this was the scan's last step. */
    public boolean last()
    {
        return cursor == ScanCursor.START;
    }
}
