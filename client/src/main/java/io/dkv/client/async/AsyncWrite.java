package io.dkv.client.async;

import io.dkv.client.Durability;
import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import io.dkv.client.index.CandidateBuckets;
import io.dkv.client.index.IndexDecisions;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.client.replication.ChainRest;
import io.dkv.client.replication.PersistRequests;
import io.dkv.client.replication.ReplicaChain;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.format.ValueKind;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasStatus;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One write carried by completions, not by a waiting thread: {@link ReplicaChain}'s protocol over the key's serving
 * replicas (a key with one copy is a chain of one), each round posted by the thread whose completion ended the one
 * before. Round one writes the block to every replica and reads each one's candidate buckets; round two reads the
 * block of the key's fingerprint on each; from a settled state whose head holds what the rule asks, the tail is
 * won by one CAS (an insert where it has no slot: a tentative word, a second read, the commit), then each
 * predecessor to the head the same way.
 *
 * <p>It goes only where the synchronous write would go straight: anything else before the tail is won (a replica
 * unsettled, a split, more than one slot of the fingerprint, a race lost, a failure, the time or the membership run
 * out) hands the write to the synchronous one, which starts over; nothing of this one is visible then. After the
 * tail is won it cannot start over: what it cannot finish alone (a predecessor that changed, the durability the
 * client asks) is finished on a client thread from where it stopped ({@link ReplicaChain#finish}), and a failure is
 * an outcome unknown, as the synchronous write says.
 *
 * <p>Its steps all read and write the one write's state, so they stay in one class, past the usual length.
 */
public final class AsyncWrite extends AsyncOperation
{
    /** The largest block a write carried by completions puts: a larger one goes the synchronous way. */
    public static final int MAX_BLOCK = 64 * 1024;
    /** Tentative CASes lost to another insert into the same empty slot before the synchronous write takes over. */
    private static final int INSERT_ATTEMPTS = 4;
    private static final long PAIR = 2L * IndexLayout.COMBINED_BUCKET_LENGTH;

    /** The block WRITEs and every replica's candidate buckets. */
    private static final int READ_STATE = 0;
    /** The block each replica's slot of the key's fingerprint names. */
    private static final int READ_BLOCKS = 1;
    /** A CAS of a replica's committed slot from the word read. */
    private static final int SWAP = 2;
    /** An insert where the replica has no slot of the key: its buckets, a tentative word, again, the commit. */
    private static final int INSERT_READ = 3;
    private static final int INSERT_TENTATIVE = 4;
    private static final int INSERT_CHECK = 5;
    private static final int INSERT_COMMIT = 6;
    /** The tentative word taken back before the write goes another way. */
    private static final int WITHDRAW = 7;

    /** Of the write in progress, set by the session before {@link #start}: the replicas and this write's words. */
    public final int[] nodes;
    public final long[] nodeIds;
    public final MemoryNodeView[] views;
    public final Connection[] connections;
    public final long[] blockOffsets;
    public final long[] newWords;

    private final AsyncWrites owner;
    private final long timeoutNanos;
    /** Per replica, as read: its committed slot of the key (or -1), the word there and the write it names. */
    private final long[] slots;
    private final long[] words;
    private final long[] writeIds;
    /** Per replica: the one slot word of the key's fingerprint whose block round two reads, and one of another key. */
    private final long[] blockWords;
    private final long[] foreignWords;
    private final long[] candidateSlots = new long[CandidateBuckets.SLOTS];
    private final long[] candidateWords = new long[CandidateBuckets.SLOTS];
    private final MemorySegment buckets;
    private MemorySegment blocks;
    private MemorySegment out;
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicInteger failedReplicas = new AtomicInteger();

    private volatile int failure;
    private volatile long casResult;

    private byte[] key;
    private long hash;
    private int fingerprint;
    private byte[] value;
    private int rule;
    private byte[] expected;
    private Versioned version;
    private long expireAt;
    private long writeId;
    private int length;
    private int count;
    private long epoch;
    private long startedNanos;
    private long nowMillis;
    private CompletableFuture<Object> future;
    private int step;
    private int position;
    private int stride;
    private boolean publishing;
    private boolean won;
    private long wonNanos;
    private long tentativeWord;
    /** The head's block read by the last round is pending: a refusal is not answered from it. */
    private boolean headPending;
    /** The head's committed block holds a transaction's intent, which the synchronous write resolves first. */
    private boolean headIntent;
    /** Whether the head's live block is a collection's: a put or delete over it is refused (the synchronous path). */
    private boolean headCollection;
    private long insertSlot;
    private int insertAttempts;
    /**
     * A transaction's raw swap: compared by write id only, answered with the version it put in place (or
     * {@link Boolean#FALSE}), and handed to {@link AsyncSlowPath#swapRaw} where completions cannot carry it.
     */
    private boolean raw;
    /** What this write promises: the client's as it began, whatever the client's is by the time it is on every copy. */
    private Durability durability = Durability.NONE;

    AsyncWrite(final int index, final AsyncWrites owner, final Raas raas, final int replicas, final long timeoutMs)
    {
        super(index);
        this.owner = owner;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        nodes = new int[replicas];
        nodeIds = new long[replicas];
        views = new MemoryNodeView[replicas];
        connections = new Connection[replicas];
        blockOffsets = new long[replicas];
        newWords = new long[replicas];
        slots = new long[replicas];
        words = new long[replicas];
        writeIds = new long[replicas];
        blockWords = new long[replicas];
        foreignWords = new long[replicas];
        buckets = raas.allocateBuffer((int)(replicas * PAIR));
        blocks = raas.allocateBuffer(replicas * 1024);
        out = raas.allocateBuffer(1024);
    }

    /** Owner: @return the buffer this write's block is put into, at least {@code blockLength} bytes. */
    public MemorySegment out(final int blockLength)
    {
        if (out.byteSize() < blockLength)
        {
            out = owner.allocateBuffer(Math.min(MAX_BLOCK, Math.max(blockLength, (int)out.byteSize() * 2)));
        }
        return out;
    }

    /**
     * Make ready: the session has placed the key ({@link #nodes}, {@link #views}, {@link #connections}) and, for a
     * value, put its block into {@link #out} and made room for it on each replica ({@link #blockOffsets},
     * {@link #newWords}). Nothing is posted until {@link #go}, on this thread or another (a completion's included,
     * as nothing on the way can wait); what was set here is published to it by whatever hands the write over, and to
     * the completing threads by the requests posted.
     *
     * @param value   the new value, or null to delete.
     * @param epoch   the membership epoch the key was placed in, or -1 for a key with one copy.
     * @param raw     a transaction's raw swap ({@link ReplicaChain#IF_VERSION}): answered with the version it puts
     *                in place, and compared by write id only.
     */
    public void prepare(
        final byte[] key, final long hash, final byte[] value, final int rule, final byte[] expected,
        final Versioned version, final long expireAt, final long writeId, final int length, final int count,
        final long epoch, final long nowMillis, final CompletableFuture<Object> future, final boolean raw)
    {
        sequence = owner.nextSequence();
        this.raw = raw;
        this.key = key;
        this.hash = hash;
        this.fingerprint = KeyHash.fingerprint(hash);
        this.value = value;
        this.rule = rule;
        this.expected = expected;
        this.version = version;
        this.expireAt = expireAt;
        this.writeId = writeId;
        this.length = length;
        this.count = count;
        this.epoch = epoch;
        this.nowMillis = nowMillis;
        this.future = future;
        publishing = false;
        won = false;
        failedReplicas.set(0);
    }

    /**
     * @param durability what this write promises, as its block was written (pending under SYNC): its nodes are told
     *                   so once it is on every copy. Set with {@link #prepare}, before {@link #go}.
     */
    public void durability(final Durability durability)
    {
        this.durability = durability;
    }

    /** Post a {@link #prepare}d write's first round; its time runs from here. */
    public void go()
    {
        startedNanos = owner.nanoTime();
        readState();
    }

    /** As {@link #go}, for a raw swap prepared before the version it swaps from was known. */
    public void go(final Versioned from)
    {
        version = from;
        startedNanos = owner.nanoTime();
        readState();
    }

    /** A {@link #prepare}d write that will not be made: back to the pool, its block's room left unused. */
    public void cancel()
    {
        release();
    }

    /**
     * @return what a successful write answers: the version a raw swap put in place (by its word where the key has
     * one copy, else by its write id), true for a conditional write, null for a put.
     */
    private Object success()
    {
        if (raw)
        {
            final byte[] placed = value == null ? new byte[0] : value;
            // a key that held no slot was inserted, at the slot its insert took
            final long slot = words[0] == SlotWord.EMPTY ? insertSlot : slots[0];
            return count == 1 && epoch < 0 ? new Versioned(placed, expireAt, nodeIds[0], views[0].index.nodeEpoch(),
                slot, newWords[0], owner.nanoTime(), writeId) :
                new Versioned(placed, expireAt, -1, -1, -1, SlotWord.EMPTY, owner.nanoTime(), writeId);
        }
        return rule == ReplicaChain.PUT ? null : Boolean.TRUE;
    }

    /** A request of this write, to replica {@code replica}, completed. */
    void onCompletion(final int replica, final int status, final long word)
    {
        if (status != RaasStatus.SUCCESS)
        {
            failure = status;
            failedReplicas.getAndAccumulate(1 << replica, (a, b) -> a | b);
        }
        casResult = word;
        if (outstanding.decrementAndGet() == 0)
        {
            advance();
        }
    }

    private long token(final int replica)
    {
        return (long)index << 40 | (long)replica << 32 | (sequence & 0xffff_ffffL);
    }

    private void post(final int requests)
    {
        failure = RaasStatus.SUCCESS;
        outstanding.set(requests);
    }

    private boolean outOfTime()
    {
        return owner.nanoTime() - startedNanos > timeoutNanos;
    }

    // ---- the rounds; once the last request of a round is posted another thread may finish the write and start the
    // next: only locals after it

    private void readState()
    {
        step = READ_STATE;
        final int replicas = count;
        final int blockLength = length;
        post(replicas * (blockLength != 0 ? 3 : 2));
        final MemorySegment buffer = buckets;
        final long keyHash = hash;
        for (int p = 0; p < replicas; p++)
        {
            final MemoryNodeView view = views[p];
            final Connection connection = connections[p];
            final long token = token(p);
            try
            {
                if (blockLength != 0)
                {
                    connection.writeAsync(view.heap, blockOffsets[p], out, 0, blockLength, token);
                }
                connection.readAsync(view.index, CandidateBuckets.offset(view, keyHash, 0), buffer, p * PAIR,
                    IndexLayout.COMBINED_BUCKET_LENGTH, token);
                connection.readAsync(view.index, CandidateBuckets.offset(view, keyHash, 1), buffer,
                    p * PAIR + IndexLayout.COMBINED_BUCKET_LENGTH, IndexLayout.COMBINED_BUCKET_LENGTH, token);
            }
            catch (final RuntimeException ex)
            {
                // refused (the connection closed, the node restarted), perhaps after others were sent
                abandon(ex);
                return;
            }
            connection.flush();
        }
    }

    private void onState()
    {
        int reads = 0;
        int widest = 0;
        for (int p = 0; p < count; p++)
        {
            slots[p] = -1;
            words[p] = SlotWord.EMPTY;
            writeIds[p] = KvBlockLayout.NO_WRITE;
            blockWords[p] = SlotWord.EMPTY;
            foreignWords[p] = SlotWord.EMPTY;
            if (!holdsKey(p))
            {
                // a split under way or since the directory was read
                fallBack();
                return;
            }
            final int slotCount = collect(p);
            final int only = IndexDecisions.only(IndexDecisions.ofFingerprint(candidateWords, slotCount, fingerprint));
            if (only == IndexDecisions.SEVERAL || (only >= 0 && SlotWord.lengthHint(candidateWords[only]) == 0))
            {
                // which slot is the key's takes reads of several blocks, or two of one: the synchronous write's
                fallBack();
                return;
            }
            if (only >= 0)
            {
                blockWords[p] = candidateWords[only];
                slots[p] = candidateSlots[only];
                widest = Math.max(widest, SlotWord.lengthHint(blockWords[p]));
                reads++;
            }
        }
        if (reads == 0)
        {
            headPending = false;
            headIntent = false;
            headCollection = false;
            evaluate();
            return;
        }
        if (outOfTime())
        {
            fallBack();
            return;
        }
        readBlocks(widest, reads);
    }

    private void readBlocks(final int widest, final int reads)
    {
        step = READ_BLOCKS;
        stride = widest;
        if (blocks.byteSize() < (long)count * widest)
        {
            blocks = owner.allocateBuffer(count * Math.max(widest, 1024));
        }
        post(reads);
        final MemorySegment buffer = blocks;
        int posted = 0;
        for (int p = 0; posted < reads; p++)
        {
            final long word = blockWords[p];
            if (word == SlotWord.EMPTY)
            {
                continue;
            }
            final Connection connection = connections[p];
            try
            {
                connection.readAsync(views[p].heap, SlotWord.blockOffset(word), buffer, (long)p * widest,
                    SlotWord.lengthHint(word), token(p));
            }
            catch (final RuntimeException ex)
            {
                abandon(ex);
                return;
            }
            posted++;
            connection.flush();
        }
    }

    private void onBlocks()
    {
        long newestEpoch = KvBlockLayout.NO_EPOCH;
        headPending = false;
        headIntent = false;
        headCollection = false;
        for (int p = 0; p < count; p++)
        {
            final long word = blockWords[p];
            if (word == SlotWord.EMPTY)
            {
                continue;
            }
            final long at = (long)p * stride;
            if (!KvBlockLayout.isWhole(blocks, at, SlotWord.lengthHint(word)))
            {
                // a broken heap: the synchronous write meets it again and says so
                fallBack();
                return;
            }
            if (!KvBlockLayout.hasKey(blocks, at, key))
            {
                // another key's slot of the same fingerprint: an insert here knows it is not this key's
                slots[p] = -1;
                foreignWords[p] = word;
                continue;
            }
            if (!SlotWord.isCommitted(word))
            {
                // another writer's insert of the key, not committed yet: it holds no value of it
                slots[p] = -1;
                continue;
            }
            words[p] = word;
            newestEpoch = Math.max(newestEpoch, KvBlockLayout.epoch(blocks, at));
            headPending |= p == 0 && KvBlockLayout.isPending(blocks, at);
            headIntent |= p == 0 && KvBlockLayout.isIntent(KvBlockLayout.expireAt(blocks, at));
            headCollection |= p == 0 && ValueKind.kindOf(KvBlockLayout.expireAt(blocks, at)) != ValueKind.STRING &&
                !KvBlockLayout.isExpired(KvBlockLayout.expireAt(blocks, at), nowMillis);
            writeIds[p] = KvBlockLayout.isExpired(KvBlockLayout.expireAt(blocks, at), nowMillis) ?
                KvBlockLayout.NO_WRITE : KvBlockLayout.writeId(blocks, at);
        }
        owner.epochs().observe(newestEpoch);
        if (value != null && newestEpoch > KvBlockLayout.epoch(out, 0))
        {
            // a write is never of an epoch before the one it replaces: the synchronous write writes its block again
            fallBack();
            return;
        }
        evaluate();
    }

    /** Every replica was read: go on from a settled state whose head holds what the rule asks, at the tail. */
    private void evaluate()
    {
        for (int p = 1; p < count; p++)
        {
            if (writeIds[p] != writeIds[0])
            {
                // a write in flight, or one whose writer died: the synchronous write waits for it or rolls it forward
                fallBack();
                return;
            }
        }
        if (headIntent && rule != ReplicaChain.IF_VERSION ||
            headCollection && (rule == ReplicaChain.PUT || rule == ReplicaChain.DELETE))
        {
            // the synchronous write resolves the intent, or refuses to put or delete over a collection
            fallBack();
            return;
        }
        if (!holds())
        {
            if (headPending)
            {
                // a refusal tells what the key holds: the synchronous write has the node put that on disk first
                fallBack();
                return;
            }
            finish(Boolean.FALSE);
            return;
        }
        if (outOfTime() || (epoch >= 0 && owner.epoch() != epoch))
        {
            fallBack();
            return;
        }
        publishing = true;
        position = count - 1;
        publish();
    }

    private boolean holds()
    {
        final boolean present = writeIds[0] != KvBlockLayout.NO_WRITE;
        return switch (rule)
        {
            case ReplicaChain.PUT -> true;
            case ReplicaChain.DELETE -> present;
            // a present head's block is the first in the blocks buffer
            case ReplicaChain.IF_VALUE -> expected == null ? !present :
                present && KvBlockLayout.hasValue(blocks, 0, expected);
            // a raw swap from no version places an intent where the key holds nothing (the protocol's commit)
            case ReplicaChain.IF_VERSION -> version == null ? !present : present && writeIds[0] == version.writeId;
            default -> throw new IllegalArgumentException("no such write rule: " + rule);
        };
    }

    // ---- publishing, from the tail to the head

    private void publish()
    {
        final int p = position;
        if (words[p] == SlotWord.EMPTY)
        {
            if (newWords[p] == SlotWord.EMPTY)
            {
                // a delete where the replica holds no slot of the key
                published();
                return;
            }
            insertAttempts = 0;
            insertRead();
            return;
        }
        step = SWAP;
        cas(p, slots[p], words[p], newWords[p]);
    }

    private void published()
    {
        final long now = owner.nanoTime();
        if (!won)
        {
            won = true;
            wonNanos = now;
        }
        position--;
        if (position < 0)
        {
            final Object answer = success();
            if (durability != Durability.NONE)
            {
                persist(answer);
                return;
            }
            finish(answer);
            return;
        }
        if (now - wonNanos > timeoutNanos)
        {
            // past this point another writer may roll the tail's write forward: post nothing more
            unknown(position, "it ran past its deadline after winning the tail", null);
            return;
        }
        publish();
    }

    private void insertRead()
    {
        step = INSERT_READ;
        readBuckets(position);
    }

    private void onInsertRead()
    {
        final int p = position;
        if (!holdsKey(p))
        {
            giveUp();
            return;
        }
        final int slotCount = collect(p);
        if (mayBeTheKeys(p, slotCount) != 0)
        {
            // perhaps the key's, committed or being inserted: the synchronous insert reads its block
            giveUp();
            return;
        }
        final int empty = IndexDecisions.firstEmpty(candidateWords, slotCount);
        if (empty < 0)
        {
            // both candidates full: the subtable splits, which the synchronous insert asks for
            giveUp();
            return;
        }
        tentativeWord = SlotWord.tentative(newWords[p]);
        insertSlot = candidateSlots[empty];
        step = INSERT_TENTATIVE;
        cas(p, insertSlot, SlotWord.EMPTY, tentativeWord);
    }

    private void onTentative()
    {
        if (casResult != SlotWord.EMPTY)
        {
            // another insert took the slot first
            if (++insertAttempts < INSERT_ATTEMPTS)
            {
                insertRead();
                return;
            }
            giveUp();
            return;
        }
        step = INSERT_CHECK;
        readBuckets(position);
    }

    private void onInsertCheck()
    {
        final int p = position;
        if (!holdsKey(p))
        {
            withdraw();
            return;
        }
        final int slotCount = collect(p);
        final int mine = IndexDecisions.indexOf(candidateSlots, slotCount, insertSlot);
        // no block is read here: every other slot of the fingerprint not known to be another key's may be the key's
        final int others = mine < 0 ? 0 : mayBeTheKeys(p, slotCount) & ~(1 << mine);
        final int verdict = IndexDecisions.insertVerdict(mine, mine < 0 ? SlotWord.EMPTY : candidateWords[mine],
            tentativeWord, false, others);
        if (verdict == IndexDecisions.INSERT_CLEARED)
        {
            // another insert of the key came first and cleared this one
            giveUp();
            return;
        }
        if (verdict != IndexDecisions.INSERT_COMMIT || others != 0)
        {
            // the subtable split meanwhile and the key's buckets are elsewhere now, or a committed slot of the key
            // appeared, or another insert of it runs: the synchronous insert decides
            withdraw();
            return;
        }
        step = INSERT_COMMIT;
        cas(p, insertSlot, tentativeWord, newWords[p]);
    }

    private void onCommit()
    {
        if (casResult == tentativeWord)
        {
            published();
            return;
        }
        // another insert of the key cleared this one before it committed
        giveUp();
    }

    private void withdraw()
    {
        step = WITHDRAW;
        cas(position, insertSlot, tentativeWord, SlotWord.EMPTY);
    }

    private void readBuckets(final int p)
    {
        post(2);
        final MemoryNodeView view = views[p];
        final Connection connection = connections[p];
        final long token = token(p);
        try
        {
            connection.readAsync(view.index, CandidateBuckets.offset(view, hash, 0), buckets, p * PAIR,
                IndexLayout.COMBINED_BUCKET_LENGTH, token);
            connection.readAsync(view.index, CandidateBuckets.offset(view, hash, 1), buckets,
                p * PAIR + IndexLayout.COMBINED_BUCKET_LENGTH, IndexLayout.COMBINED_BUCKET_LENGTH, token);
        }
        catch (final RuntimeException ex)
        {
            abandon(ex);
            return;
        }
        connection.flush();
    }

    private void cas(final int p, final long slot, final long expectedWord, final long desired)
    {
        post(1);
        final Connection connection = connections[p];
        try
        {
            connection.casAsync(views[p].index, slot, expectedWord, desired, token(p));
        }
        catch (final RuntimeException ex)
        {
            abandon(ex);
            return;
        }
        connection.flush();
    }

    /**
     * @return the candidate slots of replica {@code p} as collected holding a word of the key's fingerprint that is
     * not known to name another key's block.
     */
    private int mayBeTheKeys(final int p, final int slotCount)
    {
        return IndexDecisions.ofFingerprint(candidateWords, slotCount, fingerprint) &
            ~IndexDecisions.holding(candidateWords, slotCount, foreignWords[p]);
    }

    /** @return true when replica {@code p}'s buckets as read hold the key; when a split moved them, says so. */
    private boolean holdsKey(final int p)
    {
        final int state = CandidateBuckets.state(hash, buckets, p * PAIR);
        if (state == CandidateBuckets.MOVED)
        {
            owner.connections().moved(nodes[p], views[p]);
        }
        return state == CandidateBuckets.HOLD_KEY;
    }

    private int collect(final int p)
    {
        final MemoryNodeView view = views[p];
        return CandidateBuckets.collect(CandidateBuckets.offset(view, hash, 0), CandidateBuckets.offset(view, hash, 1),
            buckets, p * PAIR, candidateSlots, candidateWords);
    }

    // ---- steps and endings

    private void advance()
    {
        try
        {
            if (failure != RaasStatus.SUCCESS)
            {
                onFailure();
                return;
            }
            switch (step)
            {
                case READ_STATE -> onState();
                case READ_BLOCKS -> onBlocks();
                case SWAP ->
                {
                    if (casResult == words[position])
                    {
                        published();
                    }
                    else if (raw && !won)
                    {
                        // another write changed the key since it was read: a transaction's swap is refused, as the
                        // synchronous one would be (its transaction runs again), and never waits for a client thread,
                        // which readers of the transaction's other intents may all hold while they wait for it
                        finish(Boolean.FALSE);
                    }
                    else
                    {
                        // another write changed the replica since it was read
                        giveUp();
                    }
                }
                case INSERT_READ -> onInsertRead();
                case INSERT_TENTATIVE -> onTentative();
                case INSERT_CHECK -> onInsertCheck();
                case INSERT_COMMIT -> onCommit();
                default -> giveUp();
            }
        }
        catch (final RuntimeException ex)
        {
            if (publishing)
            {
                unknown(Math.max(position, 0), "it failed: " + ex, null);
            }
            else
            {
                fallBack();
            }
        }
    }

    /** A request failed: its node's connection is opened again before it is used. */
    private void onFailure()
    {
        final int failedMask = failedReplicas.getAndSet(0);
        for (int p = 0; p < count; p++)
        {
            if ((failedMask & 1 << p) != 0)
            {
                owner.connections().failed(nodes[p], connections[p]);
            }
        }
        if (publishing)
        {
            // a CAS of a replica may have landed with its answer lost: the write may have taken effect
            unknown(position, "a request failed (status " + failure + ")", null);
            return;
        }
        fallBack();
    }

    /** The write goes no further from completions: from the start, or from where it stopped once it won the tail. */
    private void giveUp()
    {
        if (won)
        {
            handOff(position, success());
            return;
        }
        fallBack();
    }

    private void finish(final Object answer)
    {
        final CompletableFuture<Object> done = future;
        answered++;
        release();
        done.complete(answer);
    }

    /** Nothing of this write is visible: the synchronous write starts it over, on a client thread. */
    private void fallBack()
    {
        final CompletableFuture<Object> done = future;
        final int asked = rule;
        final byte[] askedKey = key;
        final byte[] askedValue = value;
        final byte[] askedExpected = expected;
        final Versioned askedVersion = version;
        final long askedExpireAt = expireAt;
        final boolean askedRaw = raw;
        release();
        slowWrite(asked, askedKey, askedValue, askedExpected, askedVersion, askedExpireAt, done, askedRaw);
    }

    private void slowWrite(final int asked, final byte[] askedKey, final byte[] askedValue,
        final byte[] askedExpected, final Versioned askedVersion, final long askedExpireAt,
        final CompletableFuture<Object> done, final boolean askedRaw)
    {
        if (askedRaw)
        {
            owner.slowPath().swapRaw(askedKey, askedVersion, askedValue, askedExpireAt, done);
            return;
        }
        owner.slowPath().write(asked, askedKey, askedValue, askedExpected, askedVersion, askedExpireAt, done);
    }

    /** Every replica holds the write: the client's agent tells their nodes, and completes the future once told. */
    private void persist(final Object answer)
    {
        int told = 0;
        for (int p = 0; p < count; p++)
        {
            told += length != 0 || words[p] != SlotWord.EMPTY ? 1 : 0;
        }
        final long[] ids = new long[told];
        final long[] offsets = new long[told];
        final long[] replaced = new long[told];
        int next = 0;
        for (int p = 0; p < count; p++)
        {
            if (length != 0 || words[p] != SlotWord.EMPTY)
            {
                // a new block, or the one a delete emptied: as ReplicaChain tells them
                ids[next] = nodeIds[p];
                replaced[next] = writeIds[p];
                offsets[next++] = length != 0 ? blockOffsets[p] : SlotWord.blockOffset(words[p]);
            }
        }
        if (told == 0)
        {
            finish(answer);
            return;
        }
        final PersistRequests.Job job =
            new PersistRequests.Job(key, ids, offsets, replaced, answer, future, durability == Durability.SYNC);
        if (owner.slowPath().persist(job))
        {
            release();
            return;
        }
        handOff(-1, answer);
    }

    private void handOff(final int from, final Object answer)
    {
        final ChainRest rest = new ChainRest(key, hash, writeId, Arrays.copyOf(nodes, count),
            Arrays.copyOf(slots, count), Arrays.copyOf(words, count), Arrays.copyOf(writeIds, count),
            Arrays.copyOf(newWords, count),
            Arrays.copyOf(blockOffsets, count), from, length != 0, wonNanos, answer, future, durability);
        release();
        owner.slowPath().finishChain(rest);
    }

    private void unknown(final int p, final String why, final KvException cause)
    {
        final CompletableFuture<Object> done = future;
        final String text = "write of key " + KvErrors.describe(key) +
            (won ? " won its tail but not" : " at its tail,") + " memory node " + nodeIds[p] + ": " + why +
            "; it may or may not take effect";
        release();
        done.completeExceptionally(new ReplicaChain.OutcomeUnknown(text, cause));
    }

    /**
     * A request could not be posted, and one posted before it may still complete and write this object's buffers:
     * it is retired, not used again.
     */
    private void abandon(final RuntimeException cause)
    {
        for (int p = 0; p < count; p++)
        {
            owner.connections().failed(nodes[p], connections[p]);
        }
        final CompletableFuture<Object> done = future;
        if (publishing)
        {
            final String text = "write of key " + KvErrors.describe(key) + " could not reach memory node " +
                nodeIds[position] + " after it began to swap its replicas (" + cause.getMessage() +
                "); it may or may not take effect";
            clear();
            owner.retire(this);
            done.completeExceptionally(new ReplicaChain.OutcomeUnknown(text, null));
            return;
        }
        final int asked = rule;
        final byte[] askedKey = key;
        final byte[] askedValue = value;
        final byte[] askedExpected = expected;
        final Versioned askedVersion = version;
        final long askedExpireAt = expireAt;
        final boolean askedRaw = raw;
        clear();
        owner.retire(this);
        slowWrite(asked, askedKey, askedValue, askedExpected, askedVersion, askedExpireAt, done, askedRaw);
    }

    private void release()
    {
        clear();
        owner.release(this);
    }

    private void clear()
    {
        key = null;
        value = null;
        expected = null;
        version = null;
        future = null;
        Arrays.fill(views, null);
        Arrays.fill(connections, null);
    }
}
