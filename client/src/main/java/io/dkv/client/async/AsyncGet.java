package io.dkv.client.async;

import io.dkv.client.KvSession;
import io.dkv.client.Versioned;
import io.dkv.client.index.CandidateBuckets;
import io.dkv.client.index.IndexDecisions;
import io.dkv.client.index.RepeatedRead;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.format.ValueKind;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasStatus;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One GET carried by completions, not by a waiting thread: its candidate buckets are read without
 * waiting, and the completion of that round reads the block of a candidate slot, whose completion
 * answers the future. The read of one node the key is on now, as {@link KvSession}'s GET of a key no
 * change moves; whatever else it meets (a split, an expired value, a failure, a miss read only once,
 * a block whose length the slot does not tell) it hands to the synchronous GET, which starts over.
 *
 * <p>Each step runs on the thread that delivered the completion ending the previous one (the driver's
 * Poller, or a caller polling): the counter of the step's outstanding requests passes the object on.
 */
public final class AsyncGet extends AsyncOperation
{
    /** What the GET answers: the value, the value with its version ({@link Versioned}), or its time to live. */
    public static final int VALUE = 0;
    public static final int VERSIONED = 1;
    public static final int TTL = 2;
    /**
     * The key's block as it is, a transaction's intent too, with its version: a transaction's reads checked again at
     * its commit, which take an intent there as a change rather than wait for it.
     */
    public static final int RAW = 3;

    private static final int BUCKETS = 0;
    private static final int BLOCK = 1;
    /** A miss is answered once two reads in a row saw the same slot words; after this many, the slow path. */
    private static final int BUCKET_ROUNDS = 4;

    private final AsyncGets owner;
    private final MemorySegment buckets;
    private MemorySegment block;
    private final long[] slotOffsets = new long[CandidateBuckets.SLOTS];
    private final long[] words = new long[CandidateBuckets.SLOTS];
    private final RepeatedRead missCheck = new RepeatedRead();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final long timeoutNanos;

    /** Of the GET in progress: which one (completions of another are not its), and what it reads. */
    private byte[] key;
    private long hash;
    private int fingerprint;
    private int kind;
    private int node;
    private long nodeId;
    private MemoryNodeView view;
    private Connection connection;
    private long first;
    private long second;
    private long startedNanos;
    private long nowMillis;
    private CompletableFuture<Object> future;
    private int step;
    private int rounds;
    private int slotCount;
    private int candidate;
    private int blockLength;
    private volatile int failure;

    AsyncGet(final int index, final AsyncGets owner, final Raas raas, final long timeoutMs)
    {
        super(index);
        this.owner = owner;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        buckets = raas.allocateBuffer(2 * IndexLayout.COMBINED_BUCKET_LENGTH);
        block = raas.allocateBuffer(4096);
    }

    /** @return the token of this GET's requests: the object and the GET, so a stale completion is told apart. */
    long token()
    {
        return (long)index << 32 | (sequence & 0xffff_ffffL);
    }

    /**
     * Begin: read the key's candidate buckets at the node its read goes to now. Called by the thread that owns the
     * pool; what it sets is published to the completing thread by the requests it posts.
     */
    public void start(
        final int kind, final byte[] key, final long hash, final int node, final long nodeId,
        final MemoryNodeView view, final Connection connection, final long startedNanos, final long nowMillis,
        final CompletableFuture<Object> future)
    {
        sequence = owner.nextSequence();
        this.kind = kind;
        this.nodeId = nodeId;
        this.key = key;
        this.hash = hash;
        this.fingerprint = KeyHash.fingerprint(hash);
        this.node = node;
        this.view = view;
        this.connection = connection;
        this.first = CandidateBuckets.offset(view, hash, 0);
        this.second = CandidateBuckets.offset(view, hash, 1);
        this.startedNanos = startedNanos;
        this.nowMillis = nowMillis;
        this.future = future;
        rounds = 0;
        missCheck.forget();
        readBuckets();
    }

    /** A request of this GET completed. */
    void onCompletion(final int status)
    {
        if (status != RaasStatus.SUCCESS)
        {
            failure = status;
        }
        if (outstanding.decrementAndGet() == 0)
        {
            advance();
        }
    }

    private void readBuckets()
    {
        step = BUCKETS;
        rounds++;
        if (!post(2))
        {
            return;
        }
        // once the last request is posted another thread may finish the GET and start the next: only locals after
        final Connection posting = connection;
        final long token = token();
        try
        {
            posting.readAsync(view.index, first, buckets, 0, IndexLayout.COMBINED_BUCKET_LENGTH, token);
            posting.readAsync(view.index, second, buckets, IndexLayout.COMBINED_BUCKET_LENGTH,
                IndexLayout.COMBINED_BUCKET_LENGTH, token);
        }
        catch (final RuntimeException ex)
        {
            // refused (the connection closed, the node restarted), perhaps after the first was sent
            abandon();
            return;
        }
        posting.flush();
    }

    private void readBlock(final long word)
    {
        blockLength = SlotWord.lengthHint(word);
        if (blockLength == 0 || blockLength > KvSession.MAX_BLOCK)
        {
            // a block whose length its slot does not tell takes two reads: the synchronous GET makes them
            fallBack(false);
            return;
        }
        if (block.byteSize() < blockLength)
        {
            block = owner.allocateBuffer(Math.max(blockLength, (int)block.byteSize() * 2));
        }
        step = BLOCK;
        if (!post(1))
        {
            return;
        }
        final Connection posting = connection;
        try
        {
            posting.readAsync(view.heap, SlotWord.blockOffset(word), block, 0, blockLength, token());
        }
        catch (final RuntimeException ex)
        {
            abandon();
            return;
        }
        posting.flush();
    }

    /** @return false when the GET is over (its time ran out): the requests are not posted. */
    private boolean post(final int requests)
    {
        if (owner.nanoTime() - startedNanos > timeoutNanos)
        {
            fallBack(false);
            return false;
        }
        failure = RaasStatus.SUCCESS;
        outstanding.set(requests);
        return true;
    }

    private void advance()
    {
        try
        {
            if (failure != RaasStatus.SUCCESS)
            {
                fallBack(true);
            }
            else if (step == BLOCK)
            {
                onBlock();
            }
            else
            {
                onBuckets();
            }
        }
        catch (final RuntimeException ex)
        {
            // a broken block or anything else unforeseen: the synchronous GET meets it again and says what it is
            fallBack(false);
        }
    }

    private void onBuckets()
    {
        final int state = CandidateBuckets.state(hash, buckets, 0);
        if (state != CandidateBuckets.HOLD_KEY)
        {
            // a split is under way or done since this thread read the directory
            if (state == CandidateBuckets.MOVED)
            {
                owner.connections().moved(node, view);
            }
            fallBack(false);
            return;
        }
        slotCount = CandidateBuckets.collect(first, second, buckets, 0, slotOffsets, words);
        candidate = 0;
        nextCandidate();
    }

    private void nextCandidate()
    {
        candidate = IndexDecisions.nextCommitted(words, slotCount, candidate, fingerprint);
        if (candidate >= 0)
        {
            readBlock(words[candidate]);
            return;
        }
        if (missCheck.confirms(words, slotCount))
        {
            finish(kind == TTL ? Long.valueOf(-2) : null);
            return;
        }
        if (rounds == BUCKET_ROUNDS)
        {
            fallBack(false);
            return;
        }
        readBuckets();
    }

    private void onBlock()
    {
        if (!KvBlockLayout.isWhole(block, 0, blockLength))
        {
            fallBack(false);
            return;
        }
        if (!KvBlockLayout.hasKey(block, 0, key))
        {
            candidate++;
            nextCandidate();
            return;
        }
        if (KvBlockLayout.isExpired(KvBlockLayout.expireAt(block, 0), nowMillis) ||
            KvBlockLayout.isPending(block, 0) ||
            kind != RAW && KvBlockLayout.isIntent(KvBlockLayout.expireAt(block, 0)) ||
            owner.nanoTime() - startedNanos > timeoutNanos ||
            kind == VALUE && ValueKind.kindOf(KvBlockLayout.expireAt(block, 0)) != ValueKind.STRING)
        {
            // an expired slot is emptied, a pending block's node is asked to put it on disk first, a transaction's
            // intent is read by its transaction's state, a read that outlasted the grace period is not answered, and
            // a string's read of a collection is refused: all the slow path
            fallBack(false);
            return;
        }
        // what the client writes once it has this answer is of the key's epoch at least
        owner.epochs().observe(KvBlockLayout.epoch(block, 0));
        finish(answer());
    }

    /** @return what the GET asked for, of the key's block in the block buffer: as the synchronous forms answer. */
    private Object answer()
    {
        final long expireAt = ValueKind.expiryOf(KvBlockLayout.expireAt(block, 0));
        return switch (kind)
        {
            case VERSIONED, RAW -> new Versioned(KvBlockLayout.value(block, 0), KvBlockLayout.expireAt(block, 0),
                nodeId, view.index.nodeEpoch(), slotOffsets[candidate], words[candidate], startedNanos,
                KvBlockLayout.writeId(block, 0));
            case TTL -> expireAt == KvBlockLayout.NEVER ? -1L : expireAt - nowMillis;
            default -> KvBlockLayout.value(block, 0);
        };
    }

    private void finish(final Object value)
    {
        final CompletableFuture<Object> done = future;
        answered++;
        release();
        done.complete(value);
    }

    /** @param failed a request failed or was refused: the node's connection is opened again before it is used. */
    private void fallBack(final boolean failed)
    {
        final CompletableFuture<Object> answered = future;
        final byte[] asked = key;
        final int askedKind = kind;
        if (failed)
        {
            owner.connections().failed(node, connection);
        }
        release();
        owner.fallBack(askedKind, asked, answered);
    }

    /**
     * A request of the step could not be posted, and one posted before it may still complete and write its buffer:
     * this object is retired, not used again, and the GET goes the slow way.
     */
    private void abandon()
    {
        final CompletableFuture<Object> answered = future;
        final byte[] asked = key;
        owner.connections().failed(node, connection);
        owner.retire(this);
        owner.fallBack(kind, asked, answered);
    }

    private void release()
    {
        key = null;
        future = null;
        view = null;
        connection = null;
        owner.release(this);
    }
}
