package io.dkv.client.replication;

import io.dkv.client.KvException;
import io.dkv.client.index.CandidateBuckets;
import io.dkv.client.index.IndexDecisions;
import io.dkv.client.index.IndexListing;
import io.dkv.client.index.IndexProbe;
import io.dkv.client.index.WholeReads;
import io.dkv.client.node.NodeLinks;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A refill's first pass over a joiner back with its memory, judged from whole reads (client/README.md, "Refill from
 * whole reads"): the joiner's index read whole and its blocks in windows of its heap, then each serving replica's
 * index read whole and the blocks its slots name for the joiner's keys in windows of its heap; a key is in place
 * where the batch's scanned verdict ({@link RefillBatch#addScanned}) would find it so, from the same bytes those
 * reads would have brought. What the sweep cannot tell (a split, several slots of a fingerprint none or more than one
 * of which holds the key, an uncommitted slot among several, a long block, a read past the grace period, an index too
 * large to copy, a node that did not answer) it leaves to the scan and the batches after it, which read every key
 * they are not told is in place. One thread's, as the copier is.
 */
final class InPlaceSweep
{
    /** The most bytes of keys the sweep holds: keys past them are left to the scan. */
    private static final long MAX_KEY_BYTES = Integer.MAX_VALUE - 16;
    /** Bytes the sweep holds for each joiner's word it judges (its key, its state at each replica). */
    private static final long BYTES_PER_WORD = 256;

    /** What a row's block said: not read, not whole, an insert not committed, its key, another's. */
    private static final byte NOT_READ = 0;
    private static final byte BROKEN = 1;
    private static final byte UNCOMMITTED = 2;
    private static final byte HOLDS_KEY = 3;
    private static final byte OTHER_KEY = 4;

    /** Told of each key the sweep found in place: its joiner's word, and its serving replicas' in the arrays. */
    @FunctionalInterface
    interface Found
    {
        void inPlace(int joiner, long joinWord, int servingCount, int[] servingNodes, long[] servingWords);

        /** Told first how many keys {@link #inPlace} will be told of. */
        default void expect(final long keys)
        {
        }
    }

    private final NodeLinks links;
    private final WholeReads reads;
    private final IndexProbe probe;
    private final ReplicaChain chain;
    private final NanoClock nanoClock;
    private final EpochClock epochClock;
    private final long timeoutNanos;
    private final int replicas;
    private final MemorySegment candidates =
        MemorySegment.ofArray(new byte[2 * IndexLayout.COMBINED_BUCKET_LENGTH]);
    /** One more than the highest node a key the sweep placed is served by. */
    private int nodes;

    // per word of the joiner's index, as numbered by the sweep
    private int count;
    private long[] joinWords;
    /** Each word's key: where in {@link #keyArena} (-1 where its block did not say), how long. */
    private int[] keyAt;
    private int[] keyLengths;
    private byte[] keyArena;
    private int keyBytes;
    private long[] hashes;
    private long[] joinWriteIds;
    /** Serving replicas of word i: their count (-1 where the sweep cannot tell), nodes and words at i * replicas. */
    private int[] servingCounts;
    private int[] servingNodes;
    private long[] servingWords;
    private long[] servingWriteIds;
    private final int[] placedNodes;
    private final long[] foundWords;
    /** The blocks read at one serving node: each slot's word, its entry (key, position), what its block said. */
    private int rows;
    private long[] rowWords = new long[1024];
    private int[] rowEntries = new int[1024];
    private byte[] rowStates = new byte[1024];
    private long[] rowWriteIds = new long[1024];

    InPlaceSweep(final RefillBatch batch, final IndexListing listing, final NanoClock nanoClock)
    {
        this.links = batch.links();
        this.reads = new WholeReads(listing);
        this.probe = batch.probe();
        this.chain = batch.chain();
        this.nanoClock = nanoClock;
        this.epochClock = batch.epochClock();
        this.timeoutNanos = batch.timeoutNanos();
        this.replicas = batch.replicas();
        this.placedNodes = new int[1 + replicas];
        this.foundWords = new long[replicas];
    }

    /**
     * Find the joiner's keys already in place, and tell {@code found} of each; the others are left as they are.
     *
     * @return how many were found in place.
     */
    long sweep(final int joiner, final Found found)
    {
        try
        {
            if (!readJoiner(joiner))
            {
                release();
                return 0;
            }
            place(joiner);
            for (int node = 0; node < nodes; node++)
            {
                if (node != joiner && !readServing(node))
                {
                    // this node's keys are read by the scan: as if its reads told nothing
                    forget(node);
                }
            }
        }
        catch (final KvException ex)
        {
            // a node that did not answer: the scan after reads every key, afresh
            release();
            return 0;
        }
        final long inPlace = judge(joiner, found);
        release();
        return inPlace;
    }

    /** The joiner's committed words and the keys, expiries and write ids of their blocks, read within a grace. */
    private boolean readJoiner(final int joiner)
    {
        final long started = nanoClock.nanoTime();
        final MemorySegment index = reads.copyIndex(joiner);
        if (index == null)
        {
            return false;
        }
        final int words = WholeReads.committedWords(index, null);
        if (words == 0 || words > WholeReads.MAX_ENTRIES ||
            (long)words * BYTES_PER_WORD > Runtime.getRuntime().maxMemory() / 4)
        {
            return false;
        }
        allocate(words);
        count = WholeReads.committedWords(index, joinWords);
        final int[] entries = new int[count];
        int reading = 0;
        for (int i = 0; i < count; i++)
        {
            // a block too long for its word to say its length is left to the scan, which reads its header first
            if (SlotWord.lengthHint(joinWords[i]) != 0)
            {
                entries[reading++] = i;
            }
        }
        final long nowMillis = epochClock.time();
        reads.readBlocks(joiner, joinWords, entries, reading, (i, blocks, at) ->
        {
            final long word = joinWords[i];
            final int hint = SlotWord.lengthHint(word);
            if (!KvBlockLayout.headerFits(blocks, at, hint))
            {
                return;
            }
            final int keyLength = KvBlockLayout.keyLength(blocks, at);
            if (KvBlockLayout.HEADER_LENGTH + keyLength > hint)
            {
                return;
            }
            if (keyBytes + keyLength > keyArena.length)
            {
                if (keyBytes + keyLength > MAX_KEY_BYTES)
                {
                    return;
                }
                keyArena = Arrays.copyOf(keyArena, (int)Math.min(MAX_KEY_BYTES,
                    Math.max(2L * keyArena.length, keyBytes + keyLength)));
            }
            MemorySegment.copy(blocks, ValueLayout.JAVA_BYTE, at + KvBlockLayout.HEADER_LENGTH, keyArena, keyBytes,
                keyLength);
            final long hash = KeyHash.hash(keyArena, keyBytes, keyLength);
            if (KeyHash.fingerprint(hash) != SlotWord.fingerprint(word))
            {
                return;
            }
            keyAt[i] = keyBytes;
            keyLengths[i] = keyLength;
            keyBytes += keyLength;
            hashes[i] = hash;
            joinWriteIds[i] = KvBlockLayout.isExpired(KvBlockLayout.expireAt(blocks, at), nowMillis) ?
                KvBlockLayout.NO_WRITE : KvBlockLayout.writeId(blocks, at);
        });
        // a block read after its slot may have been reused once a grace period passed: none of them stands
        return nanoClock.nanoTime() - started <= graceNanos(joiner);
    }

    /** Each key's serving replicas, as the batch places it; -1 where none serve or it is not the joiner's. */
    private void place(final int joiner)
    {
        nodes = joiner + 1;
        for (int i = 0; i < count; i++)
        {
            servingCounts[i] = -1;
            if (keyAt[i] < 0)
            {
                continue;
            }
            final int serving = chain.refillPlacement(hashes[i], joiner, placedNodes, 1);
            if (serving > 0 && serving <= replicas)
            {
                servingCounts[i] = serving;
                System.arraycopy(placedNodes, 1, servingNodes, i * replicas, serving);
                for (int p = 1; p <= serving; p++)
                {
                    nodes = Math.max(nodes, placedNodes[p] + 1);
                }
            }
        }
    }

    /**
     * The node's index read whole, the slots of each joiner's key's fingerprint there found in it, and the blocks
     * those name read in windows of its heap, within a grace of the index's read.
     *
     * @return false when the node's reads tell nothing (too large an index, past the grace).
     */
    private boolean readServing(final int node)
    {
        int entries = 0;
        for (int i = 0; i < count; i++)
        {
            entries += position(i, node) >= 0 ? 1 : 0;
        }
        if (entries == 0)
        {
            return true;
        }
        final long started = nanoClock.nanoTime();
        final MemorySegment index = reads.copyIndex(node);
        if (index == null)
        {
            return false;
        }
        rows = 0;
        if (rowWords.length < entries + entries / 8)
        {
            // most keys have one slot of their fingerprint, a few two: sized once rather than grown through a million
            rowWords = new long[entries + entries / 8];
            rowEntries = new int[rowWords.length];
            rowStates = new byte[rowWords.length];
            rowWriteIds = new long[rowWords.length];
        }
        for (int i = 0; i < count; i++)
        {
            final int p = position(i, node);
            if (p >= 0)
            {
                addRows(node, i, i * replicas + p, index);
            }
        }
        if (rows > WholeReads.MAX_ENTRIES)
        {
            return false;
        }
        final int[] entriesRead = new int[rows];
        for (int r = 0; r < rows; r++)
        {
            entriesRead[r] = r;
            rowStates[r] = NOT_READ;
        }
        final long nowMillis = epochClock.time();
        final MemorySegment keys = MemorySegment.ofArray(keyArena);
        reads.readBlocks(node, rowWords, entriesRead, rows, (r, blocks, at) ->
        {
            final long word = rowWords[r];
            if (!KvBlockLayout.isWhole(blocks, at, SlotWord.lengthHint(word)))
            {
                rowStates[r] = BROKEN;
            }
            else if (!SlotWord.isCommitted(word))
            {
                rowStates[r] = UNCOMMITTED;
            }
            else if (KvBlockLayout.hasKey(blocks, at, keys, keyAt[rowEntries[r] / replicas],
                keyLengths[rowEntries[r] / replicas]))
            {
                rowStates[r] = HOLDS_KEY;
                rowWriteIds[r] = KvBlockLayout.isExpired(KvBlockLayout.expireAt(blocks, at), nowMillis) ?
                    KvBlockLayout.NO_WRITE : KvBlockLayout.writeId(blocks, at);
            }
            else
            {
                rowStates[r] = OTHER_KEY;
            }
        });
        for (int from = 0, to; from < rows; from = to)
        {
            to = from + 1;
            while (to < rows && rowEntries[to] == rowEntries[from])
            {
                to++;
            }
            settleRows(from, to);
        }
        return nanoClock.nanoTime() - started <= graceNanos(node);
    }

    /**
     * The rows of entry {@code e} (key {@code i} at the node): each slot of the key's fingerprint among its candidates
     * in the node's index as read, or none where it has no such slot (no value there). The key is left to the scan
     * where the reads cannot tell: a split, a block too long for its slot to say.
     */
    private void addRows(final int node, final int i, final int e, final MemorySegment index)
    {
        servingWords[e] = SlotWord.EMPTY;
        servingWriteIds[e] = KvBlockLayout.NO_WRITE;
        final long hash = hashes[i];
        final long first = probe.candidateOffset(node, hash, 0);
        final long second = probe.candidateOffset(node, hash, 1);
        if (first < 0 || second < 0 || Math.max(first, second) + IndexLayout.COMBINED_BUCKET_LENGTH > index.byteSize())
        {
            servingCounts[i] = -1;
            return;
        }
        MemorySegment.copy(index, first, candidates, 0, IndexLayout.COMBINED_BUCKET_LENGTH);
        MemorySegment.copy(index, second, candidates, IndexLayout.COMBINED_BUCKET_LENGTH,
            IndexLayout.COMBINED_BUCKET_LENGTH);
        if (CandidateBuckets.state(hash, candidates, 0) != CandidateBuckets.HOLD_KEY)
        {
            servingCounts[i] = -1;
            return;
        }
        probe.collect(node, hash, candidates, 0);
        final long[] words = probe.words();
        final int mask = IndexDecisions.ofFingerprint(words, probe.slotCount(), KeyHash.fingerprint(hash));
        for (int c = 0; c < probe.slotCount(); c++)
        {
            if ((mask & 1 << c) != 0 && SlotWord.lengthHint(words[c]) == 0)
            {
                servingCounts[i] = -1;
                return;
            }
        }
        for (int c = 0; c < probe.slotCount(); c++)
        {
            if ((mask & 1 << c) != 0)
            {
                if (rows == rowWords.length)
                {
                    growRows();
                }
                rowWords[rows] = words[c];
                rowEntries[rows] = e;
                rows++;
            }
        }
    }

    /**
     * What the rows {@code from} to {@code to} of one entry say of its key at the node, as the batch's reads would:
     * one slot of its fingerprint, committed and holding it, is its value; one that holds another key, or an insert
     * not committed, is no value of it. Of several slots, exactly one must hold the key and every other another key,
     * committed; else, or where a block was not read whole, the key is left to the scan.
     */
    private void settleRows(final int from, final int to)
    {
        final int e = rowEntries[from];
        int holding = -1;
        for (int r = from; r < to; r++)
        {
            final int state = rowStates[r];
            if (state == NOT_READ || state == BROKEN || (to - from > 1 && state == UNCOMMITTED) ||
                (state == HOLDS_KEY && holding >= 0))
            {
                servingCounts[e / replicas] = -1;
                return;
            }
            holding = state == HOLDS_KEY ? r : holding;
        }
        if (to - from > 1 && holding < 0)
        {
            servingCounts[e / replicas] = -1;
        }
        else if (holding >= 0)
        {
            servingWords[e] = rowWords[holding];
            servingWriteIds[e] = rowWriteIds[holding];
        }
    }

    /** Keys whose serving replicas agree and whose joiner holds their write are in place, as the batch judges. */
    private long judge(final int joiner, final Found found)
    {
        long inPlace = 0;
        for (int i = 0; i < count; i++)
        {
            inPlace += inPlace(i) ? 1 : 0;
        }
        found.expect(inPlace);
        for (int i = 0; i < count; i++)
        {
            if (inPlace(i))
            {
                final int serving = servingCounts[i];
                final int row = i * replicas;
                System.arraycopy(servingNodes, row, placedNodes, 0, serving);
                System.arraycopy(servingWords, row, foundWords, 0, serving);
                found.inPlace(joiner, joinWords[i], serving, placedNodes, foundWords);
            }
        }
        return inPlace;
    }

    /** @return whether key i's serving replicas agree on one write and its joiner holds it. */
    private boolean inPlace(final int i)
    {
        final int serving = servingCounts[i];
        if (serving <= 0)
        {
            return false;
        }
        final int row = i * replicas;
        boolean inPlace = joinWriteIds[i] == servingWriteIds[row];
        for (int p = 1; p < serving; p++)
        {
            inPlace &= servingWriteIds[row + p] == servingWriteIds[row];
        }
        return inPlace;
    }

    /** @return where {@code node} is among word i's serving replicas, or -1. */
    private int position(final int i, final int node)
    {
        final int serving = servingCounts[i];
        for (int p = 0; p < serving; p++)
        {
            if (servingNodes[i * replicas + p] == node)
            {
                return p;
            }
        }
        return -1;
    }

    /** As if the node's reads told nothing: every key it serves is left to the scan. */
    private void forget(final int node)
    {
        for (int i = 0; i < count; i++)
        {
            if (position(i, node) >= 0)
            {
                servingCounts[i] = -1;
            }
        }
    }

    private long graceNanos(final int node)
    {
        final int graceMs = links.view(node).graceMs;
        return graceMs > 0 ? Math.min(timeoutNanos, graceMs * 1_000_000L) : timeoutNanos;
    }

    private void allocate(final int words)
    {
        count = 0;
        joinWords = new long[words];
        keyAt = new int[words];
        Arrays.fill(keyAt, -1);
        keyLengths = new int[words];
        keyArena = new byte[words * 16];
        keyBytes = 0;
        hashes = new long[words];
        joinWriteIds = new long[words];
        servingCounts = new int[words];
        servingNodes = new int[words * replicas];
        servingWords = new long[words * replicas];
        servingWriteIds = new long[words * replicas];
    }

    private void growRows()
    {
        final int length = rowWords.length * 2;
        rowWords = Arrays.copyOf(rowWords, length);
        rowEntries = Arrays.copyOf(rowEntries, length);
        rowStates = Arrays.copyOf(rowStates, length);
        rowWriteIds = Arrays.copyOf(rowWriteIds, length);
    }

    private void release()
    {
        count = 0;
        joinWords = null;
        keyAt = null;
        keyLengths = null;
        keyArena = null;
        hashes = null;
        joinWriteIds = null;
        servingCounts = null;
        servingNodes = null;
        servingWords = null;
        servingWriteIds = null;
    }
}
