package io.dkv.client.txn;

import io.dkv.client.KvClient;
import io.dkv.format.JournalLayout;
import io.dkv.format.ReservedKeys;

/**
 * Removes the segments of a generation nobody reads any more (a large collection or a string in pieces that a
 * transaction dropped, or pieces a writer never published), each in a transaction of its own, then the generation's
 * journal. A transaction of one delete writes a tombstone and no intent, so it carries no prior value: a full node's
 * reserve for deletes takes it whatever the segments' size, where one transaction removing them all carried every
 * segment as its intent's prior (a DEL of a 100,000-member set on an 8 MiB heap was refused: 32 KiB more than its
 * reserve). What fails stays: the journal names it, and the sweep of journals ({@code PiecedStrings.sweep}) finishes.
 */
public final class DroppedGenerations
{
    private DroppedGenerations()
    {
    }

    /**
     * Remove segments 0 to {@code count - 1} of the generation that are there, then its journal: only once the journal
     * is claimed ({@link JournalLayout#claimed}), or was written by a transaction that dropped the generation, so that
     * no writer publishes them meanwhile.
     *
     * @throws RuntimeException what a removal met (a node unreachable); the rest is left to the sweep.
     */
    public static void remove(final KvClient client, final long generation, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            removeSegment(client, generation, i);
        }
        removeJournal(client, generation);
    }

    /** As {@link #remove(KvClient, long, int)}, of the segments {@code numbers} names. */
    public static void remove(final KvClient client, final long generation, final int[] numbers)
    {
        for (final int number : numbers)
        {
            removeSegment(client, generation, number);
        }
        removeJournal(client, generation);
    }

    /**
     * One transaction a segment, one after another: a tombstone each, never an intent carrying the segment. Batches of
     * 64 KiB of segments' deletes were tried: their intents' priors, not reclaimed for the grace period, spent a full
     * node's reserve after four batches. The price: a DEL of a 100,000-member set took 470-1,080 ms, against 290-360
     * ms in one transaction of intents (a list of 100,000: 130-270 ms against 350-820 ms).
     */
    public static void removeSegment(final KvClient client, final long generation, final int number)
    {
        final byte[] segment = ReservedKeys.segmentKey(generation, number);
        client.transact(tx ->
        {
            if (tx.peek(segment) != null)
            {
                tx.remove(segment);
            }
            return null;
        });
    }

    /** Remove the generation's journal where it is there: one transaction, a tombstone. */
    public static void removeJournal(final KvClient client, final long generation)
    {
        final byte[] journal = ReservedKeys.journalKey(generation);
        client.transact(tx ->
        {
            if (tx.peek(journal) != null)
            {
                tx.remove(journal);
            }
            return null;
        });
    }
}
