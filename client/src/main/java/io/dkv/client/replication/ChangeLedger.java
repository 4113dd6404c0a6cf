package io.dkv.client.replication;

import io.dkv.format.SlotWord;

import java.util.Arrays;

/**
 * What a membership change's fill pass saw, node by node, so that the handover pass reads again only what changed
 * since (client/README.md, "Membership change"): the committed slot words its scans read whose keys the change does not
 * move (<em>seen</em>), and for each moving key it found in place, the word each of its replicas and each member
 * entering its placement named then (<em>settled</em>: the key's group of words).
 *
 * <p>A word names one write of one key for as long as it stands, and any write a node takes changes the key's word
 * there. So a moving key that no write touched since the fill found it in place still holds, at every node, the word
 * it held then, and is still in place; at a node a write touched it holds a word neither seen nor settled (a write
 * that left a block there), or no longer holds its settled word (a delete that emptied the slot). The handover pass
 * reads the members' indexes in large READs, as the fill does, reads the keys of the words not accounted for, and of
 * the groups one of whose words is gone reads the key from a word of the group still standing (none standing: every
 * node of the key either holds a word read anyway or none, and a key no node holds needs no seal).
 *
 * <p>Of each settled group it also keeps the word of the key's last replica before the change (its <em>tail</em>):
 * writes of a key win its tail first, so a tail that still holds that word names a key no write touched since, which
 * the handover pass seals from that word as it reads the index (client/README.md, "The handover").
 *
 * <p>Valid for the handover two epochs after the fill (the switch between): any other membership event between them (a
 * node declared down or back) makes the handover pass read every moving key again. So does a ledger that would
 * outgrow its budget ({@link #abandoned()}): it lets its memory go, and the change goes on the slower way. About 8
 * bytes a word seen, 9 a settled word and 12 a moving key, and half as much again while it grows or is sorted at the
 * end.
 */
public final class ChangeLedger
{
    private static final int INITIAL = 1024;

    private final long fillEpoch;
    private final long budgetBytes;
    private long[][] seen;
    private int[] seenCount;
    private long[] settledWords = new long[INITIAL];
    private byte[] settledNodes = new byte[INITIAL];
    private int settledCount;
    private int[] groupStarts = new int[INITIAL + 1];
    private int groupCount;
    /** Per node, the settled words of the keys whose tail it is; sorted by {@link #close}. */
    private long[][] tails;
    private int[] tailCounts;
    /** Per node, after {@link #close}: the words seen and settled there, sorted. */
    private long[][] accounted;
    private boolean complete;
    private boolean abandoned;

    /**
     * @param fillEpoch   the membership epoch of the fill phase the pass runs in.
     * @param nodeCount   the client's memory nodes (indices into its node list, below 256).
     * @param budgetBytes the most memory it may hold; past that it is {@link #abandoned()}.
     */
    public ChangeLedger(final long fillEpoch, final int nodeCount, final long budgetBytes)
    {
        this.fillEpoch = fillEpoch;
        this.budgetBytes = budgetBytes;
        this.seen = new long[nodeCount][];
        this.seenCount = new int[nodeCount];
        this.tails = new long[nodeCount][];
        this.tailCounts = new int[nodeCount];
    }

    /** Note a committed word the fill's scan read in a node's index whose key the change does not move. */
    void seen(final int node, final long word)
    {
        if (abandoned)
        {
            return;
        }
        if (seen[node] == null || seenCount[node] == seen[node].length)
        {
            final int length = seen[node] == null ? INITIAL : seen[node].length + (seen[node].length >> 1);
            if (!fits(8L * length))
            {
                return;
            }
            seen[node] = seen[node] == null ? new long[length] : Arrays.copyOf(seen[node], length);
        }
        seen[node][seenCount[node]++] = word;
    }

    /** A moving key found in place: the words of its group follow ({@link #settled}). */
    void group()
    {
        if (abandoned)
        {
            return;
        }
        if (groupCount + 2 > groupStarts.length)
        {
            final int length = groupStarts.length + (groupStarts.length >> 1);
            if (!fits(4L * length))
            {
                return;
            }
            groupStarts = Arrays.copyOf(groupStarts, length);
        }
        groupStarts[groupCount++] = settledCount;
        groupStarts[groupCount] = settledCount;
    }

    /**
     * Note that the key of the last {@link #group} named {@code word} at a node when the fill found it in place (an
     * empty word, no copy there, is no word to note).
     */
    void settled(final int node, final long word)
    {
        if (abandoned || word == SlotWord.EMPTY)
        {
            return;
        }
        if (settledCount == settledWords.length)
        {
            final int length = settledWords.length + (settledWords.length >> 1);
            if (!fits(9L * length))
            {
                return;
            }
            settledWords = Arrays.copyOf(settledWords, length);
            settledNodes = Arrays.copyOf(settledNodes, length);
        }
        settledWords[settledCount] = word;
        settledNodes[settledCount++] = (byte)node;
        groupStarts[groupCount] = settledCount;
    }

    /** Note the word the key of the last {@link #group} named at its tail, which {@link #settled} noted too. */
    void settledTail(final int node, final long word)
    {
        if (abandoned || word == SlotWord.EMPTY)
        {
            return;
        }
        if (tails[node] == null || tailCounts[node] == tails[node].length)
        {
            final int length = tails[node] == null ? INITIAL : tails[node].length + (tails[node].length >> 1);
            if (!fits(8L * length))
            {
                return;
            }
            tails[node] = tails[node] == null ? new long[length] : Arrays.copyOf(tails[node], length);
        }
        tails[node][tailCounts[node]++] = word;
    }

    /**
     * @return true when {@code word} at the node is the word a moving key the fill found in place named at its tail
     * then: standing still, it says that no write touched the key since.
     */
    boolean isSettledTail(final int node, final long word)
    {
        return tails[node] != null && Arrays.binarySearch(tails[node], 0, tailCounts[node], word) >= 0;
    }

    /** The fill pass ended: it found every moving key in place ({@code complete}) or not. */
    void close(final boolean complete)
    {
        this.complete = complete;
        if (abandoned || !complete)
        {
            return;
        }
        final int[] counts = seenCount.clone();
        for (int s = 0; s < settledCount; s++)
        {
            counts[settledNodes[s] & 0xff]++;
        }
        accounted = new long[seen.length][];
        for (int node = 0; node < seen.length; node++)
        {
            if (!fits(8L * counts[node]))
            {
                return;
            }
            accounted[node] = seen[node] == null ? new long[counts[node]] : Arrays.copyOf(seen[node], counts[node]);
            seen[node] = null;
            counts[node] = seenCount[node];
        }
        for (int s = 0; s < settledCount; s++)
        {
            final int node = settledNodes[s] & 0xff;
            accounted[node][counts[node]++] = settledWords[s];
        }
        for (final long[] words : accounted)
        {
            Arrays.sort(words);
        }
        for (int node = 0; node < tails.length; node++)
        {
            if (tails[node] != null)
            {
                Arrays.sort(tails[node], 0, tailCounts[node]);
            }
        }
        seen = null;
    }

    /**
     * @return true when the pass found every moving key in place and the handover in {@code epoch} directly follows
     * the switch after the fill.
     */
    public boolean servesHandoverOf(final long epoch)
    {
        return complete && !abandoned && epoch == fillEpoch + 2;
    }

    /** @return true when it would have outgrown its budget, and holds nothing. */
    public boolean abandoned()
    {
        return abandoned;
    }

    /**
     * @return true when {@code word} at the node is one the fill accounted for: a word of a key the change does not
     * move, or one a moving key named there when the fill found it in place.
     */
    boolean accountedFor(final int node, final long word)
    {
        return accounted[node] != null && Arrays.binarySearch(accounted[node], word) >= 0;
    }

    /**
     * The moving keys one of whose settled words a node no longer holds (a write emptied its slot there), each as a
     * word of its group still standing, whose block names the key.
     *
     * @param present  per node, its committed words now, sorted (null for a node not scanned).
     * @param counts   how many, per node.
     * @param nodesOut filled with the node of each word found.
     * @param wordsOut filled with each word found.
     * @return how many were found, at most the lengths of the arrays given.
     */
    int standingWordsOfGone(final long[][] present, final int[] counts, final int[] nodesOut, final long[] wordsOut)
    {
        return standingWordsOfGone((node, word) -> present[node] != null &&
            Arrays.binarySearch(present[node], 0, counts[node], word) >= 0, nodesOut, wordsOut);
    }

    /** Whether a node holds a committed word now. */
    @FunctionalInterface
    interface Standing
    {
        boolean holds(int node, long word);
    }

    /**
     * {@link #standingWordsOfGone(long[][], int[], int[], long[])} with the words standing where {@code standing}
     * says they are: a set a scan filled as it went costs a lookup a word, where sorted words cost a sort and a
     * search.
     */
    int standingWordsOfGone(final Standing standing, final int[] nodesOut, final long[] wordsOut)
    {
        int found = 0;
        for (int g = 0; g < groupCount && found < wordsOut.length; g++)
        {
            int held = -1;
            boolean gone = false;
            for (int s = groupStarts[g]; s < groupStarts[g + 1]; s++)
            {
                final int node = settledNodes[s] & 0xff;
                if (standing.holds(node, settledWords[s]))
                {
                    held = s;
                }
                else
                {
                    gone = true;
                }
            }
            if (gone && held >= 0)
            {
                nodesOut[found] = settledNodes[held] & 0xff;
                wordsOut[found++] = settledWords[held];
            }
        }
        return found;
    }

    /** @return the moving keys it noted in place. */
    int groups()
    {
        return groupCount;
    }

    private boolean fits(final long more)
    {
        if (bytes() + more <= budgetBytes)
        {
            return true;
        }
        abandoned = true;
        seen = new long[seen == null ? 0 : seen.length][];
        settledWords = null;
        settledNodes = null;
        groupStarts = null;
        accounted = null;
        tails = new long[tails.length][];
        return false;
    }

    private long bytes()
    {
        long bytes = settledWords == null ? 0 : 9L * settledWords.length + 4L * groupStarts.length;
        if (seen != null)
        {
            for (final long[] words : seen)
            {
                bytes += words == null ? 0 : 8L * words.length;
            }
        }
        for (final long[] words : tails)
        {
            bytes += words == null ? 0 : 8L * words.length;
        }
        if (accounted != null)
        {
            for (final long[] words : accounted)
            {
                bytes += words == null ? 0 : 8L * words.length;
            }
        }
        return bytes;
    }

    @Override
    public String toString()
    {
        return "ChangeLedger{fillEpoch=" + fillEpoch + ", complete=" + complete + ", abandoned=" + abandoned +
            ", movingKeys=" + groupCount + ", settledWords=" + settledCount + '}';
    }
}
