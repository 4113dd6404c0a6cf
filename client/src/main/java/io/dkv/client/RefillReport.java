package io.dkv.client;

/**
 * What refilling a joining memory node did ({@link KvClient#refill(long)}).
 *
 * @param keysSeen   committed slots read on the serving members and on the joiner (a key may count twice).
 * @param refilled   keys whose copy on the joiner was written or cleared to match their settled write.
 * @param inPlace    keys whose copy on the joiner already matched.
 * @param unsettled  keys left with a write in flight, or with no serving replica: the joiner is not complete.
 * @param passes     scans made: one more whenever a member split a subtable during the scan of it.
 * @param millis     how long it took.
 * @param alone      keys refilled one by one rather than in batches (a write in flight, a split, a race lost, a long
 *                   block: client/README.md, "Refill in batches").
 * @param swept      of the keys in place, those a first pass found so from whole reads of the indexes and heaps
 *                   (client/README.md, "Refill from whole reads").
 */
public record RefillReport(long keysSeen, long refilled, long inPlace, long unsettled, int passes, long millis,
    long alone, long swept)
{
    /** @return true when every key the joiner should hold matched its settled write when it was looked at. */
    public boolean complete()
    {
        return unsettled == 0;
    }
}
