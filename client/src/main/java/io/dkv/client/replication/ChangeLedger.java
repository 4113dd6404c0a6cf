package io.dkv.client.replication;

import java.util.Arrays;
import java.util.BitSet;

/**
 * What a membership change's fill pass saw, node by node, so that the switch pass settles only what changed since
 * (client/README.md, "Membership change"): the committed slot words its scans read whose keys the change does not move
 * (<em>seen</em>), and for each moving key it found in place, the word each of its replicas and each member entering
 * its placement named then (<em>settled</em>), with the key.
 *
 * <p>A word names one write of one key for as long as it stands, and any write a node takes changes the key's word
 * there. So a moving key that no write touched since the fill found it in place still holds, at every node, the word
 * it held then, and is still in place; at a node a write touched it holds a word neither seen nor settled (a write
 * that left a block there), or no longer holds its settled word (a delete that emptied the slot). The switch pass
 * reads the members' indexes in large READs, as the fill does, reads the keys of the words not accounted for, and
 * settles only the moving keys among them and those whose settled words are gone.
 *
 * <p>Valid for the switch that directly follows the fill (the epoch after it): any other membership event between
 * them (a node declared down or back) makes the switch pass read every moving key again, as before. One thread fills
 * it (the change's driver); memory: about 8 bytes a slot seen, and 12 bytes a settled word plus each moving key.
 */
public final class ChangeLedger
{
    private static final int INITIAL = 1024;

    private final long fillEpoch;
    private final long[][] seen;
    private final int[] seenCount;
    private final long[][] settledWords;
    private final int[][] settledKeys;
    private final int[] settledCount;
    private final long[][] settledSorted;
    private byte[] keyBytes = new byte[INITIAL * 32];
    private int[] keyOffsets = new int[INITIAL + 1];
    private int keyCount;
    private boolean complete;

    /**
     * @param fillEpoch the membership epoch of the fill phase the pass runs in.
     * @param nodeCount the client's memory nodes (indices into its node list).
     */
    public ChangeLedger(final long fillEpoch, final int nodeCount)
    {
        this.fillEpoch = fillEpoch;
        this.seen = new long[nodeCount][];
        this.seenCount = new int[nodeCount];
        this.settledWords = new long[nodeCount][];
        this.settledKeys = new int[nodeCount][];
        this.settledCount = new int[nodeCount];
        this.settledSorted = new long[nodeCount][];
    }

    /** Note a committed word the fill's scan read in a node's index whose key the change does not move. */
    void seen(final int node, final long word)
    {
        if (seen[node] == null || seenCount[node] == seen[node].length)
        {
            seen[node] = seen[node] == null ? new long[INITIAL] : Arrays.copyOf(seen[node], 2 * seen[node].length);
        }
        seen[node][seenCount[node]++] = word;
    }

    /** @return the key's number, for {@link #settled}. */
    int key(final byte[] key)
    {
        if (keyCount + 2 > keyOffsets.length)
        {
            keyOffsets = Arrays.copyOf(keyOffsets, 2 * keyOffsets.length);
        }
        final int at = keyOffsets[keyCount];
        if (at + key.length > keyBytes.length)
        {
            keyBytes = Arrays.copyOf(keyBytes, Math.max(2 * keyBytes.length, at + key.length));
        }
        System.arraycopy(key, 0, keyBytes, at, key.length);
        keyOffsets[keyCount + 1] = at + key.length;
        return keyCount++;
    }

    /** Note that the key numbered {@code key} named {@code word} at a node when the fill found it in place. */
    void settled(final int node, final long word, final int key)
    {
        if (settledWords[node] == null || settledCount[node] == settledWords[node].length)
        {
            final int length = settledWords[node] == null ? INITIAL : 2 * settledWords[node].length;
            settledWords[node] = settledWords[node] == null ? new long[length] :
                Arrays.copyOf(settledWords[node], length);
            settledKeys[node] = settledKeys[node] == null ? new int[length] : Arrays.copyOf(settledKeys[node], length);
        }
        settledWords[node][settledCount[node]] = word;
        settledKeys[node][settledCount[node]++] = key;
    }

    /** The fill pass ended: it found every moving key in place ({@code complete}) or not. */
    void close(final boolean complete)
    {
        this.complete = complete;
        for (int node = 0; node < seen.length; node++)
        {
            if (seen[node] != null)
            {
                Arrays.sort(seen[node], 0, seenCount[node]);
            }
            if (settledWords[node] != null)
            {
                settledSorted[node] = Arrays.copyOf(settledWords[node], settledCount[node]);
                Arrays.sort(settledSorted[node]);
            }
        }
    }

    /** @return true when the pass found every moving key in place and the switch in {@code epoch} directly follows. */
    public boolean servesSwitchOf(final long epoch)
    {
        return complete && epoch == fillEpoch + 1;
    }

    /** @return the number of words the fill saw at all nodes. */
    public long wordsSeen()
    {
        long words = 0;
        for (final int count : seenCount)
        {
            words += count;
        }
        return words;
    }

    /**
     * @return true when {@code word} at the node is one the fill accounted for: a word of a key the change does not
     * move, or one a moving key named there when the fill found it in place.
     */
    boolean accountedFor(final int node, final long word)
    {
        return seen[node] != null && Arrays.binarySearch(seen[node], 0, seenCount[node], word) >= 0 ||
            settledSorted[node] != null && Arrays.binarySearch(settledSorted[node], word) >= 0;
    }

    /**
     * Find the moving keys one of whose settled words a node no longer holds (a write emptied its slot there).
     *
     * @param present the node's committed words now, sorted.
     * @param count   how many.
     * @param gone    set at the number of each such key.
     */
    void gone(final int node, final long[] present, final int count, final BitSet gone)
    {
        final long[] words = settledWords[node];
        for (int s = 0; s < settledCount[node]; s++)
        {
            if (Arrays.binarySearch(present, 0, count, words[s]) < 0)
            {
                gone.set(settledKeys[node][s]);
            }
        }
    }

    /** @return the key numbered {@code key}. */
    byte[] keyOf(final int key)
    {
        return Arrays.copyOfRange(keyBytes, keyOffsets[key], keyOffsets[key + 1]);
    }

    @Override
    public String toString()
    {
        return "ChangeLedger{fillEpoch=" + fillEpoch + ", complete=" + complete + ", keys=" + keyCount +
            ", wordsSeen=" + wordsSeen() + '}';
    }
}
