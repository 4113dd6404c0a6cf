package io.dkv.client;

/** The failures the data path reports, worded once, each naming the key and the memory node at fault. */
public final class KvErrors
{
    private KvErrors()
    {
    }

    /** @return a key as errors show it: printable bytes as they are, others escaped, the first 32 bytes at most. */
    public static String describe(final byte[] key)
    {
        final int shown = Math.min(key.length, 32);
        final StringBuilder text = new StringBuilder(shown + 16).append('\'');
        for (int i = 0; i < shown; i++)
        {
            final int b = key[i] & 0xff;
            if (b >= 0x20 && b < 0x7f && b != '\'')
            {
                text.append((char)b);
            }
            else
            {
                text.append(String.format("\\x%02x", b));
            }
        }
        text.append('\'');
        if (key.length > shown)
        {
            text.append("... (").append(key.length).append(" bytes)");
        }
        return text.toString();
    }

    /**
     * A block not whole: blocks are written before any slot points at them and never rewritten, so the heap is
     * damaged.
     */
    public static KvException brokenBlock(final long nodeId, final long offset)
    {
        return new KvException("the block at heap offset " + offset + " of memory node " + nodeId +
            " is not whole (checksum or lengths): the heap is damaged");
    }

    /** @return the failure of an operation on a key, wherever its copies are, that lost every race it was allowed. */
    static KvException racesLost(final String operation, final byte[] key, final int races)
    {
        return new KvException(operation + " key " + describe(key) + " lost " + races + " races in a row");
    }
}
