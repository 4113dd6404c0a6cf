package io.dkv.client.replication;

import io.dkv.client.KvErrors;
import io.dkv.client.Versioned;
import io.dkv.client.index.CandidateBuckets;
import io.dkv.client.index.IndexDecisions;
import io.dkv.client.index.IndexProbe;
import io.dkv.client.index.KeyState;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.client.node.HeapChunks;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.client.node.NodeLinks;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.format.ValueKind;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A key's state at each of its replicas, as {@link IndexProbe#readKey} reads it at one, in two rounds posted together
 * and awaited together: every replica's candidate buckets (with the write's blocks, when it has placed some), then the
 * one block of the key's fingerprint at each. The replication protocol's first round (client/README.md,
 * "Replication").
 */
public final class ReplicaReads
{
    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final NodeLinks links;
    private final IndexProbe probe;
    private final HeapChunks chunks;
    /** The candidate buckets of a key's replicas, read in one round. */
    private MemorySegment replicaBuckets;
    /** The blocks the key's replicas' slots name, read in one round, and the word each was read for (or EMPTY). */
    private MemorySegment replicaBlocks;
    private final long[] replicaBlockWords = new long[MemoryNodeAvailability.CAPACITY];
    /** Replicas read on their own: buckets moving, or several slots of the fingerprint. */
    private final boolean[] replicaAlone = new boolean[MemoryNodeAvailability.CAPACITY];
    /** Replicas whose committed block holds a transaction's intent, as a mask (bit p: replica p), of the last read. */
    private long intents;
    /** The kind ({@code ValueKind}) of the head's committed block as last read: a string when it has none. */
    private int headKind;
    /** Whether the head's committed block as last read is pending: its write not answered yet. */
    private boolean headPending;
    /** The latest durable epoch of the committed blocks the last read found (a known head's was seen when read). */
    private long newestEpoch;

    public ReplicaReads(final NodeLinks links, final IndexProbe probe, final HeapChunks chunks)
    {
        this.links = links;
        this.probe = probe;
        this.chunks = chunks;
    }

    /**
     * Read the key's state at several nodes: its committed slot at each, the slot's word and the write it names. A node
     * whose buckets hold more than one slot of the key's fingerprint, or were moving, is read on its own after.
     *
     * @param slotsOut     per node: the key's committed slot, or -1.
     * @param wordsOut     per node: that slot's word, or EMPTY.
     * @param idsOut       per node: the write it names, or NO_WRITE when it has no value (none, or an expired one).
     * @param writeOffsets where the write's blocks go, as {@link HeapChunks#placeBlocks} made room for them.
     * @param writeLength  the block's length, or 0 when the write places none.
     * @param head         the version the write was read with, or null: the head's word needs no read while known.
     * @param nowMillis    when the operation started: expiry is judged by it.
     */
    void read(final int[] nodes, final int count, final long hash, final byte[] key, final long[] slotsOut,
        final long[] wordsOut, final long[] idsOut, final long[] writeOffsets, final int writeLength,
        final Versioned head, final long nowMillis)
    {
        // the head's word is known from the read the version came from, while its block cannot have been reused:
        // the slot's word alone then tells whether the head still names that write (a split that moved the slot
        // leaves another word there, and the head is read on its own after)
        final boolean headKnown = head != null && links.knowsWord(head, nodes[0]);
        final long pair = 2L * IndexLayout.COMBINED_BUCKET_LENGTH;
        if (replicaBuckets == null || replicaBuckets.byteSize() < count * pair)
        {
            replicaBuckets = links.raas().allocateBuffer((int)(count * pair));
        }
        for (int p = 0; p < count; p++)
        {
            links.use(nodes[p]);
        }
        final long token = links.startRequests();
        for (int p = 0; p < count; p++)
        {
            final int node = nodes[p];
            try
            {
                final Connection connection = links.connection(node);
                final MemoryNodeView view = links.view(node);
                if (writeLength != 0)
                {
                    connection.writeAsync(view.heap, writeOffsets[p], chunks.out(), 0, writeLength, token);
                }
                if (p == 0 && headKnown)
                {
                    connection.readAsync(view.index, head.slotOffset, replicaBuckets, 0, Long.BYTES, token);
                }
                else
                {
                    connection.readAsync(view.index, probe.candidateOffset(node, hash, 0), replicaBuckets,
                        p * pair, IndexLayout.COMBINED_BUCKET_LENGTH, token);
                    connection.readAsync(view.index, probe.candidateOffset(node, hash, 1), replicaBuckets,
                        p * pair + IndexLayout.COMBINED_BUCKET_LENGTH, IndexLayout.COMBINED_BUCKET_LENGTH, token);
                }
                connection.flush();
            }
            catch (final RaasException ex)
            {
                throw links.unreachable(node, ex);
            }
        }
        links.awaitRound(nodes, count, (writeLength != 0 ? 3 : 2) * count - (headKnown ? 1 : 0));
        intents = headKnown && KvBlockLayout.isIntent(head.expireAtMillis()) ? 1 : 0;
        headKind = headKnown ? head.kind() : ValueKind.STRING;
        // a known head holds the version's write, which its writer answered: settled
        headPending = false;
        newestEpoch = KvBlockLayout.NO_EPOCH;
        final int fingerprint = KeyHash.fingerprint(hash);
        int reads = 0;
        int stride = 0;
        for (int p = 0; p < count; p++)
        {
            slotsOut[p] = -1;
            wordsOut[p] = SlotWord.EMPTY;
            idsOut[p] = KvBlockLayout.NO_WRITE;
            replicaBlockWords[p] = SlotWord.EMPTY;
            replicaAlone[p] = true;
            if (p == 0 && headKnown)
            {
                replicaAlone[0] = replicaBuckets.get(SLOT, 0) != head.word;
                if (!replicaAlone[0])
                {
                    slotsOut[0] = head.slotOffset;
                    wordsOut[0] = head.word;
                    idsOut[0] = head.writeId;
                }
                continue;
            }
            if (CandidateBuckets.state(hash, replicaBuckets, p * pair) != CandidateBuckets.HOLD_KEY)
            {
                // a split under way or since the directory was read: the single read waits for it or reads it again
                continue;
            }
            probe.collect(nodes[p], hash, replicaBuckets, p * pair);
            final long[] words = probe.words();
            final int only = IndexDecisions.only(IndexDecisions.ofFingerprint(words, probe.slotCount(), fingerprint));
            final int hint = only >= 0 ? SlotWord.lengthHint(words[only]) : 0;
            // no slot of the fingerprint: the node holds no value of the key, and there is nothing to read
            replicaAlone[p] = only == IndexDecisions.SEVERAL || (only >= 0 && hint == 0);
            if (hint != 0)
            {
                replicaBlockWords[p] = words[only];
                slotsOut[p] = probe.slotOffsets()[only];
                stride = Math.max(stride, hint);
                reads++;
            }
        }
        if (reads != 0)
        {
            readBlocks(nodes, count, stride, reads, key, slotsOut, wordsOut, idsOut, nowMillis);
        }
        for (int p = 0; p < count; p++)
        {
            if (replicaAlone[p])
            {
                final KeyState state = probe.readKey(nodes[p], hash, key);
                slotsOut[p] = state.slot;
                wordsOut[p] = state.word;
                idsOut[p] = state.liveWriteId(nowMillis);
                newestEpoch = Math.max(newestEpoch, state.epoch);
                intents = KvBlockLayout.isIntent(state.expireAt) ? intents | 1L << p : intents & ~(1L << p);
                if (p == 0)
                {
                    headKind = state.committed() ? ValueKind.kindOf(state.expireAt) : ValueKind.STRING;
                    headPending = state.committed() && state.pending;
                }
            }
        }
    }

    /** The second round: the one block of the key's fingerprint at each node that has one. */
    private void readBlocks(final int[] nodes, final int count, final int stride, final int reads,
        final byte[] key, final long[] slotsOut, final long[] wordsOut, final long[] idsOut, final long nowMillis)
    {
        if (replicaBlocks == null || replicaBlocks.byteSize() < (long)count * stride)
        {
            replicaBlocks = links.raas().allocateBuffer(count * Math.max(stride, 1024));
        }
        final long token = links.startRequests();
        for (int p = 0; p < count; p++)
        {
            final long word = replicaBlockWords[p];
            if (word == SlotWord.EMPTY)
            {
                continue;
            }
            final int node = nodes[p];
            try
            {
                final Connection connection = links.connection(node);
                connection.readAsync(links.view(node).heap, SlotWord.blockOffset(word), replicaBlocks,
                    (long)p * stride, SlotWord.lengthHint(word), token);
                connection.flush();
            }
            catch (final RaasException ex)
            {
                throw links.unreachable(node, ex);
            }
        }
        links.awaitRound(nodes, count, reads);
        for (int p = 0; p < count; p++)
        {
            final long word = replicaBlockWords[p];
            if (word == SlotWord.EMPTY)
            {
                continue;
            }
            final long at = (long)p * stride;
            if (!KvBlockLayout.isWhole(replicaBlocks, at, SlotWord.lengthHint(word)))
            {
                throw KvErrors.brokenBlock(links.nodeId(nodes[p]), SlotWord.blockOffset(word));
            }
            if (!SlotWord.isCommitted(word) || !KvBlockLayout.hasKey(replicaBlocks, at, key))
            {
                // another key's block, or an insert of the key not yet committed: the node holds no value of it
                slotsOut[p] = -1;
                continue;
            }
            wordsOut[p] = word;
            idsOut[p] = KvBlockLayout.isExpired(KvBlockLayout.expireAt(replicaBlocks, at), nowMillis) ?
                KvBlockLayout.NO_WRITE : KvBlockLayout.writeId(replicaBlocks, at);
            final long epoch = KvBlockLayout.epoch(replicaBlocks, at);
            chunks.epochs().observe(epoch);
            newestEpoch = Math.max(newestEpoch, epoch);
            if (KvBlockLayout.isIntent(KvBlockLayout.expireAt(replicaBlocks, at)))
            {
                intents |= 1L << p;
            }
            if (p == 0)
            {
                headKind = ValueKind.kindOf(KvBlockLayout.expireAt(replicaBlocks, at));
                headPending = KvBlockLayout.isPending(replicaBlocks, at);
            }
        }
    }

    /**
     * @return the kind of value ({@code ValueKind}) the last read found in the head's committed block; a string when
     * it found none.
     */
    public int headKind()
    {
        return headKind;
    }

    /**
     * @return the latest durable epoch of the committed blocks the last read found: a write replacing them must be of
     * that epoch at least.
     */
    public long newestEpoch()
    {
        return newestEpoch;
    }

    /** @return true when the last read found the head's committed block pending: its write not answered yet. */
    public boolean headPending()
    {
        return headPending;
    }

    /** @return true when the last read found replica {@code p}'s committed block holding a transaction's intent. */
    public boolean intentAt(final int p)
    {
        return (intents & 1L << p) != 0;
    }
}
