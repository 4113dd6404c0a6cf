package io.dkv.client.index;

import io.dkv.client.KvClientContext;
import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.KvSession;
import io.dkv.client.RaceRetries;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.client.node.NodeLinks;
import io.dkv.client.node.WriteEpochs;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.SlotWord;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;

/**
 * Where a key is in one node's index, read one-sided: its two candidate combined buckets (one doorbell batch), the
 * slots among them of its fingerprint, the blocks they name, and what that makes of the key ({@link KeyState}).
 * The decisions are {@link IndexDecisions}'; this class does the reads.
 *
 * <p>The candidates last read, the block buffer and the key state are this probe's and valid until its next read:
 * callers read them before they probe again.
 */
public final class IndexProbe
{
    /** {@link #findAt}: the key's value is in the block buffer and {@link #found()} says where. */
    public static final int FOUND = 1;
    /** {@link #findAt}: the key has no committed slot there; two reads in a row agreed. */
    static final int MISSING = 0;
    /** {@link #findAt}: the key's committed slot names an expired block: a miss, its slot in {@link #found()}. */
    public static final int EXPIRED = 2;

    private final NodeLinks links;
    private final KvClientContext context;
    private final WriteEpochs epochs;
    private final NanoClock nanoClock;
    private final MemorySegment buckets;
    /** The block last read, whole; which word it was read for when it holds the key asked for. */
    private MemorySegment block;
    private long blockInBuffer;
    /** The candidate slots last read, in address order: their offsets in the index region and their words. */
    private final long[] slotOffsets = new long[IndexDecisions.MAX_SLOTS];
    private final long[] words = new long[IndexDecisions.MAX_SLOTS];
    private int slotCount;
    private final RepeatedRead missCheck = new RepeatedRead();
    private final KeyState state = new KeyState();
    private final KeyState found = new KeyState();
    private final RaceRetries races;
    private int foundNode;

    /**
     * The key's other replicas, where a pending write is settled before the one found here
     * (io.dkv.client.replication.PendingCopies); none with one copy of each key.
     */
    public interface OtherCopies
    {
        /**
         * @param node the node whose block of the write is about to be settled.
         * @return false when a copy could not be settled (its block holds another write now): read the key again.
         */
        boolean settle(int node, byte[] key, long writeId);
    }

    private OtherCopies otherCopies;

    /** @param otherCopies where a pending write is settled before this probe settles its own copy; null: nowhere. */
    public void otherCopies(final OtherCopies otherCopies)
    {
        this.otherCopies = otherCopies;
    }

    public IndexProbe(final NodeLinks links, final KvClientContext context)
    {
        this.links = links;
        this.context = context;
        this.epochs = context.writeEpochs();
        this.nanoClock = context.nanoClock();
        this.races = new RaceRetries(context.maxRetries());
        this.buckets = links.raas().allocateBuffer(2 * IndexLayout.COMBINED_BUCKET_LENGTH);
        this.block = links.raas().allocateBuffer(4096);
    }

    /** @return how many candidate slots the last read listed. */
    public int slotCount()
    {
        return slotCount;
    }

    /** @return the offsets in the index region of the candidate slots last read, in address order. */
    public long[] slotOffsets()
    {
        return slotOffsets;
    }

    /** @return the words of the candidate slots last read, in address order. */
    public long[] words()
    {
        return words;
    }

    /** @return the block buffer: the block last read, from offset 0. */
    public MemorySegment block()
    {
        return block;
    }

    /** @return what the last {@link #scan} found. */
    KeyState state()
    {
        return state;
    }

    /** @return where the last {@link #findAt} found the key: node, slot, word, write, expiry. */
    public KeyState found()
    {
        return found;
    }

    /** @return true when this read of the candidates saw the same words as the one before (a miss is confirmed). */
    public boolean missConfirmed()
    {
        return missCheck.confirms(words, slotCount);
    }

    /** The next read confirms no miss: something changed, or an operation starts. */
    public void forgetMisses()
    {
        missCheck.forget();
    }

    /** @return the offset in the index region of the key's candidate combined bucket 0 or 1 at the node. */
    public long candidateOffset(final int node, final long hash, final int candidate)
    {
        return CandidateBuckets.offset(links.view(node), hash, candidate);
    }

    /** List the slots of the key's two candidates, read into {@code buffer} at {@code offset}, in address order. */
    public void collect(final int node, final long hash, final MemorySegment buffer, final long offset)
    {
        slotCount = CandidateBuckets.collect(candidateOffset(node, hash, 0), candidateOffset(node, hash, 1), buffer,
            offset, slotOffsets, words);
    }

    /**
     * Read the key's two candidate combined buckets in one doorbell batch, and list their slots in address order (a
     * candidate pair in one group shares the overflow bucket: its slots once). Waits out a split that has them
     * locked, and reads the directory again when they moved.
     */
    public void readCandidates(final int node, final long hash)
    {
        final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
        while (true)
        {
            final MemoryNodeView view = links.view(node);
            final Connection connection = links.connection(node);
            final long first = candidateOffset(node, hash, 0);
            final long second = candidateOffset(node, hash, 1);
            final boolean read;
            try
            {
                // on this thread's own lane when it has one, else through the shared pipeline, not waited for
                read = connection.tryReadPair(
                    view.index, first, second, buckets, 0, IndexLayout.COMBINED_BUCKET_LENGTH);
                if (!read)
                {
                    final long token = links.startRequests();
                    connection.readAsync(view.index, first, buckets, 0, IndexLayout.COMBINED_BUCKET_LENGTH, token);
                    connection.readAsync(view.index, second, buckets, IndexLayout.COMBINED_BUCKET_LENGTH,
                        IndexLayout.COMBINED_BUCKET_LENGTH, token);
                    connection.flush();
                }
            }
            catch (final RaasException ex)
            {
                throw links.unreachable(node, ex);
            }
            if (!read)
            {
                links.await(node, 2);
            }
            final int bucketState = CandidateBuckets.state(hash, buckets, 0);
            if (bucketState == CandidateBuckets.HOLD_KEY)
            {
                collect(node, hash, buckets, 0);
                return;
            }
            if (nanoClock.nanoTime() > deadline)
            {
                throw new KvException("memory node " + links.nodeId(node) + " kept the key's buckets " +
                    (bucketState == CandidateBuckets.LOCKED ? "locked (a subtable split)" : "moving") + " for " +
                    context.timeoutMs() + " ms");
            }
            if (bucketState == CandidateBuckets.LOCKED)
            {
                // the node is splitting the subtable: a few microseconds to a millisecond
                Thread.yield();
            }
            else
            {
                // the subtable split since this thread read the directory
                links.readDirectoryAgain(node);
            }
        }
    }

    /**
     * Find the key among the candidate slots last read whose fingerprint matches: its committed slot and its
     * tentative ones (other than {@code ownTentative}, which is known without reading its block).
     */
    public KeyState scan(final int node, final long hash, final byte[] key, final long ownTentative)
    {
        state.clear();
        int candidates = IndexDecisions.ofFingerprint(words, slotCount, KeyHash.fingerprint(hash));
        while (candidates != 0)
        {
            final int i = Integer.numberOfTrailingZeros(candidates);
            candidates &= candidates - 1;
            final long word = words[i];
            if (word == ownTentative)
            {
                state.tentatives |= 1 << i;
                continue;
            }
            if (!readBlock(node, word, key))
            {
                continue;
            }
            if (SlotWord.isCommitted(word))
            {
                if (state.committedAt < 0)
                {
                    state.committedAt = i;
                    state.slot = slotOffsets[i];
                    state.word = word;
                    state.expireAt = KvBlockLayout.expireAt(block, 0);
                    state.writeId = KvBlockLayout.writeId(block, 0);
                    state.epoch = KvBlockLayout.epoch(block, 0);
                    state.pending = KvBlockLayout.isPending(block, 0);
                }
            }
            else
            {
                state.tentatives |= 1 << i;
            }
        }
        return state;
    }

    /** @return the key's state at a node, read afresh: its candidates read and scanned. */
    public KeyState readKey(final int node, final long hash, final byte[] key)
    {
        readCandidates(links.use(node), hash);
        return scan(node, hash, key, 0);
    }

    /** @return true when the committed block the last scan found holds {@code expected} (read again if need be). */
    public boolean committedHolds(final int node, final byte[] key, final byte[] expected)
    {
        // the scan read the committed block last unless a tentative slot of the key came after it
        final boolean inBuffer = blockInBuffer == state.word;
        return (inBuffer || readBlock(node, state.word, key)) && KvBlockLayout.hasValue(block, 0, expected);
    }

    /**
     * Look for the key's value at one node, in the candidates as they are now: its first committed slot whose block
     * holds it, or a miss once two reads in a row agree. A block read pending (a value, or a tombstone: an expired
     * block a delete under durability sync published) is settled on the node's disk first.
     *
     * @return {@link #FOUND} (the block in the block buffer), {@link #MISSING} or {@link #EXPIRED}; {@link #found()}
     * says where.
     * @throws KvException when every read raced a change, or the read outlasted the operation timeout.
     */
    public int findAt(final int node, final long hash, final byte[] key, final long nowMillis)
    {
        final long started = nanoClock.nanoTime();
        final int fingerprint = KeyHash.fingerprint(hash);
        missCheck.forget();
        for (races.start(); races.another(); )
        {
            readCandidates(node, hash);
            final int at = firstCommitted(node, fingerprint, key);
            if (at >= 0)
            {
                requireWithinDeadline(started, node, key);
                foundAt(node, at);
                // pending first, expired or not: a pending tombstone is a delete not on disk yet, whose miss is
                // answered once it is
                if (found.pending && !settled(node, SlotWord.blockOffset(found.word), found.writeId, key))
                {
                    missCheck.forget();
                    continue;
                }
                return found.expiredAt(nowMillis) ? EXPIRED : FOUND;
            }
            if (missCheck.confirms(words, slotCount))
            {
                return MISSING;
            }
        }
        throw races.exhausted("get", links.nodeId(node), key);
    }

    /** Keep the candidate {@code at}, whose block is in the block buffer, as where the key was found. */
    public void foundAt(final int node, final int at)
    {
        found.committedAt = at;
        found.tentatives = 0;
        found.slot = slotOffsets[at];
        found.word = words[at];
        found.writeId = KvBlockLayout.writeId(block, 0);
        found.epoch = KvBlockLayout.epoch(block, 0);
        epochs.observe(found.epoch);
        found.expireAt = KvBlockLayout.expireAt(block, 0);
        found.pending = KvBlockLayout.isPending(block, 0);
        foundNode = node;
    }

    /** @return the node of the last {@link #findAt} or {@link #foundAt}. */
    public int foundNode()
    {
        return foundNode;
    }

    /** @return the candidate slot holding the key's value (its block then in the block buffer), or -1. */
    public int firstCommitted(final int node, final int fingerprint, final byte[] key)
    {
        int i = IndexDecisions.nextCommitted(words, slotCount, 0, fingerprint);
        while (i >= 0 && !readBlock(node, words[i], key))
        {
            i = IndexDecisions.nextCommitted(words, slotCount, i + 1, fingerprint);
        }
        return i;
    }

    /**
     * A block read pending (its node may not have its key on disk yet: {@link KvBlockLayout}): ask the node to write
     * the key's state to disk and answer. Once it has, the node holds that write or a later one of the key on disk,
     * so the value read survives the node's restart (or was overwritten after it was read) and may be answered.
     *
     * @return true when settled (or the node keeps nothing on disk); false when the node's block there no longer
     * holds that write (it restarted since the read): the key is read again.
     * @throws KvException when the node cannot write it to disk or does not answer: the value is not answered.
     */
    public boolean settled(final int node, final long blockOffset, final long writeId, final byte[] key)
    {
        if (otherCopies != null && writeId != KvBlockLayout.NO_WRITE && !otherCopies.settle(node, key, writeId))
        {
            return false;
        }
        final int status = links.request(node, MemoryNodeProtocol.PERSIST, MemoryNodeProtocol.ANSWER_WHEN_DURABLE,
            blockOffset, writeId, true, "a pending value on disk");
        if (status == MemoryNodeProtocol.OK || status == MemoryNodeProtocol.NOT_PERSISTENT)
        {
            return true;
        }
        if (status == MemoryNodeProtocol.GONE)
        {
            return false;
        }
        throw new KvException("memory node " + links.nodeId(node) + " did not write key " + KvErrors.describe(key) +
            " to disk, whose value read was pending: it is not answered: " + MemoryNodeProtocol.why(status));
    }

    /**
     * Read the block a word names at a node into the block buffer, whole.
     *
     * @return its length in bytes.
     * @throws KvException when the block does not hold the key: a word read of the key's slot names one that does.
     */
    public int readWholeBlock(final int node, final long word, final byte[] key)
    {
        if (!readBlock(links.use(node), word, key))
        {
            throw new KvException("the block of key " + KvErrors.describe(key) + " at heap offset " +
                SlotWord.blockOffset(word) + " of memory node " + links.nodeId(node) + " holds another key");
        }
        return KvBlockLayout.blockLength(KvBlockLayout.keyLength(block, 0), KvBlockLayout.valueLength(block, 0));
    }

    /**
     * Read the block a slot points at into the block buffer.
     *
     * @return true when it holds {@code key}.
     * @throws KvException when the block is not whole: blocks are written before any slot points at them and never
     *                     rewritten, so this is a broken heap.
     */
    boolean readBlock(final int node, final long word, final byte[] key)
    {
        final MemoryNodeView view = links.view(node);
        final long offset = SlotWord.blockOffset(word);
        int length = SlotWord.lengthHint(word);
        blockInBuffer = SlotWord.EMPTY;
        final Connection connection = links.connection(node);
        try
        {
            if (length == 0)
            {
                connection.read(view.heap, offset, block, 0, SlotWord.UNIT);
                final int keyLength = KvBlockLayout.keyLength(block, 0);
                final int valueLength = KvBlockLayout.valueLength(block, 0);
                if (keyLength <= 0 || keyLength > KvBlockLayout.MAX_KEY_LENGTH || valueLength < 0 ||
                    valueLength > KvBlockLayout.MAX_VALUE_LENGTH)
                {
                    throw KvErrors.brokenBlock(links.nodeId(node), offset);
                }
                length = KvBlockLayout.blockLength(keyLength, valueLength);
            }
            if (block.byteSize() < length)
            {
                block = links.raas().allocateBuffer(
                    Math.min(KvSession.MAX_BLOCK, Math.max(length, (int)block.byteSize() * 2)));
            }
            connection.read(view.heap, offset, block, 0, length);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        if (!KvBlockLayout.isWhole(block, 0, length))
        {
            throw KvErrors.brokenBlock(links.nodeId(node), offset);
        }
        final boolean match = KvBlockLayout.hasKey(block, 0, key);
        blockInBuffer = match ? word : SlotWord.EMPTY;
        if (match)
        {
            // what this client writes from now on is of the key's epoch at least
            epochs.observe(KvBlockLayout.epoch(block, 0));
        }
        return match;
    }

    /**
     * A block read after its slot may have been replaced meanwhile; the node reuses its memory only after a grace
     * period longer than the operation timeout, so an operation that took longer must not answer with what it read.
     */
    public void requireWithinDeadline(final long startedNanos, final int node, final byte[] key)
    {
        if (nanoClock.nanoTime() - startedNanos > context.timeoutMs() * 1_000_000L)
        {
            throw new KvException("reading key " + KvErrors.describe(key) + " on memory node " + links.nodeId(node) +
                " took longer than " + context.timeoutMs() +
                " ms: what it read may have been reused, so it is not answered");
        }
    }
}
