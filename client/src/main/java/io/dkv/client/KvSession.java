package io.dkv.client;

import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread's side of a client: its logical connections to the memory nodes, its heap chunks,
 * its registered buffers, and the index protocol run with them.
 *
 * <p>The protocol keeps at most one committed slot per key, so a reader takes the first committed
 * slot of the key it finds and a writer swaps that one slot. An update or a delete is one CAS on
 * it. An insert goes in two steps: a CAS puts a tentative slot (invisible to readers) into an empty
 * slot of a candidate bucket, the candidates are read again, and the insert is committed (a CAS
 * setting the committed bit) only if no committed slot of the key appeared and this tentative slot
 * comes first, in address order, among the key's tentative ones; it clears the later ones first.
 * A tentative slot that is not first is withdrawn and the write starts over (as an update if a
 * committed slot appeared meanwhile). A miss is answered only when two reads of the candidates
 * in a row saw the same words (blocks are never rewritten, so equal words mean an unchanged state
 * between the reads).
 *
 * <p>A committed slot whose block's expiry has passed is a miss to every operation: readers take it
 * out of the index by CAS (as redis expires a key it touches), writers replace it as they would an
 * absent key's slot. Expiry is judged by the context's clock read when the operation starts.
 */
final class KvSession implements CompletionHandler, AutoCloseable
{
    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int CANDIDATE_SLOTS = CandidateBuckets.SLOTS;
    static final int MAX_BLOCK =
        KvBlockLayout.blockLength(KvBlockLayout.MAX_KEY_LENGTH, KvBlockLayout.MAX_VALUE_LENGTH);
    /** Keys of one node whose candidates a multiGet reads in one doorbell batch. */
    static final int BATCH = 16;
    /** Blocks of one node whose keys a scan of its index reads in one round. */
    static final int KEY_BATCH = 32;
    private static final int FIRST_CHUNK = 64 * 1024;
    private static final int LARGEST_CHUNK_ASKED = 1 << 30;
    /** What {@link #findAgreed} saw. */
    private static final int FOUND = 1;
    private static final int MISSING = 0;
    private static final int DISAGREED = -1;
    /** Between reads of a moving key's two heads that disagreed: a write is in flight between them. */
    private static final long SWITCH_READ_PAUSE_NANOS = 50_000;
    private static final int NO_MATCH = 0;
    private static final int MATCH = 1;
    private static final int INSERTED = 0;
    private static final int LOST = 1;

    private final Raas raas;
    private final KvClientContext context;
    /** Which nodes could not be read, shared by the client's threads: their keys fail at once, naming them. */
    private final MemoryNodeAvailability availability;
    /** Writes over a key's replicas, or null when keys have one copy (the single-node protocol below). */
    private final ReplicaChain chain;
    /** Nodes this thread knows the ids of: the client's, as many as when it last looked. */
    private int known;
    private final int[] plainPlaced = new int[1];
    private final MembershipView membership;
    private final EpochClock epochClock;
    /** What operations' deadlines and versions' ages are measured by. */
    private final NanoClock nanoClock;
    /**
     * The nodes as this thread last read them: read again after a request to one failed (it may have restarted);
     * null for one never read (it was down).
     */
    private final MemoryNodeView[] nodes;
    private final long[] nodeIds;
    private final Connection[] connections;
    /** Message connections to the nodes' CPUs (chunks, persistence). */
    private final Connection[] requestConnections;
    /** Nodes whose last request failed: their view and connections are made again before the next one. */
    private final boolean[] stale;
    private long requestCorrelation;
    private final long[] chunkOffset;
    private final int[] chunkUsed;
    private final int[] chunkLength;
    /** The generation each node handed this thread's chunk out under, for the slot words naming its blocks. */
    private final int[] chunkGeneration;
    /**
     * The chunk retired before it, while an operation may still make a word for a block written there (a replica's
     * block written before another's chunk ran out).
     */
    private final long[] previousChunkOffset;
    private final int[] previousChunkLength;
    private final int[] previousChunkGeneration;
    /** The size of the next chunk to ask each node for: small first, doubling as this thread writes more. */
    private final int[] nextChunk;
    private final MemorySegment buckets;
    private final MemorySegment rpc;
    private MemorySegment batchBuckets;
    /** The candidate buckets of a key's replicas, read in one round. */
    private MemorySegment replicaBuckets;
    /** The blocks the key's replicas' slots name, read in one round, and the word each was read for (or EMPTY). */
    private MemorySegment replicaBlocks;
    private final long[] replicaBlockWords = new long[MemoryNodeAvailability.CAPACITY];
    /** The blocks {@link #keysOf} reads in one round, and the node of that round. */
    private MemorySegment keyBlocks;
    private final int[] roundNode = new int[1];
    /** Replicas {@link #readReplicas} reads on their own: buckets moving, or several slots of the fingerprint. */
    private final boolean[] replicaAlone = new boolean[MemoryNodeAvailability.CAPACITY];
    /** The slot word whose block (of the key asked for) the block buffer holds, or EMPTY. */
    private long blockInBuffer;
    private MemorySegment block;
    private MemorySegment out;
    /** This thread's GETs carried by completions; made at its first. */
    private AsyncGets asyncGets;
    /** This thread's writes carried by completions; made at its first. */
    private AsyncWrites asyncWrites;

    private final AtomicInteger completions = new AtomicInteger();
    private volatile long generation;
    private volatile int failure;

    /** The candidate slots last read, in address order: their offsets in the index region and their words. */
    private final long[] slotOffsets = new long[CANDIDATE_SLOTS];
    private final long[] words = new long[CANDIDATE_SLOTS];
    private final long[] previousWords = new long[CANDIDATE_SLOTS];
    private int slotCount;
    private int previousCount;
    /** Of the last scan: the key's committed slot (index into the arrays) or -1, and its tentative ones (bits). */
    private int committedAt;
    /** Of the last scan that found a committed slot: its block's expiry time and write id. */
    private long committedExpireAt;
    private long committedWriteId;
    private boolean committedPending;
    /** The context's clock when the current operation started: expiry is judged by it. */
    private long nowMillis;
    private int tentatives;
    /** Of the last find that found its key: the node, the slot holding the key and its word. */
    private int foundNode;
    private long foundSlot;
    private long foundWord;
    private long foundWriteId;
    /** Of the last {@link #readReplica}: the key's committed slot at that node, its word and the write it names. */
    long replicaSlot;
    long replicaWord;
    long replicaWriteId;
    /** The tentative slot of another insert of the key this thread's insert waits behind, and since when. */
    private long blockedBy;
    private long blockedSince;

    /**
     * @param nodes the nodes' views as the client read them when it connected; null for a node that could not be read.
     */
    KvSession(final Raas raas, final KvClientContext context, final MemoryNodeAvailability availability,
        final MembershipView membership, final MemoryNodeView[] nodes)
    {
        this.raas = raas;
        this.context = context;
        this.availability = availability;
        this.epochClock = context.epochClock();
        this.nanoClock = context.nanoClock();
        // sized for every node the client may come to know: members added later take the next indices
        this.nodes = Arrays.copyOf(nodes, MemoryNodeAvailability.CAPACITY);
        this.nodeIds = new long[MemoryNodeAvailability.CAPACITY];
        this.connections = new Connection[MemoryNodeAvailability.CAPACITY];
        this.requestConnections = new Connection[MemoryNodeAvailability.CAPACITY];
        this.stale = new boolean[MemoryNodeAvailability.CAPACITY];
        Arrays.fill(stale, true);
        this.known = availability.count();
        for (int i = 0; i < known; i++)
        {
            nodeIds[i] = availability.nodeId(i);
            stale[i] = this.nodes[i] == null;
        }
        this.chunkOffset = new long[MemoryNodeAvailability.CAPACITY];
        this.chunkUsed = new int[MemoryNodeAvailability.CAPACITY];
        this.chunkLength = new int[MemoryNodeAvailability.CAPACITY];
        this.chunkGeneration = new int[MemoryNodeAvailability.CAPACITY];
        this.previousChunkOffset = new long[MemoryNodeAvailability.CAPACITY];
        this.previousChunkLength = new int[MemoryNodeAvailability.CAPACITY];
        this.previousChunkGeneration = new int[MemoryNodeAvailability.CAPACITY];
        this.nextChunk = new int[MemoryNodeAvailability.CAPACITY];
        Arrays.fill(nextChunk, FIRST_CHUNK);
        this.buckets = raas.allocateBuffer(2 * IndexLayout.COMBINED_BUCKET_LENGTH);
        this.rpc = raas.allocateBuffer(MemoryNodeProtocol.REPLY_LENGTH + MemoryNodeProtocol.REQUEST_LENGTH);
        this.block = raas.allocateBuffer(4096);
        this.out = raas.allocateBuffer(4096);
        this.membership = membership;
        // with one copy the chain runs only while a membership change moves keys
        this.chain = new ReplicaChain(this, membership, nodeIds, context);
        if (membership.replicas() >= 2)
        {
            // each node's view is read again by this thread before its first use, and its incarnation checked
            Arrays.fill(stale, true);
        }
    }

    public void onCompletion(final long token, final int status, final long value)
    {
        if (token != generation)
        {
            // a request of an operation that timed out: nobody waits for it
            return;
        }
        if (status != RaasStatus.SUCCESS && failure == RaasStatus.SUCCESS)
        {
            failure = status;
        }
        completions.incrementAndGet();
    }

    // ---------------------------------------------------------------------------------------------
    // operations

    byte[] get(final byte[] key)
    {
        return find(key) ? KvBlockLayout.value(block, 0) : null;
    }

    /**
     * @return the value's length (as much of it as fits is copied into {@code dst}), or -1 when the
     * key has none.
     */
    int get(final byte[] key, final MemorySegment dst)
    {
        return find(key) ? KvBlockLayout.copyValue(block, 0, dst) : -1;
    }

    /**
     * @return the key's value with its expiry and the slot and word that pointed at it, or null when it has none.
     */
    Versioned getVersioned(final byte[] key)
    {
        final long started = nanoClock.nanoTime();
        if (!find(key))
        {
            return null;
        }
        return new Versioned(KvBlockLayout.value(block, 0), KvBlockLayout.expireAt(block, 0), nodeIds[foundNode],
            nodes[foundNode].index.nodeEpoch(), foundSlot, foundWord, started, foundWriteId);
    }

    /** @return milliseconds the key has left, -1 when it never expires, -2 when it has no value (redis's PTTL). */
    long ttlMillis(final byte[] key)
    {
        if (!find(key))
        {
            return -2;
        }
        final long expireAt = KvBlockLayout.expireAt(block, 0);
        return expireAt == KvBlockLayout.NEVER ? -1 : expireAt - nowMillis;
    }

    /**
     * Read several keys, the candidate buckets of up to {@link #BATCH} keys of a node in one doorbell
     * batch.
     *
     * @return the values in the keys' order, null where a key has none.
     */
    byte[][] multiGet(final byte[][] keys)
    {
        nowMillis = epochClock.time();
        final byte[][] values = new byte[keys.length][];
        final long[] hashes = new long[keys.length];
        final int[] nodeOf = new int[keys.length];
        long epoch;
        do
        {
            // reading a node's view again may read the membership again and move heads: until it stands still
            epoch = membership.epoch();
            for (int k = 0; k < keys.length; k++)
            {
                hashes[k] = KeyHash.hash(keys[k]);
                if (plain())
                {
                    nodeOf[k] = node(hashes[k]);
                    continue;
                }
                final int head = chain.head(hashes[k], keys[k]);
                nodeOf[k] = chain.switchHead() < 0 ? use(head) : -1;
            }
        }
        while (!plain() && membership.epoch() != epoch);
        for (int k = 0; k < keys.length; k++)
        {
            if (nodeOf[k] < 0)
            {
                // a key moving between two heads: read by the single-key path, which waits for them to agree
                values[k] = get(keys[k]);
            }
        }
        final int[] batch = new int[BATCH];
        for (int node = 0; node < known; node++)
        {
            int count = 0;
            for (int k = 0; k < keys.length; k++)
            {
                if (nodeOf[k] != node)
                {
                    continue;
                }
                batch[count++] = k;
                if (count == BATCH)
                {
                    readBatch(node, keys, hashes, batch, count, values);
                    count = 0;
                }
            }
            if (count > 0)
            {
                readBatch(node, keys, hashes, batch, count, values);
            }
        }
        return values;
    }

    private void readBatch(
        final int node, final byte[][] keys, final long[] hashes, final int[] batch, final int count,
        final byte[][] values)
    {
        if (batchBuckets == null)
        {
            batchBuckets = raas.allocateBuffer(BATCH * 2 * IndexLayout.COMBINED_BUCKET_LENGTH);
        }
        final long token = startRequests();
        final Connection connection = connection(node);
        try
        {
            for (int j = 0; j < count; j++)
            {
                final long hash = hashes[batch[j]];
                final long offset = (long)j * 2 * IndexLayout.COMBINED_BUCKET_LENGTH;
                connection.readAsync(nodes[node].index, candidateOffset(node, hash, 0), batchBuckets, offset,
                    IndexLayout.COMBINED_BUCKET_LENGTH, token);
                connection.readAsync(nodes[node].index, candidateOffset(node, hash, 1), batchBuckets,
                    offset + IndexLayout.COMBINED_BUCKET_LENGTH, IndexLayout.COMBINED_BUCKET_LENGTH, token);
            }
            connection.flush();
        }
        catch (final RaasException ex)
        {
            throw unreachable(node, ex);
        }
        await(node, 2 * count);
        final long started = nanoClock.nanoTime();
        for (int j = 0; j < count; j++)
        {
            final int k = batch[j];
            final long hash = hashes[k];
            final long offset = (long)j * 2 * IndexLayout.COMBINED_BUCKET_LENGTH;
            if (CandidateBuckets.state(hash, batchBuckets, offset) != CandidateBuckets.HOLD_KEY)
            {
                // a split meanwhile: the single-key path waits for it or reads the directory again
                values[k] = get(keys[k]);
                continue;
            }
            collectSlots(node, hash, batchBuckets, offset);
            final int found = firstCommitted(node, KeyHash.fingerprint(hash), keys[k]);
            // a miss needs two agreeing reads: the single-key path makes them
            if (found < 0)
            {
                values[k] = get(keys[k]);
                continue;
            }
            requireWithinDeadline(started, node, keys[k]);
            if (KvBlockLayout.isPending(block, 0))
            {
                // its node may not have it on disk yet: the single-key path has the node settle it first
                values[k] = get(keys[k]);
                continue;
            }
            values[k] = removedIfExpired(node, found) ? null : KvBlockLayout.value(block, 0);
        }
    }

    /**
     * Begin a GET that completions carry ({@link AsyncGet}) at the one node the key's read goes to now.
     *
     * @param kind     what it answers: {@link AsyncGet#VALUE}, {@link AsyncGet#VERSIONED} or {@link AsyncGet#TTL}.
     * @param slowPath where a GET goes that the completions cannot answer: the synchronous GET.
     * @return false when this thread has {@link AsyncGets#IN_FLIGHT} in flight or the key's read needs more (a key
     * moving between heads, a node that cannot be used now): the caller runs the synchronous GET instead.
     */
    boolean startGet(final int kind, final byte[] key, final CompletableFuture<Object> future,
        final AsyncSlowPath slowPath)
    {
        if (asyncGets == null)
        {
            asyncGets = new AsyncGets(raas, context, slowPath);
        }
        final AsyncGet get = asyncGets.acquire();
        if (get == null)
        {
            return false;
        }
        try
        {
            final long started = nanoClock.nanoTime();
            final long hash = KeyHash.hash(key);
            final int node = readsAt(hash, key);
            if (node >= 0)
            {
                if (asyncGets.connections().isMoved(node, nodes[node]))
                {
                    readDirectoryAgain(node);
                }
                final Connection connection = asyncGets.connections().connection(node, nodeIds[node]);
                get.start(kind, key, hash, node, nodeIds[node], nodes[node], connection, started, epochClock.time(),
                    future);
                return true;
            }
        }
        catch (final KvException | RaasException ex)
        {
            // the synchronous GET meets it again, and waits or says why
        }
        asyncGets.release(get);
        return false;
    }

    /**
     * Begin a write that completions carry ({@link AsyncWrite}) over the key's replicas as placed now.
     *
     * @param value    the new value, or null to delete.
     * @param rule     a {@link ReplicaChain} rule.
     * @param slowPath where a write goes that the completions cannot carry: the synchronous write.
     * @return false when this thread has {@link AsyncWrites#IN_FLIGHT} in flight, the block is larger than
     * {@link AsyncWrite#MAX_BLOCK}, or the write needs more than a steady placement (a membership change moving the
     * key, a replica joining or declared down just now, a node that cannot be used now): the caller runs the
     * synchronous write instead.
     */
    boolean startWrite(final int rule, final byte[] key, final byte[] value, final byte[] expected,
        final Versioned version, final long expireAt, final CompletableFuture<Object> future,
        final AsyncSlowPath slowPath)
    {
        final int length = value == null ? 0 : KvBlockLayout.blockLength(key.length, value.length);
        if (length > AsyncWrite.MAX_BLOCK)
        {
            return false;
        }
        if (asyncWrites == null)
        {
            asyncWrites = new AsyncWrites(raas, context, membership, slowPath);
        }
        final AsyncWrite write = asyncWrites.acquire();
        if (write == null)
        {
            return false;
        }
        try
        {
            final long started = nanoClock.nanoTime();
            final long now = startOperation();
            final long hash = KeyHash.hash(key);
            final boolean plain = plain();
            final long epoch = plain ? -1 : membership.epoch();
            final int count;
            if (plain)
            {
                write.nodes[0] = node(hash);
                count = 1;
            }
            else
            {
                count = chain.placeSteady(hash, key, write.nodes);
            }
            if (count > 0 && (rule != ReplicaChain.IF_VERSION || !plain || knowsWord(version, write.nodes[0])))
            {
                for (int p = 0; p < count; p++)
                {
                    final int node = use(write.nodes[p]);
                    if (asyncWrites.connections().isMoved(node, nodes[node]))
                    {
                        readDirectoryAgain(node);
                    }
                    write.nodeIds[p] = nodeIds[node];
                    write.views[p] = nodes[node];
                    write.connections[p] = asyncWrites.connections().connection(node, nodeIds[node]);
                }
                final long writeId = KvBlockLayout.drawWriteId();
                if (value != null)
                {
                    KvBlockLayout.write(write.out(length), 0, key, value, expireAt, writeId, pendingBlocks());
                    reserveBlocks(write.nodes, count, length, write.blockOffsets);
                }
                final int fingerprint = KeyHash.fingerprint(hash);
                for (int p = 0; p < count; p++)
                {
                    write.newWords[p] = value == null ? SlotWord.EMPTY : SlotWord.committed(fingerprint,
                        write.blockOffsets[p], length, expireAt != KvBlockLayout.NEVER,
                        generationOf(write.nodes[p], write.blockOffsets[p]));
                }
                write.start(key, hash, value, rule, expected, version, expireAt, writeId, length, count, epoch,
                    started, now, future);
                return true;
            }
        }
        catch (final KvException | RaasException ex)
        {
            // the synchronous write meets it again, and waits or says why
        }
        asyncWrites.release(write);
        return false;
    }

    /** @return writes of this thread their completions finished alone (not handed to a client thread). */
    long writesAnsweredByCompletions()
    {
        return asyncWrites == null ? 0 : asyncWrites.answered();
    }

    /** @return GETs of this thread its completions answered alone (not handed to the synchronous GET). */
    long getsAnsweredByCompletions()
    {
        return asyncGets == null ? 0 : asyncGets.answered();
    }

    /** @return the node whose copy alone answers a read of the key now, or -1 when it is moving between two. */
    private int readsAt(final long hash, final byte[] key)
    {
        if (plain())
        {
            return node(hash);
        }
        final long epoch = membership.epoch();
        final int head = use(chain.head(hash, key));
        return chain.switchHead() < 0 && membership.epoch() == epoch ? head : -1;
    }

    /**
     * @return true when the key has a value, which is then in the block buffer.
     */
    private boolean find(final byte[] key)
    {
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        if (plain())
        {
            return findAt(node(hash), hash, key);
        }
        // the head alone holds the key's value: when it does not answer, wait until it does or is declared gone
        final long deadline = nanoClock.nanoTime() + context.failoverWaitMs() * 1_000_000L;
        while (true)
        {
            try
            {
                final long epoch = membership.epoch();
                final int head = use(chain.head(hash, key));
                final int other = chain.switchHead();
                if (other >= 0)
                {
                    use(other);
                }
                // reading the node's view again may have read the membership again, and moved the head
                if (membership.epoch() == epoch)
                {
                    if (other < 0)
                    {
                        return findAt(head, hash, key);
                    }
                    final int agreed = findAgreed(head, other, hash, key, epoch, deadline);
                    if (agreed != DISAGREED)
                    {
                        return agreed == FOUND;
                    }
                }
                continue;
            }
            catch (final KvException ex)
            {
                if (!chain.awaitHead(deadline))
                {
                    throw ex;
                }
            }
        }
    }

    /**
     * A key moving between memory nodes, in the switch phase of a membership change: its heads before and after the
     * change are read, and answer only when both name the same write (client/README.md, "Membership change").
     *
     * @return {@link #FOUND} (the head's block then in the block buffer), {@link #MISSING}, or {@link #DISAGREED}
     * when the membership moved on while they disagreed (place the key again).
     */
    private int findAgreed(final int before, final int after, final long hash, final byte[] key, final long epoch,
        final long deadline)
    {
        while (true)
        {
            final long afterId = findAt(after, hash, key) ? foundWriteId : KvBlockLayout.NO_WRITE;
            final boolean found = findAt(before, hash, key);
            final long beforeId = found ? foundWriteId : KvBlockLayout.NO_WRITE;
            if (beforeId == afterId)
            {
                return found ? FOUND : MISSING;
            }
            // a write reached one head and not yet the other: it reaches both within its operation's time
            membership.refresh();
            if (membership.epoch() != epoch)
            {
                return DISAGREED;
            }
            if (nanoClock.nanoTime() - deadline > 0)
            {
                throw new KvException("key " + describe(key) + " is moving from memory node " + nodeIds[before] +
                    " to memory node " + nodeIds[after] + ", and their copies named different writes (" +
                    Long.toHexString(beforeId) + ", " + Long.toHexString(afterId) + ") until the deadline");
            }
            LockSupport.parkNanos(SWITCH_READ_PAUSE_NANOS);
        }
    }

    private boolean findAt(final int node, final long hash, final byte[] key)
    {
        final long started = nanoClock.nanoTime();
        final int fingerprint = KeyHash.fingerprint(hash);
        previousCount = -1;
        for (int attempt = 0; attempt < context.maxRetries(); attempt++)
        {
            readCandidates(node, hash);
            final int found = firstCommitted(node, fingerprint, key);
            if (found >= 0)
            {
                requireWithinDeadline(started, node, key);
                if (removedIfExpired(node, found))
                {
                    return false;
                }
                final long writeId = KvBlockLayout.writeId(block, 0);
                if (KvBlockLayout.isPending(block, 0) &&
                    !settled(node, SlotWord.blockOffset(words[found]), writeId, key))
                {
                    previousCount = -1;
                    continue;
                }
                foundNode = node;
                foundSlot = slotOffsets[found];
                foundWord = words[found];
                foundWriteId = writeId;
                return true;
            }
            if (absenceConfirmed())
            {
                return false;
            }
        }
        throw retriesExhausted("get", node, key);
    }

    /** @return the candidate slot holding the key's value (its block then in the block buffer), or -1. */
    private int firstCommitted(final int node, final int fingerprint, final byte[] key)
    {
        for (int i = 0; i < slotCount; i++)
        {
            final long word = words[i];
            if (SlotWord.isCommitted(word) && SlotWord.fingerprint(word) == fingerprint &&
                readBlock(node, word, key) == MATCH)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * The key's committed slot, found at {@code found} with its block in the block buffer: when the
     * block has expired the key has no value, and its slot is emptied by CAS so that its chunk can
     * be reclaimed (a failed CAS means a write replaced it since the read, which stands).
     *
     * @return true when the block has expired.
     */
    private boolean removedIfExpired(final int node, final int found)
    {
        if (!KvBlockLayout.isExpired(KvBlockLayout.expireAt(block, 0), nowMillis))
        {
            return false;
        }
        if (plain())
        {
            // with replicas a reader changes no replica alone: the nodes' scans empty expired slots
            cas(node, slotOffsets[found], words[found], SlotWord.EMPTY);
        }
        return true;
    }

    boolean delete(final byte[] key)
    {
        if (!plain())
        {
            return chain.write(key, null, ReplicaChain.DELETE, null, null, KvBlockLayout.NEVER);
        }
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        final int node = node(hash);
        previousCount = -1;
        for (int attempt = 0; attempt < context.maxRetries(); attempt++)
        {
            readCandidates(node, hash);
            scan(node, hash, key, 0);
            if (committedAt < 0)
            {
                if (absenceConfirmed())
                {
                    return false;
                }
                continue;
            }
            previousCount = -1;
            if (cas(node, slotOffsets[committedAt], words[committedAt], SlotWord.EMPTY) == words[committedAt])
            {
                // an expired key had no value to delete: its slot is only reclaimed
                final boolean expired = committedExpired();
                persist(node, SlotWord.blockOffset(words[committedAt]));
                return !expired;
            }
        }
        throw retriesExhausted("delete", node, key);
    }

    /**
     * @param expected for compare-and-set: the value the key must hold, or null for "absent"; ignored by put.
     * @param put      true: write whatever the key holds (upsert); false: only if it holds {@code expected}.
     * @param expireAt epoch milliseconds from which the new value is gone, or {@link KvBlockLayout#NEVER}.
     * @return true when written.
     */
    boolean write(final byte[] key, final MemorySegment value, final byte[] expected, final boolean put,
        final long expireAt)
    {
        if (!plain())
        {
            return chain.write(key, value, put ? ReplicaChain.PUT : ReplicaChain.IF_VALUE, expected, null, expireAt);
        }
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        final int node = node(hash);
        final int fingerprint = KeyHash.fingerprint(hash);
        final int length = KvBlockLayout.blockLength(key.length, (int)value.byteSize());
        final long blockOffset = writeBlock(node, key, value, length, expireAt, KvBlockLayout.drawWriteId());
        final long committedWord = SlotWord.committed(fingerprint, blockOffset, length,
            expireAt != KvBlockLayout.NEVER, generationOf(node, blockOffset));
        final long tentativeWord = SlotWord.tentative(committedWord);
        blockedBy = 0;
        previousCount = -1;
        for (int attempt = 0; attempt < context.maxRetries(); attempt++)
        {
            readCandidates(node, hash);
            scan(node, hash, key, tentativeWord);
            if (committedAt >= 0)
            {
                // an expired value is an absent one: replaced as such
                if (!put &&
                    (expected == null ? !committedExpired() :
                        committedExpired() || !committedHolds(node, key, expected)))
                {
                    // a refusal tells what the key holds: answered only once that is on the node's disk
                    if (committedPending && !settled(node, SlotWord.blockOffset(words[committedAt]),
                        committedWriteId, key))
                    {
                        previousCount = -1;
                        continue;
                    }
                    return false;
                }
                if (cas(node, slotOffsets[committedAt], words[committedAt], committedWord) == words[committedAt])
                {
                    persist(node, blockOffset);
                    return true;
                }
                continue;
            }
            if (!put && expected != null)
            {
                // the key must hold a value and none was seen
                if (absenceConfirmed())
                {
                    return false;
                }
                continue;
            }
            if (tryInsert(node, hash, key, committedWord, tentativeWord) == INSERTED)
            {
                persist(node, blockOffset);
                return true;
            }
        }
        throw retriesExhausted(put ? "put" : "compareAndSet", node, key);
    }

    /**
     * One attempt to insert the key at a node whose candidates were just read and scanned, with no
     * committed slot of the key among them: a CAS of an empty slot to a tentative word (invisible to
     * readers), a second read, and a CAS committing it if no committed slot of the key appeared and
     * this tentative slot comes first in address order (later ones are cleared first).
     *
     * @return {@link #INSERTED}, or {@link #LOST}: the attempt was withdrawn (a split, a racing insert or
     * a committed slot that appeared) and the caller reads the candidates again.
     */
    private int tryInsert(final int node, final long hash, final byte[] key, final long committedWord,
        final long tentativeWord)
    {
        final int empty = emptySlot();
        if (empty < 0)
        {
            split(node, hash, key);
            return LOST;
        }
        final long mySlot = slotOffsets[empty];
        if (cas(node, mySlot, SlotWord.EMPTY, tentativeWord) != SlotWord.EMPTY)
        {
            return LOST;
        }
        readCandidates(node, hash);
        scan(node, hash, key, tentativeWord);
        final int mine = indexOf(mySlot);
        if (mine < 0)
        {
            // the subtable split meanwhile and the key's buckets are elsewhere now: start there
            withdraw(node, mySlot, tentativeWord);
            return LOST;
        }
        if (words[mine] != tentativeWord)
        {
            // another insert of the key came first and cleared this one
            return LOST;
        }
        if (committedAt >= 0)
        {
            withdraw(node, mySlot, tentativeWord);
            return LOST;
        }
        final int earlier = tentatives & ((1 << mine) - 1);
        if (earlier != 0)
        {
            final int first = Integer.numberOfTrailingZeros(earlier);
            final long now = nanoClock.nanoTime();
            if (words[first] != blockedBy)
            {
                blockedBy = words[first];
                blockedSince = now;
            }
            else if (now - blockedSince > context.timeoutMs() * 1_000_000L)
            {
                // the same tentative slot has stood for longer than an operation may last: its writer died
                cas(node, slotOffsets[first], blockedBy, SlotWord.EMPTY);
            }
            withdraw(node, mySlot, tentativeWord);
            Thread.onSpinWait();
            return LOST;
        }
        if (clearLaterTentatives(node, mine) && cas(node, mySlot, tentativeWord, committedWord) == tentativeWord)
        {
            return INSERTED;
        }
        withdraw(node, mySlot, tentativeWord);
        return LOST;
    }

    /**
     * Write the key's value only if its slot still holds the word {@code expected} was read with:
     * the new block, then one CAS of that slot. A failed CAS is looked into once more, as a split
     * may have moved the slot, word unchanged, to the subtable's other half.
     *
     * @return true when written.
     */
    boolean writeIfVersion(final byte[] key, final MemorySegment value, final Versioned expected, final long expireAt)
    {
        if (KvBlockLayout.isExpired(expected.expireAtMillis(), epochClock.time()))
        {
            // that version is gone whether or not its slot still names it: the key has no value now
            return false;
        }
        if (!plain())
        {
            // replicas' slot words differ: the version is the write it read, compared by its id on the settled state
            return chain.write(key, value, ReplicaChain.IF_VERSION, null, expected, expireAt);
        }
        final long hash = KeyHash.hash(key);
        final int node = node(hash);
        if (!knowsWord(expected, node))
        {
            // its block may have been reused since, or the node is another incarnation: the value decides
            return write(key, value, expected.value(), false, expireAt);
        }
        final int length = KvBlockLayout.blockLength(key.length, (int)value.byteSize());
        final long blockOffset = writeBlock(node, key, value, length, expireAt, KvBlockLayout.drawWriteId());
        final long committedWord = SlotWord.committed(KeyHash.fingerprint(hash), blockOffset, length,
            expireAt != KvBlockLayout.NEVER, generationOf(node, blockOffset));
        long slot = expected.slotOffset;
        boolean swap = true;
        previousCount = -1;
        for (int attempt = 0; attempt < context.maxRetries(); attempt++)
        {
            if (swap)
            {
                // looked at just before each CAS, not once: writing the block may have waited on a heap chunk
                if (!knowsWord(expected, node))
                {
                    return write(key, value, expected.value(), false, expireAt);
                }
                if (cas(node, slot, expected.word, committedWord) == expected.word)
                {
                    persist(node, blockOffset);
                    return true;
                }
            }
            readCandidates(node, hash);
            scan(node, hash, key, 0);
            if (committedAt < 0)
            {
                // the key must hold that version and none was seen
                if (absenceConfirmed())
                {
                    return false;
                }
                swap = false;
                continue;
            }
            if (words[committedAt] != expected.word)
            {
                return false;
            }
            slot = slotOffsets[committedAt];
            swap = true;
            previousCount = -1;
        }
        throw retriesExhausted("compareAndSetVersion", node, key);
    }

    // ---------------------------------------------------------------------------------------------
    // one replica's side, for the chain (ReplicaChain)

    /**
     * Read the key's state at one node: {@link #replicaSlot} and {@link #replicaWord} (its committed
     * slot, or -1 and EMPTY) and {@link #replicaWriteId} (the write it names, or NO_WRITE when it has no
     * value: none, or an expired one).
     */
    void readReplica(final int node, final long hash, final byte[] key)
    {
        readCandidates(use(node), hash);
        scan(node, hash, key, 0);
        keepReplica();
    }

    /** Keep what the last scan found of the key as the replica's state. */
    private void keepReplica()
    {
        if (committedAt < 0)
        {
            replicaSlot = -1;
            replicaWord = SlotWord.EMPTY;
            replicaWriteId = KvBlockLayout.NO_WRITE;
            return;
        }
        replicaSlot = slotOffsets[committedAt];
        replicaWord = words[committedAt];
        replicaWriteId = committedExpired() ? KvBlockLayout.NO_WRITE : committedWriteId;
    }

    /**
     * Put this write's block (the same bytes on each) into the out buffer and make room for it in this thread's chunk
     * of each node's heap; {@link #readReplicas} writes it there, in the round that reads the key's buckets.
     *
     * @param offsets filled with the block's offset in each node's heap.
     */
    void placeBlocks(final int[] nodes, final int count, final byte[] key, final MemorySegment value, final int length,
        final long expireAt, final long writeId, final long[] offsets)
    {
        if (out.byteSize() < length)
        {
            out = raas.allocateBuffer(Math.min(MAX_BLOCK, Math.max(length, (int)out.byteSize() * 2)));
        }
        KvBlockLayout.write(out, 0, key, value, expireAt, writeId, pendingBlocks());
        reserveBlocks(nodes, count, length, offsets);
    }

    /** Make room for a block of {@code length} bytes in this thread's chunk of each node's heap. */
    private void reserveBlocks(final int[] nodes, final int count, final int length, final long[] offsets)
    {
        for (int p = 0; p < count; p++)
        {
            final int node = use(nodes[p]);
            if (chunkLength[node] == 0 || chunkUsed[node] + length > chunkLength[node])
            {
                allocateChunk(node, length);
            }
            offsets[p] = chunkOffset[node] + chunkUsed[node];
            chunkUsed[node] += length;
        }
    }

    /**
     * Read the key's state at several nodes, as {@link #readReplica} does at one, in two rounds (each posted together,
     * awaited together): their candidate buckets, with the blocks {@link #placeBlocks} made room for when
     * {@code writeLength} is not 0; then the block the key's slot names on each. A node whose buckets hold more than
     * one slot of the key's fingerprint, or were moving, is read on its own after.
     */
    void readReplicas(final int[] nodes, final int count, final long hash, final byte[] key, final long[] slotsOut,
        final long[] wordsOut, final long[] idsOut, final long[] writeOffsets, final int writeLength,
        final Versioned head)
    {
        // the head's word is known from the read the version came from, while its block cannot have been reused:
        // the slot's word alone then tells whether the head still names that write (a split that moved the slot
        // leaves another word there, and the head is read on its own after)
        final boolean headKnown = head != null && knowsWord(head, nodes[0]);
        final long pair = 2L * IndexLayout.COMBINED_BUCKET_LENGTH;
        if (replicaBuckets == null || replicaBuckets.byteSize() < count * pair)
        {
            replicaBuckets = raas.allocateBuffer((int)(count * pair));
        }
        for (int p = 0; p < count; p++)
        {
            use(nodes[p]);
        }
        final long token = startRequests();
        for (int p = 0; p < count; p++)
        {
            final int node = nodes[p];
            try
            {
                final Connection connection = connection(node);
                if (writeLength != 0)
                {
                    connection.writeAsync(this.nodes[node].heap, writeOffsets[p], out, 0, writeLength, token);
                }
                if (p == 0 && headKnown)
                {
                    connection.readAsync(this.nodes[node].index, head.slotOffset, replicaBuckets, 0, Long.BYTES, token);
                }
                else
                {
                    connection.readAsync(this.nodes[node].index, candidateOffset(node, hash, 0), replicaBuckets,
                        p * pair, IndexLayout.COMBINED_BUCKET_LENGTH, token);
                    connection.readAsync(this.nodes[node].index, candidateOffset(node, hash, 1), replicaBuckets,
                        p * pair + IndexLayout.COMBINED_BUCKET_LENGTH, IndexLayout.COMBINED_BUCKET_LENGTH, token);
                }
                connection.flush();
            }
            catch (final RaasException ex)
            {
                throw unreachable(node, ex);
            }
        }
        awaitRound(nodes, count, (writeLength != 0 ? 3 : 2) * count - (headKnown ? 1 : 0));
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
            collectSlots(nodes[p], hash, replicaBuckets, p * pair);
            int matching = 0;
            for (int i = 0; i < slotCount; i++)
            {
                if (!SlotWord.isEmpty(words[i]) && SlotWord.fingerprint(words[i]) == fingerprint)
                {
                    matching++;
                    replicaBlockWords[p] = words[i];
                    slotsOut[p] = slotOffsets[i];
                }
            }
            final int hint = matching == 1 ? SlotWord.lengthHint(replicaBlockWords[p]) : 0;
            // no slot of the fingerprint: the node holds no value of the key, and there is nothing to read
            replicaAlone[p] = matching > 1 || (matching == 1 && hint == 0);
            if (matching == 1 && hint != 0)
            {
                stride = Math.max(stride, hint);
                reads++;
            }
            else
            {
                replicaBlockWords[p] = SlotWord.EMPTY;
                slotsOut[p] = -1;
            }
        }
        if (reads != 0)
        {
            readReplicaBlocks(nodes, count, stride, reads, key, slotsOut, wordsOut, idsOut);
        }
        for (int p = 0; p < count; p++)
        {
            if (replicaAlone[p])
            {
                readReplica(nodes[p], hash, key);
                slotsOut[p] = replicaSlot;
                wordsOut[p] = replicaWord;
                idsOut[p] = replicaWriteId;
            }
        }
    }

    /**
     * @return whether a slot of the node holding the version's word still names the version's write: the node and its
     * incarnation are those it was read from, and too little time has passed for the block to have been reused.
     */
    private boolean knowsWord(final Versioned version, final int node)
    {
        final long lifetimeNanos = (nodes[node].graceMs - (long)context.timeoutMs()) * 1_000_000L;
        return version.comparableAsWord(nodeIds[node], nodes[node].index.nodeEpoch(), nanoClock.nanoTime(),
            lifetimeNanos);
    }

    /** The second round of {@link #readReplicas}: the one block of the key's fingerprint at each node that has one. */
    private void readReplicaBlocks(final int[] nodes, final int count, final int stride, final int reads,
        final byte[] key, final long[] slotsOut, final long[] wordsOut, final long[] idsOut)
    {
        if (replicaBlocks == null || replicaBlocks.byteSize() < (long)count * stride)
        {
            replicaBlocks = raas.allocateBuffer(count * Math.max(stride, 1024));
        }
        final long token = startRequests();
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
                final Connection connection = connection(node);
                connection.readAsync(this.nodes[node].heap, SlotWord.blockOffset(word), replicaBlocks, (long)p * stride,
                    SlotWord.lengthHint(word), token);
                connection.flush();
            }
            catch (final RaasException ex)
            {
                throw unreachable(node, ex);
            }
        }
        awaitRound(nodes, count, reads);
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
                throw brokenBlock(nodes[p], SlotWord.blockOffset(word));
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
        }
    }

    /**
     * Swap the key's committed slot at a node from one word to another. A failed CAS is looked into
     * once more, as a split may have moved the slot, word unchanged, to the subtable's other half.
     *
     * @return true when swapped.
     */
    boolean swapAt(final int node, final long hash, final byte[] key, final long slot, final long expected,
        final long desired)
    {
        if (cas(use(node), slot, expected, desired) == expected)
        {
            return true;
        }
        readCandidates(node, hash);
        scan(node, hash, key, 0);
        return committedAt >= 0 && words[committedAt] == expected && slotOffsets[committedAt] != slot &&
            cas(node, slotOffsets[committedAt], expected, desired) == expected;
    }

    /**
     * Insert the key at a node where it has no committed slot, by the node's insert rule.
     *
     * @return true when inserted; false when a committed slot of the key is there.
     */
    boolean insertAt(final int node, final long hash, final byte[] key, final long committedWord)
    {
        final long tentativeWord = SlotWord.tentative(committedWord);
        blockedBy = 0;
        for (int attempt = 0; attempt < context.maxRetries(); attempt++)
        {
            readCandidates(use(node), hash);
            scan(node, hash, key, tentativeWord);
            if (committedAt >= 0)
            {
                return false;
            }
            if (tryInsert(node, hash, key, committedWord, tentativeWord) == INSERTED)
            {
                return true;
            }
        }
        throw retriesExhausted("insert", node, key);
    }

    /**
     * Read the block a word names at a node into the block buffer.
     *
     * @return its length in bytes.
     * @throws KvException when the block does not hold the key: a word read of the key's slot names one that does.
     */
    int readWholeBlock(final int node, final long word, final byte[] key)
    {
        if (readBlock(use(node), word, key) != MATCH)
        {
            throw new KvException("the block of key " + describe(key) + " at heap offset " +
                SlotWord.blockOffset(word) + " of memory node " + nodeIds[node] + " holds another key");
        }
        return KvBlockLayout.blockLength(KvBlockLayout.keyLength(block, 0), KvBlockLayout.valueLength(block, 0));
    }

    /** @return true when the block read last ({@link #readWholeBlock}) holds this value. */
    boolean blockHolds(final byte[] expected)
    {
        return KvBlockLayout.hasValue(block, 0, expected);
    }

    /** @return the expiry time of the block read last ({@link #readWholeBlock}). */
    long blockExpireAt()
    {
        return KvBlockLayout.expireAt(block, 0);
    }

    /** Read bytes of a node's index region into a registered buffer of this thread's. */
    void readIndex(final int node, final long offset, final MemorySegment dst, final int length)
    {
        try
        {
            connection(use(node)).read(nodes[node].index, offset, dst, 0, length);
        }
        catch (final RaasException ex)
        {
            throw unreachable(node, ex);
        }
    }

    /**
     * The keys of the blocks committed slot words name at a node, as {@link #keyOf} gives each, read {@link #KEY_BATCH}
     * blocks to a round (posted together, awaited together): a scan of an index learns every key it holds this way.
     *
     * @param keysOut filled with word i's key at i, or null when its block is not whole (its slot was replaced and the
     *                block reclaimed since the word was read).
     */
    void keysOf(final int node, final long[] words, final int count, final byte[][] keysOut)
    {
        final MemoryNodeView view = nodes[use(node)];
        roundNode[0] = node;
        for (int from = 0; from < count; from += KEY_BATCH)
        {
            final int to = Math.min(count, from + KEY_BATCH);
            int stride = 0;
            for (int i = from; i < to; i++)
            {
                stride = Math.max(stride, SlotWord.lengthHint(words[i]));
            }
            if (keyBlocks == null || keyBlocks.byteSize() < (long)KEY_BATCH * stride)
            {
                keyBlocks = raas.allocateBuffer(KEY_BATCH * Math.max(stride, 2048));
            }
            final long token = startRequests();
            int posted = 0;
            try
            {
                final Connection connection = connection(node);
                for (int i = from; i < to; i++)
                {
                    final int hint = SlotWord.lengthHint(words[i]);
                    if (hint != 0)
                    {
                        connection.readAsync(view.heap, SlotWord.blockOffset(words[i]), keyBlocks,
                            (long)(i - from) * stride, hint, token);
                        posted++;
                    }
                }
                connection.flush();
            }
            catch (final RaasException ex)
            {
                throw unreachable(node, ex);
            }
            if (posted != 0)
            {
                awaitRound(roundNode, 1, posted);
            }
            for (int i = from; i < to; i++)
            {
                final int hint = SlotWord.lengthHint(words[i]);
                final long at = (long)(i - from) * stride;
                // a block too long for its word to say its length is read on its own, its header first
                keysOut[i] = hint == 0 ? keyOf(node, words[i]) : !KvBlockLayout.isWhole(keyBlocks, at, hint) ? null :
                    keyBlocks.asSlice(at + KvBlockLayout.HEADER_LENGTH, KvBlockLayout.keyLength(keyBlocks, at))
                        .toArray(ValueLayout.JAVA_BYTE);
            }
        }
    }

    /**
     * @return the key of the block a committed slot word names at a node, or null when the block is not whole (its
     * slot was replaced and the block reclaimed since the word was read).
     */
    byte[] keyOf(final int node, final long word)
    {
        final MemoryNodeView view = nodes[use(node)];
        final long offset = SlotWord.blockOffset(word);
        try
        {
            final Connection connection = connection(node);
            connection.read(view.heap, offset, block, 0, SlotWord.UNIT);
            final int keyLength = KvBlockLayout.keyLength(block, 0);
            final int valueLength = KvBlockLayout.valueLength(block, 0);
            if (keyLength <= 0 || keyLength > KvBlockLayout.MAX_KEY_LENGTH || valueLength < 0 ||
                valueLength > KvBlockLayout.MAX_VALUE_LENGTH)
            {
                return null;
            }
            final int length = KvBlockLayout.blockLength(keyLength, valueLength);
            if (block.byteSize() < length)
            {
                block = raas.allocateBuffer(Math.min(MAX_BLOCK, Math.max(length, (int)block.byteSize() * 2)));
            }
            connection.read(view.heap, offset, block, 0, length);
            blockInBuffer = SlotWord.EMPTY;
            if (!KvBlockLayout.isWhole(block, 0, length))
            {
                return null;
            }
            return block.asSlice(KvBlockLayout.HEADER_LENGTH, keyLength).toArray(ValueLayout.JAVA_BYTE);
        }
        catch (final RaasException ex)
        {
            throw unreachable(node, ex);
        }
    }

    MemorySegment allocateBuffer(final int size)
    {
        return raas.allocateBuffer(size);
    }

    /** @return the chain this thread writes replicated keys with, or null when keys have one copy. */
    ReplicaChain chain()
    {
        return chain;
    }

    /** Start an operation: expiry is judged by the clock read now. */
    long startOperation()
    {
        nowMillis = epochClock.time();
        return nowMillis;
    }

    void persistAt(final int node, final long blockOffset)
    {
        persist(node, blockOffset);
    }

    long nodeId(final int node)
    {
        return nodeIds[node];
    }

    KvException retriesExhaustedAt(final String operation, final int node, final byte[] key)
    {
        return retriesExhausted(operation, node, key);
    }

    // ---------------------------------------------------------------------------------------------
    // reading the index

    /**
     * @return true when the key has one copy and no membership change moves keys: one node's slot is the key's, and
     * the single-copy protocol runs. Otherwise the chain of {@link ReplicaChain} does.
     */
    private boolean plain()
    {
        return membership.replicas() == 1 && !membership.placement().changing();
    }

    private int node(final long hash)
    {
        membership.refreshIfDue();
        // before, not after: a membership read just now may have begun a change, and until this operation (which
        // began with none) ends, the key is where it was; the change waits out operations that began before it
        if (membership.placement().before(hash, 1, plainPlaced) == 0)
        {
            throw new KvException("no memory node holds keys: the membership places none (" +
                membership.placement().describe(0) + ")");
        }
        return use(plainPlaced[0]);
    }

    /** @return the node, its view and connections made again first when its last request failed. */
    int use(final int node)
    {
        if (node >= known)
        {
            // a member added since this thread last looked: its view is read at this first use
            final int count = availability.count();
            for (int i = known; i < count; i++)
            {
                nodeIds[i] = availability.nodeId(i);
            }
            known = count;
        }
        if (stale[node])
        {
            refresh(node);
        }
        return node;
    }

    /**
     * A request to the node failed, or its view could not be read: it may have restarted with new
     * regions, so read its view again and start over with new connections and chunks. While it
     * stays unreachable this fails at once, naming it, and a later operation tries again
     * ({@link MemoryNodeAvailability}).
     */
    private void refresh(final int node)
    {
        close(connections, node);
        close(requestConnections, node);
        // the node takes both chunks back once the connection is gone: no word may name their blocks any more
        chunkLength[node] = 0;
        previousChunkLength[node] = 0;
        chunkUsed[node] = 0;
        nextChunk[node] = FIRST_CHUNK;
        nodes[node] = availability.readAgain(raas, node);
        stale[node] = false;
        final long incarnation = nodes[node].index.nodeEpoch();
        if (membership.replicas() >= 2 && !membership.lists(node, incarnation))
        {
            // restarted since the membership was read: until it lists this incarnation, nothing of it is used
            stale[node] = true;
            throw new KvException("memory node " + nodeIds[node] + " answers as incarnation " + incarnation +
                ", which the membership does not list (" + membership.describe(node) + "): it restarted and is " +
                "not a replica as that incarnation yet");
        }
    }

    /** The node's directory changed (a split): read its view again; when that fails, the node's next use does. */
    private void readDirectoryAgain(final int node)
    {
        try
        {
            nodes[node] = MemoryNodeView.read(raas, nodeIds[node]);
        }
        catch (final KvException ex)
        {
            stale[node] = true;
            throw ex;
        }
    }

    private static void close(final Connection[] connections, final int node)
    {
        final Connection connection = connections[node];
        connections[node] = null;
        if (connection != null)
        {
            try
            {
                connection.close();
            }
            catch (final RaasException ignore)
            {
                // its node is gone already
            }
        }
    }

    /**
     * Read the key's two candidate combined buckets in one doorbell batch, and list their slots in
     * address order (a candidate pair in one group shares the overflow bucket: its slots once).
     */
    private void readCandidates(final int node, final long hash)
    {
        final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
        while (true)
        {
            final MemoryNodeView view = nodes[node];
            final Connection connection = connection(node);
            final long first = candidateOffset(node, hash, 0);
            final long second = candidateOffset(node, hash, 1);
            boolean read;
            try
            {
                // on this thread's own lane when it has one, else through the shared pipeline, not waited for
                read = connection.tryReadPair(
                    view.index, first, second, buckets, 0, IndexLayout.COMBINED_BUCKET_LENGTH);
                if (!read)
                {
                    final long token = startRequests();
                    connection.readAsync(view.index, first, buckets, 0, IndexLayout.COMBINED_BUCKET_LENGTH, token);
                    connection.readAsync(view.index, second, buckets, IndexLayout.COMBINED_BUCKET_LENGTH,
                        IndexLayout.COMBINED_BUCKET_LENGTH, token);
                    connection.flush();
                }
            }
            catch (final RaasException ex)
            {
                throw unreachable(node, ex);
            }
            if (!read)
            {
                await(node, 2);
            }
            final int state = CandidateBuckets.state(hash, buckets, 0);
            if (state == CandidateBuckets.HOLD_KEY)
            {
                collectSlots(node, hash, buckets, 0);
                return;
            }
            if (nanoClock.nanoTime() > deadline)
            {
                throw new KvException("memory node " + nodeIds[node] + " kept the key's buckets " +
                    (state == CandidateBuckets.LOCKED ? "locked (a subtable split)" : "moving") + " for " +
                    context.timeoutMs() + " ms");
            }
            if (state == CandidateBuckets.LOCKED)
            {
                // the node is splitting the subtable: a few microseconds to a millisecond
                Thread.yield();
            }
            else
            {
                // the subtable split since this thread read the directory
                readDirectoryAgain(node);
            }
        }
    }

    /** @return the token of a new round of asynchronous requests, whose completions are counted from zero. */
    private long startRequests()
    {
        final long token = generation + 1;
        // the generation first: a late completion of an abandoned read must not count for this one
        generation = token;
        completions.set(0);
        failure = RaasStatus.SUCCESS;
        return token;
    }

    /** @return the offset in the index region of the key's candidate combined bucket 0 or 1. */
    private long candidateOffset(final int node, final long hash, final int candidate)
    {
        return CandidateBuckets.offset(nodes[node], hash, candidate);
    }

    /** List the slots of the key's two candidates, read into {@code buffer} at {@code offset}, in address order. */
    private void collectSlots(final int node, final long hash, final MemorySegment buffer, final long offset)
    {
        slotCount = CandidateBuckets.collect(candidateOffset(node, hash, 0), candidateOffset(node, hash, 1), buffer,
            offset, slotOffsets, words);
    }

    /** As {@link #await}, for a round of requests to several nodes: a failure makes each of them read again. */
    private void awaitRound(final int[] roundNodes, final int count, final int expected)
    {
        if (!completed(expected))
        {
            throw roundFailed(roundNodes, count, "did not all answer within " + context.timeoutMs() + " ms");
        }
        if (failure != RaasStatus.SUCCESS)
        {
            throw roundFailed(roundNodes, count, "failed a request: " + RaasStatus.describe(failure));
        }
    }

    private KvException roundFailed(final int[] roundNodes, final int count, final String what)
    {
        final StringBuilder ids = new StringBuilder();
        for (int p = 0; p < count; p++)
        {
            stale[roundNodes[p]] = true;
            ids.append(p == 0 ? "" : ", ").append(nodeIds[roundNodes[p]]);
        }
        return new KvException("memory nodes " + ids + " " + what);
    }

    /**
     * Poll until the round's requests have completed, or the timeout passed (the round is then given up:
     * its late completions count for nothing).
     *
     * @return false when the timeout passed.
     */
    private boolean completed(final int expected)
    {
        final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
        int idle = 0;
        while (completions.get() < expected)
        {
            if (raas.poll() == 0)
            {
                if (++idle < 64)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    Thread.yield();
                    if (nanoClock.nanoTime() > deadline)
                    {
                        generation++;
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private void await(final int node, final int expected)
    {
        if (!completed(expected))
        {
            stale[node] = true;
            throw new KvException("memory node " + nodeIds[node] + " did not answer within " + context.timeoutMs() +
                " ms");
        }
        if (failure != RaasStatus.SUCCESS)
        {
            stale[node] = true;
            throw new KvException("reading the index of memory node " + nodeIds[node] + " failed: " +
                RaasStatus.describe(failure));
        }
    }

    /**
     * Find the key among the candidate slots whose fingerprint matches: its committed slot and its
     * tentative ones (other than {@code ownTentative}, which is known without reading its block).
     */
    private void scan(final int node, final long hash, final byte[] key, final long ownTentative)
    {
        final int fingerprint = KeyHash.fingerprint(hash);
        committedAt = -1;
        tentatives = 0;
        for (int i = 0; i < slotCount; i++)
        {
            final long word = words[i];
            if (SlotWord.isEmpty(word) || SlotWord.fingerprint(word) != fingerprint)
            {
                continue;
            }
            if (word == ownTentative)
            {
                tentatives |= 1 << i;
                continue;
            }
            if (readBlock(node, word, key) != MATCH)
            {
                continue;
            }
            if (SlotWord.isCommitted(word))
            {
                if (committedAt < 0)
                {
                    committedAt = i;
                    committedExpireAt = KvBlockLayout.expireAt(block, 0);
                    committedWriteId = KvBlockLayout.writeId(block, 0);
                    committedPending = KvBlockLayout.isPending(block, 0);
                }
            }
            else
            {
                tentatives |= 1 << i;
            }
        }
    }

    /** @return true when the committed slot the last scan found names a block whose expiry has passed. */
    private boolean committedExpired()
    {
        return KvBlockLayout.isExpired(committedExpireAt, nowMillis);
    }

    private boolean committedHolds(final int node, final byte[] key, final byte[] expected)
    {
        // the scan read the committed block last unless a tentative slot of the key came after it
        final boolean inBuffer = blockInBuffer == words[committedAt];
        return (inBuffer || readBlock(node, words[committedAt], key) == MATCH) &&
            KvBlockLayout.hasValue(block, 0, expected);
    }

    /**
     * Read the block a slot points at into the block buffer.
     *
     * @return {@link #MATCH} when it holds {@code key}.
     * @throws KvException when the block is not whole: blocks are written before any slot points at
     *                     them and never rewritten, so this is a broken heap.
     */
    private int readBlock(final int node, final long word, final byte[] key)
    {
        final MemoryNodeView view = nodes[node];
        final long offset = SlotWord.blockOffset(word);
        int length = SlotWord.lengthHint(word);
        blockInBuffer = SlotWord.EMPTY;
        final Connection connection = connection(node);
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
                    throw brokenBlock(node, offset);
                }
                length = KvBlockLayout.blockLength(keyLength, valueLength);
            }
            if (block.byteSize() < length)
            {
                block = raas.allocateBuffer(Math.min(MAX_BLOCK, Math.max(length, (int)block.byteSize() * 2)));
            }
            connection.read(view.heap, offset, block, 0, length);
        }
        catch (final RaasException ex)
        {
            throw unreachable(node, ex);
        }
        if (!KvBlockLayout.isWhole(block, 0, length))
        {
            blockInBuffer = SlotWord.EMPTY;
            throw brokenBlock(node, offset);
        }
        final boolean match = KvBlockLayout.hasKey(block, 0, key);
        blockInBuffer = match ? word : SlotWord.EMPTY;
        return match ? MATCH : NO_MATCH;
    }

    /**
     * The key was not seen in this read of its candidates: a miss is answered only when two reads in
     * a row saw the same slot words (a slot moving under the read, by a split or a racing insert, makes
     * them differ).
     *
     * @return true when the previous read saw these words too; else they are kept for the next read.
     */
    private boolean absenceConfirmed()
    {
        if (previousCount == slotCount && Arrays.equals(previousWords, 0, slotCount, words, 0, slotCount))
        {
            return true;
        }
        System.arraycopy(words, 0, previousWords, 0, slotCount);
        previousCount = slotCount;
        return false;
    }

    private int indexOf(final long slotOffset)
    {
        for (int i = 0; i < slotCount; i++)
        {
            if (slotOffsets[i] == slotOffset)
            {
                return i;
            }
        }
        return -1;
    }

    /** @return the first empty candidate slot in address order, or -1. */
    private int emptySlot()
    {
        for (int i = 0; i < slotCount; i++)
        {
            if (SlotWord.isEmpty(words[i]))
            {
                return i;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------------------------------------
    // writing

    private boolean clearLaterTentatives(final int node, final int mine)
    {
        int later = tentatives & ~((2 << mine) - 1);
        while (later != 0)
        {
            final int i = Integer.numberOfTrailingZeros(later);
            later &= later - 1;
            final long before = cas(node, slotOffsets[i], words[i], SlotWord.EMPTY);
            if (before != words[i] && before != SlotWord.EMPTY)
            {
                // it was committed meanwhile, or the slot was taken again: start over
                return false;
            }
        }
        return true;
    }

    private void withdraw(final int node, final long slot, final long tentativeWord)
    {
        cas(node, slot, tentativeWord, SlotWord.EMPTY);
    }

    private long cas(final int node, final long slot, final long expected, final long desired)
    {
        try
        {
            return connection(node).cas(nodes[node].index, slot, expected, desired);
        }
        catch (final RaasException ex)
        {
            throw unreachable(node, ex);
        }
    }

    /**
     * Write a whole block into this thread's chunk of the node's heap (a new chunk when it is
     * full).
     *
     * @return the block's offset in the heap region.
     */
    long writeBlock(final int node, final byte[] key, final MemorySegment value, final int length,
        final long expireAt, final long writeId)
    {
        if (out.byteSize() < length)
        {
            out = raas.allocateBuffer(Math.min(MAX_BLOCK, Math.max(length, (int)out.byteSize() * 2)));
        }
        KvBlockLayout.write(out, 0, key, value, expireAt, writeId, pendingBlocks());
        return writeOut(node, length);
    }

    /**
     * Copy the block in the block buffer (read by {@link #readBlock}, whole) into this thread's chunk of
     * another node's heap: a replica brought up to the write another holds, with the same write id.
     *
     * @return the copy's offset in that node's heap region.
     */
    long copyBlock(final int node, final int length)
    {
        if (out.byteSize() < length)
        {
            out = raas.allocateBuffer(Math.min(MAX_BLOCK, Math.max(length, (int)out.byteSize() * 2)));
        }
        MemorySegment.copy(block, 0, out, 0, length);
        return writeOut(node, length);
    }

    private long writeOut(final int node, final int length)
    {
        // a replica's blocks are written before anything else of the operation reads it: its view is made again
        // here when its last request failed
        use(node);
        if (chunkLength[node] == 0 || chunkUsed[node] + length > chunkLength[node])
        {
            allocateChunk(node, length);
        }
        final long offset = chunkOffset[node] + chunkUsed[node];
        try
        {
            connection(node).write(nodes[node].heap, offset, out, 0, length);
        }
        catch (final RaasException ex)
        {
            throw unreachable(node, ex);
        }
        chunkUsed[node] += length;
        return offset;
    }

    private void allocateChunk(final int node, final int needed)
    {
        final long nodeId = nodeIds[node];
        if (chunkLength[node] > 0)
        {
            // no more blocks go into the full one: the node takes it back once no slot points into it
            request(node, MemoryNodeProtocol.RETIRE, 0, chunkOffset[node], false, "retiring a chunk");
            previousChunkOffset[node] = chunkOffset[node];
            previousChunkLength[node] = chunkLength[node];
            previousChunkGeneration[node] = chunkGeneration[node];
            chunkLength[node] = 0;
        }
        final int wanted = Math.max(nextChunk[node], (needed + 63) & ~63);
        final int status = request(node, MemoryNodeProtocol.ALLOCATE, wanted, 0, true, "a heap chunk");
        if (status == MemoryNodeProtocol.FULL)
        {
            throw new KvException("memory node " + nodeId + " is full: no room left in its heap for " + wanted +
                " more bytes of values");
        }
        if (status != MemoryNodeProtocol.OK)
        {
            throw new KvException("memory node " + nodeId + " refused a chunk request (status " + status + ")");
        }
        final int granted = rpc.get(INT, MemoryNodeProtocol.CHUNK_LENGTH_OFFSET);
        if (needed > granted)
        {
            throw new IllegalArgumentException("a block of " + needed + " bytes does not fit memory node " + nodeId +
                "'s heap chunks of " + granted + " bytes");
        }
        chunkOffset[node] = rpc.get(LONG, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET);
        chunkGeneration[node] = rpc.get(INT, MemoryNodeProtocol.CHUNK_GENERATION_OFFSET);
        chunkLength[node] = granted;
        chunkUsed[node] = 0;
        nextChunk[node] = (int)Math.min(LARGEST_CHUNK_ASKED, 2L * granted);
    }

    /**
     * @return the generation of the chunk this thread wrote the block at {@code offset} of node {@code node} into: its
     * chunk now or the one before.
     * @throws IllegalStateException when neither holds the block: a word would name it under a generation guessed.
     */
    int generationOf(final int node, final long offset)
    {
        if (chunkLength[node] > 0 && offset >= chunkOffset[node] && offset < chunkOffset[node] + chunkLength[node])
        {
            return chunkGeneration[node];
        }
        if (previousChunkLength[node] > 0 && offset >= previousChunkOffset[node] &&
            offset < previousChunkOffset[node] + previousChunkLength[node])
        {
            return previousChunkGeneration[node];
        }
        throw new IllegalStateException("block at heap offset " + offset + " of memory node " + nodeIds[node] +
            " is in neither of this thread's last two chunks there");
    }

    /**
     * Both candidate buckets of the key are full: ask the node to split their subtable, and read its
     * directory again.
     *
     * @throws KvException when the subtable cannot split any more.
     */
    private void split(final int node, final long hash, final byte[] key)
    {
        final long subtable = nodes[node].subtableFor(hash);
        // with the depth this thread saw: when another split came first, the node only says so
        final int status = request(node, MemoryNodeProtocol.SPLIT, nodes[node].localDepthFor(hash), subtable, true,
            "a subtable split");
        if (status == MemoryNodeProtocol.FULL)
        {
            throw new KvException(String.format("memory node %d has no free slot in either candidate bucket of key " +
                "%s (%d slots each) and its index cannot split further (it is at its largest directory): give the " +
                "node more index groups or a deeper directory", nodeIds[node], describe(key),
                IndexLayout.SLOTS_PER_COMBINED_BUCKET));
        }
        if (status != MemoryNodeProtocol.OK)
        {
            throw new KvException("memory node " + nodeIds[node] + " refused to split a subtable (status " +
                status + ")");
        }
        readDirectoryAgain(node);
    }

    /** @return true when this client's blocks are written pending: it waits for the node's disk (durability sync). */
    private boolean pendingBlocks()
    {
        return context.durability() == Durability.SYNC;
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
    private boolean settled(final int node, final long blockOffset, final long writeId, final byte[] key)
    {
        final int status = request(node, MemoryNodeProtocol.PERSIST, MemoryNodeProtocol.ANSWER_WHEN_DURABLE,
            blockOffset, writeId, true, "a pending value on disk");
        if (status == MemoryNodeProtocol.OK || status == MemoryNodeProtocol.NOT_PERSISTENT)
        {
            return true;
        }
        if (status == MemoryNodeProtocol.GONE)
        {
            return false;
        }
        throw new KvException("memory node " + nodeIds[node] + " did not write key " + describe(key) +
            " to disk (status " + status + "), whose value read was pending: it is not answered");
    }

    /**
     * Tell the node a key changed (its block, new or deleted, at {@code blockOffset}), as the
     * client's durability asks: not at all, without waiting, or waiting until it is on disk.
     */
    private void persist(final int node, final long blockOffset)
    {
        if (context.durability() == Durability.NONE)
        {
            return;
        }
        final boolean sync = context.durability() == Durability.SYNC;
        final int status =
            request(node, MemoryNodeProtocol.PERSIST, sync ? MemoryNodeProtocol.ANSWER_WHEN_DURABLE : 0, blockOffset,
            KvBlockLayout.NO_WRITE, sync, "the key on disk");
        if (status != MemoryNodeProtocol.OK)
        {
            throw new KvException("memory node " + nodeIds[node] + " did not write the key to disk (status " +
                status + ")" +
                (status == MemoryNodeProtocol.NOT_PERSISTENT ? ": it keeps nothing on disk" : ""));
        }
    }

    /**
     * One request to the node's CPU over this thread's message connection to it.
     *
     * @param answered true: wait for the answer (into the rpc buffer); false: return OK once sent.
     * @return the answer's status.
     */
    private int request(
        final int node, final int type, final int argument, final long block, final boolean answered, final String what)
    {
        return request(node, type, argument, block, KvBlockLayout.NO_WRITE, answered, what);
    }

    /**
     * @param writeId PERSIST: the write the block must hold, or {@link KvBlockLayout#NO_WRITE}: any.
     */
    private int request(final int node, final int type, final int argument, final long block, final long writeId,
        final boolean answered, final String what)
    {
        final long nodeId = nodeIds[node];
        try
        {
            Connection connection = requestConnections[node];
            if (connection == null)
            {
                connection = raas.connect(nodeId, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null);
                requestConnections[node] = connection;
            }
            final long correlation = ++requestCorrelation;
            rpc.set(INT, MemoryNodeProtocol.TYPE_OFFSET, type);
            rpc.set(INT, MemoryNodeProtocol.ARGUMENT_OFFSET, argument);
            rpc.set(LONG, MemoryNodeProtocol.CORRELATION_OFFSET, correlation);
            rpc.set(LONG, MemoryNodeProtocol.BLOCK_OFFSET, block);
            rpc.set(LONG, MemoryNodeProtocol.WRITE_ID_OFFSET, writeId);
            connection.send(rpc, 0, MemoryNodeProtocol.REQUEST_LENGTH, Flags.ADAPTIVE);
            if (!answered)
            {
                return MemoryNodeProtocol.OK;
            }
            final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
            while (true)
            {
                final long left = Math.max(1, (deadline - nanoClock.nanoTime()) / 1_000_000L);
                final int length = connection.recv(rpc, 0, (int)rpc.byteSize(), Duration.ofMillis(left));
                if (length < MemoryNodeProtocol.REPLY_LENGTH)
                {
                    throw new KvException("memory node " + nodeId + " answered a request for " + what + " with " +
                        length + " bytes");
                }
                // an answer to a request this thread gave up on (it timed out) is skipped
                if (rpc.get(LONG, MemoryNodeProtocol.REPLY_CORRELATION_OFFSET) == correlation)
                {
                    return rpc.get(INT, MemoryNodeProtocol.STATUS_OFFSET);
                }
            }
        }
        catch (final RaasException ex)
        {
            stale[node] = true;
            throw new KvException("memory node " + nodeId + " did not answer a request for " + what + ": " +
                ex.getMessage(), ex);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private Connection connection(final int node)
    {
        Connection connection = connections[node];
        if (connection == null)
        {
            try
            {
                connection = raas.open(nodeIds[node], this);
            }
            catch (final RaasException ex)
            {
                throw unreachable(node, ex);
            }
            connections[node] = connection;
        }
        return connection;
    }

    private KvException unreachable(final int node, final RaasException cause)
    {
        stale[node] = true;
        return new KvException("memory node " + nodeIds[node] + ": " + cause.getMessage(), cause);
    }

    /**
     * A block read after its slot may have been replaced meanwhile; the node reuses its memory only
     * after a grace period longer than the operation timeout, so an operation that took longer
     * must not answer with what it read.
     */
    private void requireWithinDeadline(final long startedNanos, final int node, final byte[] key)
    {
        if (nanoClock.nanoTime() - startedNanos > context.timeoutMs() * 1_000_000L)
        {
            throw new KvException("reading key " + describe(key) + " on memory node " + nodeIds[node] +
                " took longer than " + context.timeoutMs() +
                " ms: what it read may have been reused, so it is not answered");
        }
    }

    private KvException brokenBlock(final int node, final long offset)
    {
        return new KvException("the block at heap offset " + offset + " of memory node " + nodeIds[node] +
            " is not whole (checksum or lengths): the heap is damaged");
    }

    private KvException retriesExhausted(final String operation, final int node, final byte[] key)
    {
        return new KvException(operation + " of key " + describe(key) + " on memory node " + nodeIds[node] +
            " lost " + context.maxRetries() + " races in a row");
    }

    static String describe(final byte[] key)
    {
        final int shown = Math.min(key.length, 32);
        final StringBuilder text = new StringBuilder(shown + 16).append('\'');
        for (int i = 0; i < shown; i++)
        {
            final int b = key[i] & 0xff;
            if (b >= 0x20 && b < 0x7f && b != '\'')
            {
                text.append((char)b);
            }
            else
            {
                text.append(String.format("\\x%02x", b));
            }
        }
        text.append('\'');
        if (key.length > shown)
        {
            text.append("... (").append(key.length).append(" bytes)");
        }
        return text.toString();
    }

    public void close()
    {
        if (asyncGets != null)
        {
            asyncGets.close();
        }
        if (asyncWrites != null)
        {
            asyncWrites.close();
        }
        for (int i = 0; i < connections.length; i++)
        {
            closeQuietly(connections[i]);
            closeQuietly(requestConnections[i]);
        }
    }

    /**
     * Close a connection whatever its driver answers: a standalone driver that does not answer (gone, or starved past
     * its liveness timeout) frees what a gone client held, and every other connection must still be closed.
     */
    private static void closeQuietly(final Connection connection)
    {
        if (connection == null)
        {
            return;
        }
        try
        {
            connection.close();
        }
        catch (final RaasException ex)
        {
            // nothing to do for a connection the driver no longer answers for
        }
    }
}
