package io.dkv.client.replication;

import io.dkv.client.index.CandidateBuckets;
import io.dkv.client.index.IndexDecisions;
import io.dkv.client.index.IndexProbe;
import io.dkv.client.node.NodeLinks;
import io.dkv.client.node.NodeRound;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;

/**
 * The state of a refill batch's keys ({@link RefillBatch}) at each of their positions (0 the joiner, then the serving
 * replicas in placement order), read as {@link IndexProbe#readKey} reads one: the candidate buckets, then the block
 * of the key's one slot of its fingerprint. Each step is one round for every key of the batch; a key whose state the
 * reads cannot tell (a split, several slots of its fingerprint, a block too long for its slot to say, one read past
 * the grace period) is marked for the single-key refill. The arrays are the batch's, read by it between runs.
 */
final class RefillReads
{
    private static final long PAIR = 2L * IndexLayout.COMBINED_BUCKET_LENGTH;

    /** Per key and position, as read last: the committed slot (or -1), its word, the live write it names. */
    final long[][] slots;
    final long[][] words;
    final long[][] writeIds;
    /** Per key and position: where in {@link #blocks()} the block of its slot was read. */
    final long[][] blockAt;
    /** Per key: the joiner's empty candidate slots, as read. */
    final long[][] empties;
    final int[] emptyCounts;

    private final NodeLinks links;
    private final IndexProbe probe;
    private final NodeRound round;
    private final NanoClock nanoClock;
    private final long timeoutNanos;
    private final int positions;
    private final long[][] blockWords;
    private final long[] started;
    private MemorySegment buckets;
    private MemorySegment blocks;

    RefillReads(final NodeLinks links, final IndexProbe probe, final NodeRound round, final int capacity,
        final int positions, final NanoClock nanoClock, final long timeoutNanos)
    {
        this.links = links;
        this.probe = probe;
        this.round = round;
        this.nanoClock = nanoClock;
        this.timeoutNanos = timeoutNanos;
        this.positions = positions;
        this.slots = new long[capacity][positions];
        this.words = new long[capacity][positions];
        this.writeIds = new long[capacity][positions];
        this.blockAt = new long[capacity][positions];
        this.blockWords = new long[capacity][positions];
        this.empties = new long[capacity][IndexDecisions.MAX_SLOTS];
        this.emptyCounts = new int[capacity];
        this.started = new long[capacity];
    }

    /** @return the blocks the last {@link #read} read, each at its {@link #blockAt}. */
    MemorySegment blocks()
    {
        return blocks;
    }

    /** @return the candidate buckets of key {@code i}'s joiner, as the last {@link #readJoiners} read them. */
    MemorySegment buckets()
    {
        return buckets;
    }

    /** @return where in {@link #buckets()} key {@code i}'s joiner's candidates are. */
    long joinerBuckets(final int i)
    {
        return i * positions * PAIR;
    }

    /**
     * Read the state of each key in {@code stage} (others are left as they are): the joiners' candidates in one round,
     * then the serving replicas' in the next, then the blocks their slots name. A key the reads cannot tell is moved
     * to {@code alone}.
     *
     * @param between run after the joiners' read (tests: a write landing between the reads), or null.
     */
    void read(final RefillBatch.Keys keys, final int stage, final int alone, final long nowMillis,
        final Runnable between)
    {
        start(keys, stage);
        // the joiner first: a writer's write that reaches it after this read makes the swap from the word read fail
        readBuckets(keys, stage, alone, 0, 1, true);
        if (between != null)
        {
            between.run();
        }
        readBuckets(keys, stage, alone, 1, positions, true);
        readBlocks(keys, stage, alone, nowMillis, 0, positions);
    }

    /**
     * Read the state of each key in {@code stage} at its serving replicas only: their candidates in one round, the
     * blocks of their slots in the next. For keys whose joiner's state the scan that found them read just before.
     */
    void readServingStates(final RefillBatch.Keys keys, final int stage, final int alone, final long nowMillis)
    {
        start(keys, stage);
        readBuckets(keys, stage, alone, 1, positions, true);
        readBlocks(keys, stage, alone, nowMillis, 1, positions);
    }

    private void start(final RefillBatch.Keys keys, final int stage)
    {
        if (buckets == null)
        {
            buckets = links.raas().allocateBuffer((int)(RefillBatch.CAPACITY * positions * PAIR));
            blocks = links.raas().allocateBuffer(RefillBatch.CAPACITY * positions * 1024);
        }
        final long now = nanoClock.nanoTime();
        for (int i = 0; i < keys.count; i++)
        {
            started[i] = keys.stages[i] == stage ? now : started[i];
        }
    }

    /** Read again, in one round, the joiners' candidates of the keys in {@code stage}: {@link #buckets()}. */
    void readJoiners(final RefillBatch.Keys keys, final int stage)
    {
        readBuckets(keys, stage, stage, 0, 1, false);
    }

    private void readBuckets(final RefillBatch.Keys keys, final int stage, final int alone, final int from,
        final int to, final boolean collect)
    {
        round.start();
        for (int i = 0; i < keys.count; i++)
        {
            for (int p = from; keys.stages[i] == stage && p < Math.min(to, 1 + keys.servingCounts[i]); p++)
            {
                final int node = keys.nodes[i][p];
                final long at = (i * positions + p) * PAIR;
                round.read(node, false, probe.candidateOffset(node, keys.hashes[i], 0), buckets, at,
                    IndexLayout.COMBINED_BUCKET_LENGTH);
                round.read(node, false, probe.candidateOffset(node, keys.hashes[i], 1), buckets,
                    at + IndexLayout.COMBINED_BUCKET_LENGTH, IndexLayout.COMBINED_BUCKET_LENGTH);
            }
        }
        round.await();
        for (int i = 0; collect && i < keys.count; i++)
        {
            for (int p = from; keys.stages[i] == stage && p < Math.min(to, 1 + keys.servingCounts[i]); p++)
            {
                if (!collectSlot(keys, i, p))
                {
                    keys.stages[i] = alone;
                }
            }
        }
    }

    /** @return false when the reads cannot tell: else the key's one slot of its fingerprint there, if any. */
    private boolean collectSlot(final RefillBatch.Keys keys, final int i, final int p)
    {
        final long hash = keys.hashes[i];
        final long at = (i * positions + p) * PAIR;
        slots[i][p] = -1;
        words[i][p] = SlotWord.EMPTY;
        writeIds[i][p] = KvBlockLayout.NO_WRITE;
        blockWords[i][p] = SlotWord.EMPTY;
        if (CandidateBuckets.state(hash, buckets, at) != CandidateBuckets.HOLD_KEY)
        {
            // a split under way or since the directory was read: the single-key refill waits or reads it again
            return false;
        }
        probe.collect(keys.nodes[i][p], hash, buckets, at);
        final long[] candidates = probe.words();
        if (p == 0)
        {
            emptyCounts[i] = 0;
            for (int c = 0; c < probe.slotCount(); c++)
            {
                if (candidates[c] == SlotWord.EMPTY)
                {
                    empties[i][emptyCounts[i]++] = probe.slotOffsets()[c];
                }
            }
        }
        final int only = IndexDecisions.only(
            IndexDecisions.ofFingerprint(candidates, probe.slotCount(), KeyHash.fingerprint(hash)));
        if (only == IndexDecisions.NONE)
        {
            return true;
        }
        if (only == IndexDecisions.SEVERAL || SlotWord.lengthHint(candidates[only]) == 0)
        {
            return false;
        }
        blockWords[i][p] = candidates[only];
        slots[i][p] = probe.slotOffsets()[only];
        return true;
    }

    /**
     * One round: the block of each slot found, and what it says of its key (its live write, or none there).
     *
     * @param from the first position read; those below {@code to} are read.
     */
    private void readBlocks(final RefillBatch.Keys keys, final int stage, final int alone, final long nowMillis,
        final int from, final int to)
    {
        long needed = 0;
        for (int i = 0; i < keys.count; i++)
        {
            for (int p = from; keys.stages[i] == stage && p < Math.min(to, 1 + keys.servingCounts[i]); p++)
            {
                if (blockWords[i][p] != SlotWord.EMPTY)
                {
                    blockAt[i][p] = needed;
                    needed += SlotWord.lengthHint(blockWords[i][p]);
                }
            }
        }
        if (blocks.byteSize() < needed)
        {
            blocks = links.raas().allocateBuffer((int)Math.max(needed, 2 * blocks.byteSize()));
        }
        round.start();
        for (int i = 0; i < keys.count; i++)
        {
            for (int p = from; keys.stages[i] == stage && p < Math.min(to, 1 + keys.servingCounts[i]); p++)
            {
                final long word = blockWords[i][p];
                if (word != SlotWord.EMPTY)
                {
                    round.read(keys.nodes[i][p], true, SlotWord.blockOffset(word), blocks, blockAt[i][p],
                        SlotWord.lengthHint(word));
                }
            }
        }
        round.await();
        final long now = nanoClock.nanoTime();
        for (int i = 0; i < keys.count; i++)
        {
            if (keys.stages[i] == stage && now - started[i] > timeoutNanos)
            {
                // a block read after its slot may have been reused once a grace period of an operation's timeout passed
                keys.stages[i] = alone;
            }
            for (int p = from; keys.stages[i] == stage && p < Math.min(to, 1 + keys.servingCounts[i]); p++)
            {
                final long word = blockWords[i][p];
                if (word == SlotWord.EMPTY)
                {
                    continue;
                }
                final long at = blockAt[i][p];
                if (!KvBlockLayout.isWhole(blocks, at, SlotWord.lengthHint(word)))
                {
                    // a broken heap: the single-key refill says so
                    keys.stages[i] = alone;
                }
                else if (SlotWord.isCommitted(word) && KvBlockLayout.hasKey(blocks, at, keys.keys[i]))
                {
                    words[i][p] = word;
                    writeIds[i][p] = KvBlockLayout.isExpired(KvBlockLayout.expireAt(blocks, at), nowMillis) ?
                        KvBlockLayout.NO_WRITE : KvBlockLayout.writeId(blocks, at);
                }
                else
                {
                    // another key's block, or an insert of the key not committed yet: no value of it there
                    slots[i][p] = -1;
                }
            }
        }
    }
}
