package io.dkv.client.index;

import io.dkv.client.node.NodeLinks;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.format.ValueKind;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;

/**
 * The values of up to {@link #BATCH} keys of one node: their candidate buckets read in one doorbell batch, then the
 * block of each key's first committed slot. What one read cannot answer (a split under way, a miss, which needs two
 * agreeing reads, a value pending on the node's disk) is left to the single-key read, which says how.
 */
public final class BatchRead
{
    /** What a read of a key that holds a collection (a hash or a set) answers: compared by identity. */
    public static final byte[] COLLECTION = new byte[0];
    /** What a read of a key that holds a string in pieces answers: compared by identity. */
    public static final byte[] PIECES = new byte[0];

    /** Keys of one node whose candidates are read in one doorbell batch. */
    public static final int BATCH = 16;

    private final NodeLinks links;
    private final IndexProbe probe;
    private final SlotWriter writer;
    private final NanoClock nanoClock;
    private MemorySegment buckets;

    public BatchRead(final NodeLinks links, final IndexProbe probe, final SlotWriter writer, final NanoClock nanoClock)
    {
        this.links = links;
        this.probe = probe;
        this.writer = writer;
        this.nanoClock = nanoClock;
    }

    /**
     * Read the keys {@code batch[0..count)} (indices into {@code keys}) at one node.
     *
     * @param values        filled with key k's value at k, or null when it has none.
     * @param single        set true at k where the single-key read must answer instead.
     * @param removeExpired whether a reader empties the slot of an expired value (keys with one copy).
     * @param nowMillis     when the operation started: expiry is judged by it.
     */
    public void read(final int node, final byte[][] keys, final long[] hashes, final int[] batch, final int count,
        final byte[][] values, final boolean[] single, final boolean removeExpired, final long nowMillis)
    {
        if (buckets == null)
        {
            buckets = links.raas().allocateBuffer(BATCH * 2 * IndexLayout.COMBINED_BUCKET_LENGTH);
        }
        final long token = links.startRequests();
        final Connection connection = links.connection(node);
        try
        {
            for (int j = 0; j < count; j++)
            {
                final long hash = hashes[batch[j]];
                final long offset = (long)j * 2 * IndexLayout.COMBINED_BUCKET_LENGTH;
                connection.readAsync(links.view(node).index, probe.candidateOffset(node, hash, 0), buckets,
                    offset, IndexLayout.COMBINED_BUCKET_LENGTH, token);
                connection.readAsync(links.view(node).index, probe.candidateOffset(node, hash, 1), buckets,
                    offset + IndexLayout.COMBINED_BUCKET_LENGTH, IndexLayout.COMBINED_BUCKET_LENGTH, token);
            }
            connection.flush();
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        links.await(node, 2 * count);
        final long started = nanoClock.nanoTime();
        for (int j = 0; j < count; j++)
        {
            final int k = batch[j];
            final long hash = hashes[k];
            final long offset = (long)j * 2 * IndexLayout.COMBINED_BUCKET_LENGTH;
            if (CandidateBuckets.state(hash, buckets, offset) != CandidateBuckets.HOLD_KEY)
            {
                // a split meanwhile: the single-key path waits for it or reads the directory again
                single[k] = true;
                continue;
            }
            probe.collect(node, hash, buckets, offset);
            final int at = probe.firstCommitted(node, KeyHash.fingerprint(hash), keys[k]);
            // a miss needs two agreeing reads: the single-key path makes them
            if (at < 0)
            {
                single[k] = true;
                continue;
            }
            probe.requireWithinDeadline(started, node, keys[k]);
            probe.foundAt(node, at);
            final KeyState found = probe.found();
            if (found.pending || KvBlockLayout.isIntent(found.expireAt))
            {
                // its node may not have it on disk yet: the single-key path has the node settle it first (and reads
                // a transaction's intent by its transaction's state)
                single[k] = true;
                continue;
            }
            if (!found.expiredAt(nowMillis))
            {
                final int kind = ValueKind.kindOf(found.expireAt);
                values[k] = kind == ValueKind.STRING ? KvBlockLayout.value(probe.block(), 0) :
                    kind == ValueKind.PIECES ? PIECES : COLLECTION;
            }
            else if (removeExpired)
            {
                // with replicas a reader changes no replica alone: the nodes' scans empty expired slots
                writer.cas(node, found.slot, found.word, SlotWord.EMPTY);
            }
        }
    }
}
