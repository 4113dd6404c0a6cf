package io.dkv.client.replication;

import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.index.CandidateBuckets;
import io.dkv.client.index.IndexDecisions;
import io.dkv.client.index.IndexProbe;
import io.dkv.client.node.HeapChunks;
import io.dkv.client.node.NodeLinks;
import io.dkv.client.node.NodeRound;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import org.agrona.concurrent.EpochClock;

import java.util.Arrays;

/**
 * The refill of up to {@link #CAPACITY} keys at once ({@link ReplicaChain#refill} of each, client/README.md,
 * "Refill in batches"): each step of the single-key refill is one round of one-sided requests for every key of the
 * batch, posted together and awaited together. The joiners' candidates; the serving replicas' candidates; the blocks
 * their slots name ({@link RefillReads}); the copies written; the joiners' slots swapped, or empty ones taken by
 * tentative words; those read again and committed; and the same reads again to check that each key is in place.
 * A key in anything but the common state (a write in flight, a split, several slots of its fingerprint, a block too
 * long for its slot to say, a race lost) is left to the single-key refill, which knows every case; so is every key
 * not done when a round fails.
 */
public final class RefillBatch
{
    /** Keys refilled in one batch: their CAS in one round stay within a round's tracked requests. */
    public static final int CAPACITY = 16;
    /** {@link #outcome}s, as {@link ReplicaChain#refill} says them. */
    public static final int IN_PLACE = ReplicaChain.IN_PLACE;
    public static final int REFILLED = ReplicaChain.REFILLED;
    public static final int NOT_PLACED = ReplicaChain.NOT_PLACED;
    public static final int NOT_SETTLED = ReplicaChain.NOT_SETTLED;

    /** Where a key of the batch is. */
    private static final int TO_READ = 0;
    private static final int TO_COPY = 1;
    private static final int TO_CHECK = 2;
    private static final int DONE = 3;
    private static final int ALONE = 4;
    /** Its joiner's state read by the scan that found it: its serving replicas' read next. */
    private static final int SCANNED = 5;

    /**
     * For tests: run between the joiners' reads and the serving replicas' (a writer's write landing between them).
     * Never set outside them.
     */
    public Runnable betweenReads;

    private final NodeLinks links;
    private final IndexProbe probe;
    private final HeapChunks chunks;
    private final ReplicaChain chain;
    private final EpochClock epochClock;
    private final long timeoutNanos;
    private final int replicas;
    private final NodeRound round;
    private final RefillReads reads;
    private final Keys batch;
    private final int[] outcomes = new int[CAPACITY];
    private final boolean[] changed = new boolean[CAPACITY];
    /** Per key: the copy's word on the joiner, where its block went (or the block a swap to empty drops), length. */
    private final long[] desired = new long[CAPACITY];
    private final long[] copyOffsets = new long[CAPACITY];
    private final int[] copyLengths = new int[CAPACITY];
    /** Per key: the empty slot its insert takes at its joiner, or -1. */
    private final long[] insertSlots = new long[CAPACITY];
    /** Per key: whether its joiner's scan read its state; the word it read, the block's expiry and write id. */
    private final boolean[] scanned = new boolean[CAPACITY];
    private final long[] scannedWords = new long[CAPACITY];
    private final long[] scannedExpireAts = new long[CAPACITY];
    private final long[] scannedWriteIds = new long[CAPACITY];
    private final int[] servingNodes;
    private final long[] servingWords;
    private final int[] oneNode = new int[1];
    private final long[] oneOffset = new long[1];
    private long nowMillis;

    /** The keys of a batch and where each is: placed, read, copied. One thread's, as the batch is. */
    static final class Keys
    {
        int count;
        final byte[][] keys = new byte[CAPACITY][];
        final long[] hashes = new long[CAPACITY];
        /** Per key: its joiner at 0, then its serving replicas in placement order. */
        final int[][] nodes;
        final int[] servingCounts = new int[CAPACITY];
        final int[] stages = new int[CAPACITY];

        Keys(final int replicas)
        {
            nodes = new int[CAPACITY][1 + replicas];
        }
    }

    public RefillBatch(final NodeLinks links, final IndexProbe probe, final HeapChunks chunks, final ReplicaChain chain,
        final int replicas, final KvClientContext context)
    {
        this.links = links;
        this.probe = probe;
        this.chunks = chunks;
        this.chain = chain;
        this.epochClock = context.epochClock();
        this.timeoutNanos = context.timeoutMs() * 1_000_000L;
        this.replicas = replicas;
        this.round = new NodeRound(links);
        this.reads = new RefillReads(links, probe, round, CAPACITY, 1 + replicas, context.nanoClock(), timeoutNanos);
        this.batch = new Keys(replicas);
        this.servingNodes = new int[replicas];
        this.servingWords = new long[replicas];
    }

    /** @return true when added; false when the batch is full (run it first). */
    public boolean add(final byte[] key, final int joiner)
    {
        if (batch.count == CAPACITY)
        {
            return false;
        }
        batch.keys[batch.count] = key;
        batch.nodes[batch.count][0] = joiner;
        scanned[batch.count] = false;
        batch.count++;
        return true;
    }

    /**
     * Add a key found by a scan of its joiner's index, with the state the scan read there: its slot's word, and the
     * expiry and write id of the block it names (read with the key). Only its serving replicas are read then, as
     * {@link #run} reads them after the joiner, and a joiner that holds their write is in place: three reads of a key
     * where {@link #add}'s take six, on a restarted node whose keys are nearly all in place. A key not in place is
     * then read whole, its joiner again, as {@link #add}'s are.
     *
     * @return true when added; false when the batch is full (run it first).
     */
    public boolean addScanned(final byte[] key, final int joiner, final long word, final long expireAt,
        final long writeId)
    {
        if (!add(key, joiner))
        {
            return false;
        }
        final int i = batch.count - 1;
        scanned[i] = true;
        scannedWords[i] = word;
        scannedExpireAts[i] = expireAt;
        scannedWriteIds[i] = writeId;
        return true;
    }

    public int size()
    {
        return batch.count;
    }

    boolean full()
    {
        return batch.count == CAPACITY;
    }

    int joiner(final int i)
    {
        return batch.nodes[i][0];
    }

    /** @return what the refill of key {@code i} came to: {@link #IN_PLACE}, {@link #REFILLED} and so on. */
    public int outcome(final int i)
    {
        return outcomes[i];
    }

    /** @return key {@code i}'s joiner's word when it was found in place (it may be empty). */
    long joinWordInPlace(final int i)
    {
        return reads.words[i][0];
    }

    /**
     * Key {@code i}'s serving replicas' words when it was found in place.
     *
     * @return how many, their nodes and words put in the arrays.
     */
    int servingWordsInPlace(final int i, final int[] nodesOut, final long[] wordsOut)
    {
        for (int p = 0; p < batch.servingCounts[i]; p++)
        {
            nodesOut[p] = batch.nodes[i][1 + p];
            wordsOut[p] = reads.words[i][1 + p];
        }
        return batch.servingCounts[i];
    }

    /** @return the chain its refills run over, the session's. */
    ReplicaChain chain()
    {
        return chain;
    }

    /** @return the links its rounds go over, the session's. */
    NodeLinks links()
    {
        return links;
    }

    IndexProbe probe()
    {
        return probe;
    }

    EpochClock epochClock()
    {
        return epochClock;
    }

    /** @return an operation's timeout: past it since a slot was read, the block it named may have been reused. */
    long timeoutNanos()
    {
        return timeoutNanos;
    }

    /** @return the copies a key has, at most. */
    int replicas()
    {
        return replicas;
    }

    /** @return keys of the last run that the single-key refill took over. */
    public int alone()
    {
        int alone = 0;
        for (int i = 0; i < batch.count; i++)
        {
            alone += batch.stages[i] == ALONE ? 1 : 0;
        }
        return alone;
    }

    /** Empty the batch, for the next keys. */
    public void clear()
    {
        Arrays.fill(batch.keys, 0, batch.count, null);
        batch.count = 0;
    }

    /**
     * Refill every key added, each onto its joiner: {@link #outcome} says what each came to. A key the single-key
     * refill took that failed (its node did not answer) comes to {@link #NOT_SETTLED}.
     */
    public void run()
    {
        nowMillis = epochClock.time();
        try
        {
            place();
            judgeScanned();
            reads.read(batch, TO_READ, ALONE, nowMillis, betweenReads);
            judge(TO_READ, IN_PLACE, TO_COPY);
            copy();
            swapOrInsert();
            reads.read(batch, TO_CHECK, ALONE, nowMillis, betweenReads);
            judge(TO_CHECK, REFILLED, ALONE);
        }
        catch (final KvException ex)
        {
            // a node that did not answer: the single-key refill reads it afresh (its links are made again) or fails
            for (int i = 0; i < batch.count; i++)
            {
                batch.stages[i] = batch.stages[i] == DONE ? DONE : ALONE;
            }
        }
        for (int i = 0; i < batch.count; i++)
        {
            if (batch.stages[i] == ALONE)
            {
                refillAlone(i);
            }
        }
    }

    /** Each key's serving replicas; every node of the batch's views made again first where its last request failed. */
    private void place()
    {
        for (int i = 0; i < batch.count; i++)
        {
            changed[i] = false;
            batch.stages[i] = ALONE;
            outcomes[i] = NOT_PLACED;
        }
        for (int i = 0; i < batch.count; i++)
        {
            batch.hashes[i] = KeyHash.hash(batch.keys[i]);
            final int serving = chain.refillPlacement(batch.hashes[i], batch.keys[i], batch.nodes[i][0],
                batch.nodes[i], 1);
            batch.servingCounts[i] = Math.max(serving, 0);
            // none serving: the single-key refill looks for the replica that served last
            batch.stages[i] = serving > 0 ? TO_READ : serving == 0 ? ALONE : DONE;
            for (int p = 0; serving > 0 && p <= serving; p++)
            {
                links.use(batch.nodes[i][p]);
            }
        }
    }

    private void refillAlone(final int i)
    {
        int outcome;
        try
        {
            outcome = chain.refill(batch.keys[i], batch.nodes[i][0]);
        }
        catch (final KvException ex)
        {
            outcome = NOT_SETTLED;
        }
        if (outcome == IN_PLACE || outcome == REFILLED)
        {
            reads.words[i][0] = chain.joinWordInPlace();
            batch.servingCounts[i] = chain.servingWordsInPlace(servingNodes, servingWords);
            System.arraycopy(servingNodes, 0, batch.nodes[i], 1, batch.servingCounts[i]);
            System.arraycopy(servingWords, 0, reads.words[i], 1, batch.servingCounts[i]);
            outcome = changed[i] ? REFILLED : outcome;
        }
        outcomes[i] = outcome;
    }

    /**
     * The keys added by {@link #addScanned}: their serving replicas read (two rounds), those whose joiner holds the
     * serving write in place; the others are read whole next, as any key.
     */
    private void judgeScanned()
    {
        boolean any = false;
        for (int i = 0; i < batch.count; i++)
        {
            if (batch.stages[i] == TO_READ && scanned[i])
            {
                batch.stages[i] = SCANNED;
                reads.words[i][0] = scannedWords[i];
                reads.writeIds[i][0] = KvBlockLayout.isExpired(scannedExpireAts[i], nowMillis) ?
                    KvBlockLayout.NO_WRITE : scannedWriteIds[i];
                any = true;
            }
        }
        if (any)
        {
            reads.readServingStates(batch, SCANNED, ALONE, nowMillis);
            judge(SCANNED, IN_PLACE, TO_READ);
        }
    }

    /** Keys whose serving replicas agree and whose joiner names their write are in place; others go on, or alone. */
    private void judge(final int stage, final int inPlace, final int otherwise)
    {
        for (int i = 0; i < batch.count; i++)
        {
            if (batch.stages[i] != stage)
            {
                continue;
            }
            final long[] writeIds = reads.writeIds[i];
            boolean settled = true;
            for (int p = 2; p <= batch.servingCounts[i]; p++)
            {
                settled &= writeIds[p] == writeIds[1];
            }
            if (!settled)
            {
                // a write in flight, or one whose writer died: the single-key refill waits, or rolls it forward
                batch.stages[i] = ALONE;
            }
            else if (writeIds[0] == writeIds[1])
            {
                batch.stages[i] = DONE;
                outcomes[i] = inPlace;
            }
            else
            {
                batch.stages[i] = otherwise;
            }
        }
    }

    /** One round: the copy each joiner lacks, of the head's block as read, written into the joiner's heap. */
    private void copy()
    {
        for (int i = 0; i < batch.count; i++)
        {
            copyLengths[i] = 0;
            if (batch.stages[i] != TO_COPY)
            {
                continue;
            }
            if (reads.writeIds[i][1] == KvBlockLayout.NO_WRITE)
            {
                // the key has no value: the joiner's slot is emptied
                desired[i] = SlotWord.EMPTY;
                copyOffsets[i] = SlotWord.blockOffset(reads.words[i][0]);
                continue;
            }
            final long at = reads.blockAt[i][1];
            if (KvBlockLayout.isPending(reads.blocks(), at))
            {
                // a write not answered yet: the single-key refill settles it on every replica before copying it
                batch.stages[i] = ALONE;
                continue;
            }
            final int length = KvBlockLayout.blockLength(KvBlockLayout.keyLength(reads.blocks(), at),
                KvBlockLayout.valueLength(reads.blocks(), at));
            final int joiner = batch.nodes[i][0];
            oneNode[0] = joiner;
            chunks.reserveBlocks(oneNode, 1, length, oneOffset);
            copyLengths[i] = length;
            copyOffsets[i] = oneOffset[0];
            desired[i] = SlotWord.committed(KeyHash.fingerprint(batch.hashes[i]), oneOffset[0], length,
                KvBlockLayout.expireAt(reads.blocks(), at) != KvBlockLayout.NEVER,
                chunks.generationOf(joiner, oneOffset[0]));
        }
        round.start();
        for (int i = 0; i < batch.count; i++)
        {
            if (copyLengths[i] != 0)
            {
                round.writeHeap(batch.nodes[i][0], copyOffsets[i], reads.blocks(), reads.blockAt[i][1],
                    copyLengths[i]);
            }
        }
        round.await();
    }

    /**
     * One round of CAS: each joiner's slot swapped from the word read to the copy's, or an empty slot taken by a
     * tentative word where it has none; then the tentative slots read again and committed where the node's insert rule
     * says (one more round each).
     */
    private void swapOrInsert()
    {
        round.start();
        for (int i = 0; i < batch.count; i++)
        {
            if (batch.stages[i] != TO_COPY)
            {
                continue;
            }
            final int joiner = batch.nodes[i][0];
            final long joinWord = reads.words[i][0];
            insertSlots[i] = joinWord != SlotWord.EMPTY ? -1 : freeSlot(i);
            if (joinWord != SlotWord.EMPTY)
            {
                round.cas(joiner, reads.slots[i][0], joinWord, desired[i], i);
            }
            else if (insertSlots[i] >= 0)
            {
                round.cas(joiner, insertSlots[i], SlotWord.EMPTY, SlotWord.tentative(desired[i]), i);
            }
            else
            {
                // both candidates full: the single-key refill asks the node to split
                batch.stages[i] = ALONE;
            }
        }
        round.await();
        boolean inserting = false;
        for (int i = 0; i < batch.count; i++)
        {
            if (batch.stages[i] != TO_COPY)
            {
                continue;
            }
            final long joinWord = reads.words[i][0];
            if (round.found(i) != joinWord)
            {
                // changed since it was read: the single-key refill reads it again
                batch.stages[i] = ALONE;
            }
            else if (joinWord != SlotWord.EMPTY)
            {
                swapped(i);
            }
            else
            {
                inserting = true;
            }
        }
        if (inserting)
        {
            commitInserts();
        }
    }

    /**
     * The tentative slots' candidates read again; each committed where it is its key's only slot of the fingerprint
     * there, else withdrawn and left to the single-key refill's whole rule (it yields, clears, splits).
     */
    private void commitInserts()
    {
        reads.readJoiners(batch, TO_COPY);
        round.start();
        for (int i = 0; i < batch.count; i++)
        {
            if (batch.stages[i] != TO_COPY)
            {
                continue;
            }
            final long tentative = SlotWord.tentative(desired[i]);
            final boolean commit = insertCommits(i, tentative);
            round.cas(batch.nodes[i][0], insertSlots[i], tentative, commit ? desired[i] : SlotWord.EMPTY, i);
            if (!commit)
            {
                batch.stages[i] = ALONE;
            }
        }
        round.await();
        for (int i = 0; i < batch.count; i++)
        {
            if (batch.stages[i] == TO_COPY)
            {
                if (round.found(i) == SlotWord.tentative(desired[i]))
                {
                    swapped(i);
                }
                else
                {
                    // cleared by an earlier insert of the key: the single-key refill reads it again
                    batch.stages[i] = ALONE;
                }
            }
        }
    }

    /** @return true when the node's insert rule commits key {@code i}'s tentative slot: its only one there. */
    private boolean insertCommits(final int i, final long tentative)
    {
        final long at = reads.joinerBuckets(i);
        final long hash = batch.hashes[i];
        if (CandidateBuckets.state(hash, reads.buckets(), at) != CandidateBuckets.HOLD_KEY)
        {
            return false;
        }
        probe.collect(batch.nodes[i][0], hash, reads.buckets(), at);
        final long[] candidates = probe.words();
        final int mine = IndexDecisions.indexOf(probe.slotOffsets(), probe.slotCount(), insertSlots[i]);
        final int ofFingerprint = IndexDecisions.ofFingerprint(candidates, probe.slotCount(),
            KeyHash.fingerprint(hash));
        return mine >= 0 && ofFingerprint == 1 << mine && IndexDecisions.insertVerdict(mine, candidates[mine],
            tentative, false, ofFingerprint) == IndexDecisions.INSERT_COMMIT;
    }

    /** @return the first empty candidate slot of key {@code i} at its joiner that no earlier key of the batch took. */
    private long freeSlot(final int i)
    {
        for (int e = 0; e < reads.emptyCounts[i]; e++)
        {
            final long slot = reads.empties[i][e];
            boolean taken = false;
            for (int j = 0; j < i && !taken; j++)
            {
                taken = batch.stages[j] == TO_COPY && batch.nodes[j][0] == batch.nodes[i][0] && insertSlots[j] == slot;
            }
            if (!taken)
            {
                return slot;
            }
        }
        return -1;
    }

    private void swapped(final int i)
    {
        chunks.persist(batch.nodes[i][0], copyOffsets[i], reads.writeIds[i][0]);
        changed[i] = true;
        batch.stages[i] = TO_CHECK;
    }
}
