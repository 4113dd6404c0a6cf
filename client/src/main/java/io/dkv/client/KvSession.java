package io.dkv.client;

import io.dkv.agent.Waits;
import io.dkv.client.async.AsyncSlowPath;
import io.dkv.client.async.AsyncWrite;
import io.dkv.client.index.BatchRead;
import io.dkv.client.index.IndexListing;
import io.dkv.client.index.IndexProbe;
import io.dkv.client.index.KeyState;
import io.dkv.client.index.SlotWriter;
import io.dkv.client.keyspace.KeyScan;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.client.node.HeapChunks;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.client.node.NodeLinks;
import io.dkv.client.replication.RefillBatch;
import io.dkv.client.replication.PendingCopies;
import io.dkv.client.replication.ReplicaChain;
import io.dkv.client.replication.ReplicaReads;
import io.dkv.client.txn.IntentResolver;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.RawKeys;
import io.dkv.format.HeapLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.SlotWord;
import io.dkv.format.ValueKind;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread's side of a client: the operations of {@link KvClient} run with this thread's parts, each of one job:
 * its links to the memory nodes ({@link NodeLinks}), its heap chunks ({@link HeapChunks}), the reads of a key's place
 * in an index ({@link IndexProbe}, {@link ReplicaReads}, {@link IndexListing}), the swaps and inserts of its slot
 * ({@link SlotWriter}) and the writes over replicas ({@link ReplicaChain}). What one part finds it returns
 * ({@link KeyState}); no part calls back into the session.
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
public final class KvSession implements AutoCloseable
{
    public static final int MAX_BLOCK =
        KvBlockLayout.blockLength(KvBlockLayout.MAX_KEY_LENGTH, KvBlockLayout.MAX_VALUE_LENGTH);
    /** Keys of one node whose candidates a multiGet reads in one doorbell batch. */
    static final int BATCH = BatchRead.BATCH;
    /** What {@link #findAgreed} saw. */
    private static final int FOUND = 1;
    private static final int MISSING = 0;
    private static final int DISAGREED = -1;
    /** Between reads of a moving key's two heads that disagreed: a write is in flight between them. */
    private static final long SWITCH_READ_PAUSE_NANOS = 50_000;
    /** The value of a tombstone: none. */
    private static final MemorySegment NO_VALUE = MemorySegment.ofArray(new byte[0]);

    private final KvClientContext context;
    private final MembershipView membership;
    /** Room (16 MiB) no writer of this process fills within {@link #ROOM_SEEN_NANOS}: not asked again within it. */
    private static final long ROOM_TO_SPARE = 16L << 20;
    private static final long ROOM_SEEN_NANOS = 1_000_000L;
    private static final ValueLayout.OfLong BIG_LONG =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@link #fullCopy}'s: the key's copies, and the word READ from each node's heap header. */
    private final int[] placed = new int[MemoryNodeAvailability.CAPACITY];
    private final long[] roomSeen = new long[MemoryNodeAvailability.CAPACITY];
    private final long[] roomSeenAt = new long[MemoryNodeAvailability.CAPACITY];
    private MemorySegment roomBuffer;
    private final EpochClock epochClock;
    /** What operations' deadlines and versions' ages are measured by. */
    private final NanoClock nanoClock;
    /** The races this thread's single-copy writes may lose. */
    private final RaceRetries races;
    /** The races an expiry's rewrite may lose, each a whole versioned read and write. */
    private final RaceRetries expiryRaces;
    /** The nodes' views and connections, and the rounds of requests to them. */
    private final NodeLinks links;
    private final Raas raas;
    /** This thread's heap chunks and the blocks it places there. */
    private final HeapChunks chunks;
    /** Where a key is in one node's index. */
    private final IndexProbe probe;
    /** Swaps and inserts of a key's slot at one node. */
    private final SlotWriter writer;
    /** Whole indexes and the keys their slots name, for refills. */
    private final IndexListing listing;
    /** Writes over a key's replicas (the single-node protocol below while keys have one copy and none move). */
    private final ReplicaChain chain;
    private RefillBatch refillBatch;
    /** The keys of one node a multiGet reads together. */
    private final BatchRead batchRead;
    /** Where a key's operation goes now. */
    private final KeyRouting routing;
    /** This thread's operations carried by completions. */
    private final AsyncStarts asyncStarts;
    /** The context's clock when the current operation started: expiry is judged by it. */
    private long nowMillis;
    /** What a key holding a transaction's intent reads as, and how a write gets it out of its way. */
    private final IntentResolver intents;
    /** The version the last successful raw write of this thread put in place (its word when known). */
    private Versioned lastWritten;
    private KeyScan keyScan;

    /**
     * @param nodes the nodes' views as the client read them when it connected; null for a node that could not be read.
     */
    KvSession(final Raas raas, final KvClientContext context, final MemoryNodeAvailability availability,
        final MembershipView membership, final MemoryNodeView[] nodes)
    {
        this.context = context;
        this.intents = new IntentResolver(new OwnKeys(), context.txnPushMs() * 1_000_000L);
        this.membership = membership;
        this.epochClock = context.epochClock();
        this.nanoClock = context.nanoClock();
        this.races = new RaceRetries(context.maxRetries());
        this.expiryRaces = new RaceRetries(context.maxRetries());
        this.raas = raas;
        this.links = new NodeLinks(raas, context, availability, membership, nodes);
        this.chunks = new HeapChunks(links, context);
        this.probe = new IndexProbe(links, context);
        if (membership.replicas() >= 2)
        {
            // a pending head is settled last, after every other replica holding its write (PendingCopies says why)
            probe.otherCopies(new PendingCopies(membership, new IndexProbe(links, context)));
        }
        this.writer = new SlotWriter(links, probe, context);
        this.listing = new IndexListing(links);
        this.batchRead = new BatchRead(links, probe, writer, nanoClock);
        // with one copy the chain runs only while a membership change moves keys
        this.chain = new ReplicaChain(probe, writer, new ReplicaReads(links, probe, chunks), chunks, membership,
            links.nodeIds(), context);
        this.routing = new KeyRouting(membership, chain, links);
        this.asyncStarts = new AsyncStarts(raas, context, membership, links, chunks, chain, routing);
    }

    // ---------------------------------------------------------------------------------------------
    // reads

    byte[] get(final byte[] key)
    {
        if (!find(key))
        {
            return null;
        }
        if (KvBlockLayout.isIntent(probe.found().expireAt))
        {
            final LogicalValue value = intents.valueOf(key, readRawFound(nanoClock.nanoTime()));
            if (value == null)
            {
                return null;
            }
            WrongKindException.require(key, value.expiryWord(), ValueKind.STRING);
            return value.value();
        }
        WrongKindException.require(key, probe.found().expireAt, ValueKind.STRING);
        return KvBlockLayout.value(probe.block(), 0);
    }

    /**
     * @return the value's length (as much of it as fits is copied into {@code dst}), or -1 when the
     * key has none.
     */
    int get(final byte[] key, final MemorySegment dst)
    {
        if (!find(key))
        {
            return -1;
        }
        if (KvBlockLayout.isIntent(probe.found().expireAt))
        {
            final LogicalValue value = intents.valueOf(key, readRawFound(nanoClock.nanoTime()));
            if (value == null)
            {
                return -1;
            }
            WrongKindException.require(key, value.expiryWord(), ValueKind.STRING);
            MemorySegment.copy(MemorySegment.ofArray(value.value()), 0, dst, 0,
                Math.min(value.value().length, dst.byteSize()));
            return value.value().length;
        }
        WrongKindException.require(key, probe.found().expireAt, ValueKind.STRING);
        return KvBlockLayout.copyValue(probe.block(), 0, dst);
    }

    /**
     * @return the key's value with its expiry and the slot and word that pointed at it, or null when it has none. A
     * transaction's intent on the key is resolved first (client/README.md, "Transactions"), so the version names a
     * value, never an intent.
     */
    Versioned getVersioned(final byte[] key)
    {
        for (int attempt = 0; ; attempt++)
        {
            final Versioned read = readRaw(key);
            if (read == null || !KvBlockLayout.isIntent(read.expireAtMillis()))
            {
                return read;
            }
            resolveIntent(key, attempt);
        }
    }

    /**
     * @return the key's block as it is: a value, or a transaction's intent (its record as the value, expireAt
     * {@link KvBlockLayout#INTENT}), with the slot and word that pointed at it; null when it has no value.
     */
    public Versioned readRaw(final byte[] key)
    {
        final long started = nanoClock.nanoTime();
        return find(key) ? readRawFound(started) : null;
    }

    private Versioned readRawFound(final long started)
    {
        final KeyState found = probe.found();
        final int node = probe.foundNode();
        return new Versioned(KvBlockLayout.value(probe.block(), 0), found.expireAt, links.nodeId(node),
            links.view(node).index.nodeEpoch(), found.slot, found.word, started, found.writeId);
    }

    /** @return milliseconds the key has left, -1 when it never expires, -2 when it has no value (redis's PTTL). */
    long ttlMillis(final byte[] key)
    {
        if (!find(key))
        {
            return -2;
        }
        long expireAt = ValueKind.expiryOf(probe.found().expireAt);
        if (KvBlockLayout.isIntent(expireAt))
        {
            final LogicalValue value = intents.valueOf(key, readRawFound(nanoClock.nanoTime()));
            if (value == null)
            {
                return -2;
            }
            expireAt = value.expireAtMillis();
            nowMillis = epochClock.time();
        }
        return expireAt == KvBlockLayout.NEVER ? -1 : expireAt - nowMillis;
    }

    /** A write met a transaction's intent on the key: finish or undo that transaction there, then the write goes on. */
    private void resolveIntent(final byte[] key, final int attempt)
    {
        if (attempt >= context.maxRetries())
        {
            throw new KvException("key " + KvErrors.describe(key) + " held another transaction's intent " + attempt +
                " times in a row; each was resolved and another came");
        }
        // resolving adds nothing live (an intent gives way to its outcome): on a full node it may take the reserve,
        // so that readers and deletes are never stopped by a transaction left half done
        final boolean was = chunks.freeing(true);
        try
        {
            intents.resolve(key);
        }
        finally
        {
            chunks.freeing(was);
        }
    }

    /**
     * Read several keys, the candidate buckets of up to {@link #BATCH} keys of a node in one doorbell
     * batch.
     *
     * @return the values in the keys' order, null where a key has none, {@link BatchRead#COLLECTION} where it holds a
     * collection.
     */
    byte[][] multiGet(final byte[][] keys)
    {
        if (routing.plain())
        {
            return multiGetOnce(keys);
        }
        // a node that restarted (its regions of another incarnation) or does not answer: read again, once its view is
        // read again or the membership says it is gone, within the failover wait, as a single GET does; reads are
        // idempotent, so the batch is read again whole
        final long deadline = nanoClock.nanoTime() + context.failoverWaitMs() * 1_000_000L;
        while (true)
        {
            try
            {
                return multiGetOnce(keys);
            }
            catch (final MemoryFullException ex)
            {
                // a node with no room (for an intent's resolution) is no node failing: no waiting it out
                throw ex;
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

    private byte[][] multiGetOnce(final byte[][] keys)
    {
        nowMillis = epochClock.time();
        final byte[][] values = new byte[keys.length][];
        final long[] hashes = new long[keys.length];
        final int[] nodeOf = new int[keys.length];
        final boolean[] single = new boolean[keys.length];
        long epoch;
        do
        {
            // reading a node's view again may read the membership again and move heads: until it stands still
            epoch = membership.epoch();
            for (int k = 0; k < keys.length; k++)
            {
                hashes[k] = KeyHash.hash(keys[k]);
                if (routing.plain())
                {
                    nodeOf[k] = routing.node(hashes[k]);
                    continue;
                }
                final int head = chain.head(hashes[k], keys[k]);
                nodeOf[k] = chain.switchHead() < 0 ? links.use(head) : -1;
            }
        }
        while (!routing.plain() && membership.epoch() != epoch);
        for (int k = 0; k < keys.length; k++)
        {
            if (nodeOf[k] < 0)
            {
                // a key moving between two heads: read by the single-key path, which waits for them to agree
                values[k] = getString(keys[k]);
            }
        }
        final int[] batch = new int[BATCH];
        for (int node = 0; node < links.known(); node++)
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
                    readBatch(node, keys, hashes, batch, count, values, single);
                    count = 0;
                }
            }
            if (count > 0)
            {
                readBatch(node, keys, hashes, batch, count, values, single);
            }
        }
        return values;
    }

    private void readBatch(
        final int node, final byte[][] keys, final long[] hashes, final int[] batch, final int count,
        final byte[][] values, final boolean[] single)
    {
        batchRead.read(node, keys, hashes, batch, count, values, single, routing.plain(), nowMillis);
        for (int j = 0; j < count; j++)
        {
            final int k = batch[j];
            if (single[k])
            {
                values[k] = getString(keys[k]);
            }
        }
    }

    /**
     * A put or delete replaces only a string: a collection's header goes with its segments, in a transaction
     * (client/README.md, "Hashes and sets"), so that none is left behind.
     */
    private void requireString(final byte[] key, final KeyState state)
    {
        if (!state.expiredAt(nowMillis) && ValueKind.kindOf(state.expireAt) != ValueKind.STRING)
        {
            throw new WrongKindException(key, ValueKind.kindOf(state.expireAt), ValueKind.STRING);
        }
    }

    /** @return the key's value when it is a string, else {@link BatchRead#COLLECTION} or {@link BatchRead#PIECES}. */
    private byte[] getString(final byte[] key)
    {
        try
        {
            return get(key);
        }
        catch (final WrongKindException ex)
        {
            return ex.kind() == ValueKind.PIECES ? BatchRead.PIECES : BatchRead.COLLECTION;
        }
    }

    /**
     * @return true when the key has a value, which is then in the block buffer.
     */
    private boolean find(final byte[] key)
    {
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        if (routing.plain())
        {
            return findAt(routing.node(hash), hash, key);
        }
        // the head alone holds the key's value: when it does not answer, wait until it does or is declared gone
        final long deadline = nanoClock.nanoTime() + context.failoverWaitMs() * 1_000_000L;
        while (true)
        {
            try
            {
                final long epoch = membership.epoch();
                final int head = links.use(chain.head(hash, key));
                final int other = chain.switchHead();
                if (other >= 0)
                {
                    links.use(other);
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
            catch (final MemoryFullException ex)
            {
                // a node with no room (for an intent's resolution) is no node failing: no waiting it out
                throw ex;
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
            final long afterId = findAt(after, hash, key) ? probe.found().writeId : KvBlockLayout.NO_WRITE;
            final boolean found = findAt(before, hash, key);
            final long beforeId = found ? probe.found().writeId : KvBlockLayout.NO_WRITE;
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
                throw new KvException("key " + KvErrors.describe(key) + " is moving from memory node " +
                    links.nodeId(before) + " to memory node " + links.nodeId(after) + ", and their copies named " +
                    "different writes (" + Long.toHexString(beforeId) + ", " + Long.toHexString(afterId) +
                    ") until the deadline");
            }
            LockSupport.parkNanos(SWITCH_READ_PAUSE_NANOS);
        }
    }

    /** @return true when the key has a value at the node, which is then in the probe's block buffer. */
    private boolean findAt(final int node, final long hash, final byte[] key)
    {
        final int outcome = probe.findAt(node, hash, key, nowMillis);
        if (outcome == IndexProbe.EXPIRED)
        {
            removedIfExpired(node, probe.found());
        }
        return outcome == IndexProbe.FOUND;
    }

    /**
     * The key's committed slot, found with its block: when the block has expired the key has no value, and its slot is
     * emptied by CAS so that its chunk can be reclaimed (a failed CAS means a write replaced it since the read, which
     * stands).
     *
     * @return true when the block has expired.
     */
    private boolean removedIfExpired(final int node, final KeyState found)
    {
        if (!found.expiredAt(nowMillis))
        {
            return false;
        }
        if (routing.plain())
        {
            // with replicas a reader changes no replica alone: the nodes' scans empty expired slots
            writer.cas(node, found.slot, found.word, SlotWord.EMPTY);
        }
        return true;
    }

    /** Begin a GET that completions carry: {@link AsyncStarts#startGet}. */
    boolean startGet(final int kind, final byte[] key, final CompletableFuture<Object> future,
        final AsyncSlowPath slowPath)
    {
        return asyncStarts.startGet(kind, key, future, slowPath);
    }

    /** Begin a write that completions carry: {@link AsyncStarts#startWrite}. */
    boolean startWrite(final int rule, final byte[] key, final byte[] value, final byte[] expected,
        final Versioned version, final long expireAt, final CompletableFuture<Object> future,
        final AsyncSlowPath slowPath)
    {
        return asyncStarts.startWrite(rule, key, value, expected, version, expireAt, future, slowPath);
    }

    /** @return writes of this thread their completions finished alone (not handed to a client thread). */
    long writesAnsweredByCompletions()
    {
        return asyncStarts.writesAnsweredByCompletions();
    }

    /** @return GETs of this thread its completions answered alone (not handed to the synchronous GET). */
    long getsAnsweredByCompletions()
    {
        return asyncStarts.getsAnsweredByCompletions();
    }

    // ---------------------------------------------------------------------------------------------
    // writes

    /**
     * @return the id of the first of the key's copies whose memory node has less room outside its reserve than a
     * client's first chunk (what it publishes in its heap's header: one READ of each), or 0 when none is that full.
     * What MULTI and scripts ask before they queue a write, as redis checks its memory before it queues one; a node
     * that cannot be read now is left to the write itself.
     */
    long fullCopy(final byte[] key)
    {
        final MembershipView.Placement placement = membership.placement();
        final int count = placement.after(KeyHash.hash(key), placed.length, placed);
        if (roomBuffer == null)
        {
            roomBuffer = links.raas().allocateBuffer(Long.BYTES);
        }
        final long now = nanoClock.nanoTime();
        for (int p = 0; p < count; p++)
        {
            try
            {
                final int node = links.use(placed[p]);
                // a node seen with room to spare a moment ago is not asked again: a MULTI or script of many writes
                // costs a READ a millisecond, not one a write
                if (roomSeen[node] >= ROOM_TO_SPARE && now - roomSeenAt[node] < ROOM_SEEN_NANOS)
                {
                    continue;
                }
                links.connection(node).read(links.view(node).heap, HeapLayout.ROOM_OFFSET, roomBuffer, 0, Long.BYTES);
                roomSeen[node] = roomBuffer.get(BIG_LONG, 0);
                roomSeenAt[node] = now;
                if (roomSeen[node] < HeapChunks.FIRST_CHUNK)
                {
                    return links.nodeId(node);
                }
            }
            catch (final KvException | RaasException ex)
            {
                // unreachable now: the write meets it, and says so
            }
        }
        return 0;
    }

    /** A delete frees memory: on a full node its tombstone may take the reserve the node keeps for deletes. */
    boolean delete(final byte[] key)
    {
        final boolean was = chunks.freeing(true);
        try
        {
            for (int attempt = 0; ; attempt++)
            {
                try
                {
                    return deleteUnlessIntent(key);
                }
                catch (final IntentFound found)
                {
                    resolveIntent(key, attempt);
                }
            }
        }
        finally
        {
            chunks.freeing(was);
        }
    }

    private boolean deleteUnlessIntent(final byte[] key)
    {
        try
        {
            return deleteUnlessIntentHeld(key);
        }
        finally
        {
            // its nodes were told of it, or its notices are held for a flush: no mark waits for it any more
            chunks.writeDone();
        }
    }

    private boolean deleteUnlessIntentHeld(final byte[] key)
    {
        // where nodes are told of writes a delete publishes a tombstone, not an empty slot: of its own epoch, kept as a
        // version where versions are kept, and under durability sync pending, so that a reader of the miss it makes
        // settles it on the node's disk first (KvBlockLayout.TOMBSTONE)
        final boolean tombstone = chunks.tombstones();
        if (!routing.plain())
        {
            return tombstone ?
                chain.write(key, NO_VALUE, ReplicaChain.DELETE, null, null, KvBlockLayout.TOMBSTONE) :
                chain.write(key, null, ReplicaChain.DELETE, null, null, KvBlockLayout.NEVER);
        }
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        final int node = routing.node(hash);
        long tombstoneWord = SlotWord.EMPTY;
        probe.forgetMisses();
        for (races.start(); races.another(); )
        {
            probe.readCandidates(node, hash);
            final KeyState state = probe.scan(node, hash, key, 0);
            if (!state.committed())
            {
                if (probe.missConfirmed())
                {
                    return false;
                }
                continue;
            }
            probe.forgetMisses();
            if (KvBlockLayout.isIntent(state.expireAt))
            {
                throw new IntentFound(key);
            }
            requireString(key, state);
            // an expired key had no value to delete: its slot is only reclaimed, once what it says is on disk (a
            // pending tombstone: an earlier delete not on disk yet)
            final boolean expired = state.expiredAt(nowMillis);
            if (expired && state.pending && !probe.settled(node, SlotWord.blockOffset(state.word), state.writeId, key))
            {
                continue;
            }
            if (tombstone && !expired && tombstoneWord == SlotWord.EMPTY)
            {
                tombstoneWord = writeTombstone(node, hash, key);
            }
            final long desired = expired ? SlotWord.EMPTY : tombstoneWord;
            if (writer.cas(node, state.slot, state.word, desired) == state.word)
            {
                chunks.persist(node, SlotWord.blockOffset(desired == SlotWord.EMPTY ? state.word : desired),
                    state.writeId);
                return !expired;
            }
        }
        throw races.exhausted("delete", links.nodeId(node), key);
    }

    /** @return the committed word of a pending tombstone of the key, written to this thread's chunk of the node. */
    private long writeTombstone(final int node, final long hash, final byte[] key)
    {
        final int length = KvBlockLayout.blockLength(key.length, 0);
        final long offset =
            chunks.writeBlock(node, key, NO_VALUE, length, KvBlockLayout.TOMBSTONE, KvBlockLayout.drawWriteId(),
                chunks.writeEpoch());
        return SlotWord.committed(KeyHash.fingerprint(hash), offset, length, true, chunks.generationOf(node, offset));
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
        try
        {
            return writeHeld(key, value, expected, put, expireAt);
        }
        finally
        {
            // its nodes were told of it, or its notices are held for a flush: no mark waits for it any more
            chunks.writeDone();
        }
    }

    private boolean writeHeld(final byte[] key, final MemorySegment value, final byte[] expected, final boolean put,
        final long expireAt)
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                return writeUnlessIntent(key, value, expected, put, expireAt);
            }
            catch (final IntentFound found)
            {
                resolveIntent(key, attempt);
            }
        }
    }

    /**
     * Insert the key's value only if it has none, as it is (a transaction's intent is a value here): false when it
     * holds any block, an intent included. {@link #lastWritten} says what it put in place.
     */
    public boolean insertRaw(final byte[] key, final byte[] value, final long expireAt)
    {
        try
        {
            return insertRawHeld(key, value, expireAt);
        }
        finally
        {
            // its nodes were told of it, or its notices are held for a flush: no mark waits for it any more
            chunks.writeDone();
        }
    }

    private boolean insertRawHeld(final byte[] key, final byte[] value, final long expireAt)
    {
        try
        {
            return writeUnlessIntent(key, MemorySegment.ofArray(value), null, false, expireAt);
        }
        catch (final IntentFound found)
        {
            return false;
        }
    }

    /**
     * Swap the key's block from the one {@code expected} names (a value or an intent) to a new one, with no intent
     * resolved on the way: {@link #writeIfVersion}, a miss where the key changed. {@link #lastWritten} says what it
     * put in place.
     */
    public boolean swapRaw(final byte[] key, final byte[] value, final Versioned expected, final long expireAt)
    {
        return writeIfVersion(key, MemorySegment.ofArray(value), expected, expireAt);
    }

    /**
     * As {@link #swapRaw}, compared by write id only, never by value (a version too old for its word to be compared
     * is compared by the write id of the block the key's slot names): a transaction's parallel commit, whose
     * recovery retires a write id by rewriting the same value under a new one, needs it.
     */
    public boolean swapRawExact(final byte[] key, final byte[] value, final Versioned expected, final long expireAt)
    {
        try
        {
            return swapRawExactHeld(key, value, expected, expireAt);
        }
        finally
        {
            // its nodes were told of it, or its notices are held for a flush: no mark waits for it any more
            chunks.writeDone();
        }
    }

    private boolean swapRawExactHeld(final byte[] key, final byte[] value, final Versioned expected,
        final long expireAt)
    {
        try
        {
            return writeIfVersionOnce(key, MemorySegment.ofArray(value), expected, expireAt, true);
        }
        catch (final IntentFound found)
        {
            return false;
        }
    }

    /**
     * Make ready a raw swap carried by completions ({@link AsyncStarts#prepareSwap}), compared by write id only.
     *
     * @return null where completions cannot carry it: the caller swaps by {@link #swapRawExact}.
     */
    public AsyncWrite prepareSwap(final byte[] key, final Versioned from, final byte[] value,
        final long expireAt, final CompletableFuture<Object> future, final AsyncSlowPath slowPath)
    {
        return asyncStarts.prepareSwap(key, from, value, expireAt, future, slowPath);
    }

    /**
     * Wait for an operation carried by completions, polling this session's handle meanwhile as a synchronous request
     * does (the handle's own agent backs off while idle: its next poll may be a park away).
     *
     * @return the future's value.
     * @throws java.util.concurrent.CompletionException as {@link CompletableFuture#join} does.
     */
    public <T> T await(final CompletableFuture<T> future)
    {
        int turns = 0;
        while (!future.isDone())
        {
            if (raas.poll() == 0)
            {
                Waits.idle(++turns);
            }
        }
        return future.join();
    }

    /** @return the version this thread's last successful raw write put in place; its word is known at one copy. */
    public Versioned lastWritten()
    {
        return lastWritten;
    }

    private boolean writeUnlessIntent(final byte[] key, final MemorySegment value, final byte[] expected,
        final boolean put, final long expireAt)
    {
        lastWritten = null;
        if (!routing.plain())
        {
            final boolean written =
                chain.write(key, value, put ? ReplicaChain.PUT : ReplicaChain.IF_VALUE, expected, null, expireAt);
            if (written)
            {
                lastWritten = chainWritten(value, expireAt);
            }
            return written;
        }
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        final int node = routing.node(hash);
        final int fingerprint = KeyHash.fingerprint(hash);
        final int length = KvBlockLayout.blockLength(key.length, (int)value.byteSize());
        final long writeId = KvBlockLayout.drawWriteId();
        long blockEpoch = chunks.writeEpoch();
        long blockOffset = chunks.writeBlock(node, key, value, length, expireAt, writeId, blockEpoch);
        long committedWord = SlotWord.committed(fingerprint, blockOffset, length,
            expireAt != KvBlockLayout.NEVER, chunks.generationOf(node, blockOffset));
        final long tentativeWord = SlotWord.tentative(committedWord);
        writer.startInsert();
        probe.forgetMisses();
        for (races.start(); races.another(); )
        {
            probe.readCandidates(node, hash);
            final KeyState state = probe.scan(node, hash, key, tentativeWord);
            if (state.committed())
            {
                if (state.epoch > blockEpoch)
                {
                    // a write is never of an epoch before the one it replaces: its block again, at the key's epoch
                    // (only a committed slot is swapped to it: the tentative word an insert uses stays the first's)
                    blockEpoch = chunks.writeEpoch();
                    blockOffset = chunks.writeBlock(node, key, value, length, expireAt, writeId, blockEpoch);
                    committedWord = SlotWord.committed(fingerprint, blockOffset, length,
                        expireAt != KvBlockLayout.NEVER, chunks.generationOf(node, blockOffset));
                }
                // an expired value is an absent one: replaced as such
                final boolean expired = state.expiredAt(nowMillis);
                // a transaction's intent is replaced only by a write naming it exactly (its record's bytes)
                if (KvBlockLayout.isIntent(state.expireAt) &&
                    (put || expected == null || !probe.committedHolds(node, key, expected)))
                {
                    throw new IntentFound(key);
                }
                if (put)
                {
                    requireString(key, state);
                }
                if (!put &&
                    (expected == null ? !expired : expired || !probe.committedHolds(node, key, expected)))
                {
                    // a refusal tells what the key holds: answered only once that is on the node's disk
                    if (state.pending && !probe.settled(node, SlotWord.blockOffset(state.word), state.writeId, key))
                    {
                        probe.forgetMisses();
                        continue;
                    }
                    return false;
                }
                if (writer.cas(node, state.slot, state.word, committedWord) == state.word)
                {
                    chunks.persist(node, blockOffset, state.writeId);
                    lastWritten = written(value, expireAt, node, state.slot, committedWord, writeId);
                    return true;
                }
                continue;
            }
            if (!put && expected != null)
            {
                // the key must hold a value and none was seen
                if (probe.missConfirmed())
                {
                    return false;
                }
                continue;
            }
            if (writer.tryInsert(node, hash, key, committedWord, tentativeWord) == SlotWriter.INSERTED)
            {
                chunks.persist(node, blockOffset, KvBlockLayout.NO_WRITE);
                lastWritten = written(value, expireAt, -1, -1, committedWord, writeId);
                return true;
            }
        }
        throw races.exhausted(put ? "put" : "compareAndSet", links.nodeId(node), key);
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
        try
        {
            return writeIfVersionHeld(key, value, expected, expireAt);
        }
        finally
        {
            // its nodes were told of it, or its notices are held for a flush: no mark waits for it any more
            chunks.writeDone();
        }
    }

    private boolean writeIfVersionHeld(final byte[] key, final MemorySegment value, final Versioned expected,
        final long expireAt)
    {
        try
        {
            return writeIfVersionOnce(key, value, expected, expireAt, false);
        }
        catch (final IntentFound found)
        {
            // compared by its value (an old version), the key holds a transaction's intent instead: not that version
            return false;
        }
    }

    /** @param exact compared by write id where the word is not known, never by value. */
    private boolean writeIfVersionOnce(final byte[] key, final MemorySegment value, final Versioned expected,
        final long expireAt, final boolean exact)
    {
        if (KvBlockLayout.isExpired(expected.expireAtMillis(), epochClock.time()))
        {
            // that version is gone whether or not its slot still names it: the key has no value now
            return false;
        }
        lastWritten = null;
        if (!routing.plain())
        {
            // replicas' slot words differ: the version is the write it read, compared by its id on the settled state
            final boolean written = chain.write(key, value, ReplicaChain.IF_VERSION, null, expected, expireAt);
            if (written)
            {
                lastWritten = chainWritten(value, expireAt);
            }
            return written;
        }
        final long hash = KeyHash.hash(key);
        final int node = routing.node(hash);
        boolean swap = links.knowsWord(expected, node);
        if (!swap && !exact)
        {
            // its block may have been reused since, or the node is another incarnation: the value decides
            return writeUnlessIntent(key, value, expected.value(), false, expireAt);
        }
        final int length = KvBlockLayout.blockLength(key.length, (int)value.byteSize());
        final long writeId = KvBlockLayout.drawWriteId();
        // the version it replaces was read by this client, so the client's epoch is at least its
        final long blockOffset = chunks.writeBlock(node, key, value, length, expireAt, writeId,
            chunks.writeEpoch());
        final long committedWord = SlotWord.committed(KeyHash.fingerprint(hash), blockOffset, length,
            expireAt != KvBlockLayout.NEVER, chunks.generationOf(node, blockOffset));
        long slot = expected.slotOffset;
        long word = expected.word;
        probe.forgetMisses();
        for (races.start(); races.another(); )
        {
            if (swap)
            {
                // looked at just before each CAS, not once: writing the block may have waited on a heap chunk
                if (!exact && !links.knowsWord(expected, node))
                {
                    return writeUnlessIntent(key, value, expected.value(), false, expireAt);
                }
                if (writer.cas(node, slot, word, committedWord) == word)
                {
                    // the word swapped names the block of the write expected (a word names one block, never rewritten)
                    chunks.persist(node, blockOffset, expected.writeId);
                    lastWritten = written(value, expireAt, node, slot, committedWord, writeId);
                    return true;
                }
            }
            probe.readCandidates(node, hash);
            final KeyState state = probe.scan(node, hash, key, 0);
            if (!state.committed())
            {
                // the key must hold that version and none was seen
                if (probe.missConfirmed())
                {
                    return false;
                }
                swap = false;
                continue;
            }
            // compared by write id, exact or not: a block moved whole (the cleaner) keeps its write id under another
            // word, and a write id names one write whatever word names its block now
            if (state.writeId != expected.writeId)
            {
                return false;
            }
            slot = state.slot;
            word = state.word;
            swap = true;
            probe.forgetMisses();
        }
        throw races.exhausted("compareAndSetVersion", links.nodeId(node), key);
    }

    /**
     * The key's value again with another expiry (redis's EXPIRE and PERSIST): a versioned read and a compare-and-set
     * of a block with the new expiry, again while other writes come between.
     *
     * @param onlyExpiring true: false at once when the value has no expiry (PERSIST).
     * @return false when the key has no value (or, with {@code onlyExpiring}, no expiry).
     */
    boolean rewriteExpiry(final byte[] key, final long expireAt, final boolean onlyExpiring)
    {
        for (expiryRaces.start(); expiryRaces.another(); )
        {
            final Versioned current = getVersioned(key);
            if (current == null || (onlyExpiring && current.expireAtMillis() == KvBlockLayout.NEVER))
            {
                return false;
            }
            // a collection's segments expire with its header: changed together, in a transaction
            WrongKindException.require(key, current.expiryWord(), ValueKind.STRING);
            if (writeIfVersion(key, MemorySegment.ofArray(current.value()), current,
                ValueKind.withExpiry(current.expiryWord(), expireAt)))
            {
                return true;
            }
        }
        throw expiryRaces.exhausted(onlyExpiring ? "persisting" : "expiring", key);
    }

    /**
     * A write at one copy put this word in place: the version it makes, comparable by its word when its slot is known
     * (else by its value, as an old version is).
     */
    private Versioned written(final MemorySegment value, final long expireAt, final int node, final long slot,
        final long word, final long writeId)
    {
        return new Versioned(value.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), expireAt,
            node < 0 ? -1 : links.nodeId(node), node < 0 ? -1 : links.view(node).index.nodeEpoch(), slot, word,
            nanoClock.nanoTime(), writeId);
    }

    /** A chained write put its write in place: the version it makes, compared by its write id. */
    private Versioned chainWritten(final MemorySegment value, final long expireAt)
    {
        return new Versioned(value == null ? new byte[0] : value.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
            expireAt, -1, -1, -1, SlotWord.EMPTY, nanoClock.nanoTime(), chain.lastWriteId());
    }

    /** This session's raw single-key operations, as the intent rules use them. */
    private final class OwnKeys implements RawKeys
    {
        public Versioned read(final byte[] key)
        {
            return readRaw(key);
        }

        public boolean swap(final byte[] key, final Versioned from, final byte[] value, final long expireAt)
        {
            return swapRaw(key, value, from, expireAt);
        }

        public boolean swapExact(final byte[] key, final Versioned from, final byte[] value, final long expireAt)
        {
            return swapRawExact(key, value, from, expireAt);
        }

        public boolean insert(final byte[] key, final byte[] value, final long expireAt)
        {
            return insertRaw(key, value, expireAt);
        }

        public Versioned lastWritten()
        {
            return lastWritten;
        }

        public long epochMillis()
        {
            return epochClock.time();
        }

        public long nanoTime()
        {
            return nanoClock.nanoTime();
        }
    }

    /** @return what a key holding an intent reads as, by this session's operations. */
    public IntentResolver intents()
    {
        return intents;
    }

    /** @return where this thread's blocks go. */
    HeapChunks chunks()
    {
        return chunks;
    }

    /** @return where this thread reads a key's place in one node's index. */
    IndexProbe probe()
    {
        return probe;
    }

    /** @return what swaps and inserts this thread's slots. */
    SlotWriter writer()
    {
        return writer;
    }

    /** @return the reads of whole indexes, for refills. */
    IndexListing listing()
    {
        return listing;
    }

    /**
     * Ask a memory node to restart from its disk ({@link MemoryNodeProtocol#RESTART}), and wait for its answer.
     *
     * @return its status: OK when it restarts.
     */
    int askToRestart(final int node, final long incarnation, final long askerId)
    {
        return links.request(node, MemoryNodeProtocol.RESTART, 0, incarnation, askerId, true,
            "a restart from its disk");
    }

    /** @see KvClient#maxMemory(long) */
    int limitHeap(final int node, final long bytes)
    {
        return links.request(node, MemoryNodeProtocol.LIMIT, 0, bytes, 0, true, "a heap limit");
    }

    /**
     * Run a read that walks the nodes (a scan's step, a random key), again past a failure while it may succeed: a
     * node that restarted under the thread's view (its regions of another incarnation) is read anew at its next use,
     * so the read goes on once the view is read again, or the membership says the node is gone, within the failover
     * wait, as a single GET does. With one copy of each key it is tried once more, at once, and then fails as before.
     * Reads are idempotent, so the walk's step is made again whole.
     */
    <T> T readAgainPastFailures(final java.util.function.Supplier<T> read)
    {
        final long deadline = nanoClock.nanoTime() + context.failoverWaitMs() * 1_000_000L;
        boolean retried = false;
        while (true)
        {
            try
            {
                return read.get();
            }
            catch (final MemoryFullException ex)
            {
                // a node with no room (for an intent's resolution) is no node failing: no waiting it out
                throw ex;
            }
            catch (final KvException ex)
            {
                if (routing.plain() ? retried : !chain.awaitHead(deadline))
                {
                    throw ex;
                }
                retried = true;
            }
        }
    }

    KeyScan keyScan()
    {
        if (keyScan == null)
        {
            keyScan = new KeyScan(links, membership, listing, epochClock, key -> getVersioned(key) != null);
        }
        return keyScan;
    }

    /** @return the chain this thread writes replicated keys with. */
    ReplicaChain chain()
    {
        return chain;
    }

    /** @return the refills of keys in batches over this session's chain, made at the first asking (refills only). */
    RefillBatch refillBatch()
    {
        if (refillBatch == null)
        {
            refillBatch = new RefillBatch(links, probe, chunks, chain, membership.replicas(), context);
        }
        return refillBatch;
    }

    public void close()
    {
        asyncStarts.close();
        // no mark is written over the connections from now on: they close next
        chunks.close();
        links.close();
    }
}
