package io.dkv.client.replication;

import io.dkv.client.KvException;
import io.dkv.client.RefillReport;
import io.dkv.client.index.IndexListing;
import io.dkv.client.membership.MembershipView;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.SlotWord;
import io.dkv.raas.Membership;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * Copies onto a joining memory node every key it should hold, with one thread's reads and chain: the index of
 * each serving member is read in large one-sided READs, and each key found there whose first serving
 * replica that member is (so each key once) and whose replicas include the joiner is brought up to its
 * settled write ({@link ReplicaChain#refill}); the joiner's own index is scanned too, so that keys it
 * holds from its disk but which were deleted meanwhile are cleared. A member that split a subtable
 * during its scan (its directory version moved) is scanned again, as a key may have moved past it.
 *
 * <p>Writers put every write on the joiner right after winning the tail, so what was written during
 * the scan is there whether or not the scan saw it.
 *
 * <p>Past the usual length: a refill, a membership change's fill and its switch pass share the index scan, the
 * copies skipped and the per-key count; the handover pass ({@link #handoverChange}) is the seam to split along next.
 */
public final class ReplicaCopier
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Index bytes read at once: whole buckets. */
    private static final int CHUNK = 1024 * IndexLayout.BUCKET_LENGTH;
    private static final int MAX_PASSES = 8;
    /** Words of copies a scan keeps to skip (about 16 bytes each): past that it reads its own copies again. */
    private static final long IN_PLACE_WORDS_LIMIT = Runtime.getRuntime().maxMemory() / 256;

    private final IndexListing listing;
    private final RefillBatch batch;
    /** The first pass's sweep of whole reads, made at its first use. */
    private InPlaceSweep sweep;
    private final MembershipView membership;
    private final long[] nodeIds;
    private final NanoClock nanoClock;
    private final int[] placed;
    private final int[] placedAfter;
    private final MemorySegment buffer;
    /** What a fill pass notes for the switch after it, or null (a refill, or a pass that reads every key). */
    private final ChangeLedger ledger;
    /**
     * Per node, the words of copies this scan found or put in place, at the members entering the key's placement and
     * its serving replicas: the scan of that node's own index skips them, rather than reading each key again.
     */
    private final LongHashSet[] inPlaceWords;
    private final int[] servingNodes;
    private final long[] servingWords;
    /** One range of an index: its committed words, copied out, where they are, and the keys of the blocks they name. */
    private final long[] committed = new long[CHUNK / IndexLayout.SLOT_LENGTH];
    private final long[] slotOffsets = new long[CHUNK / IndexLayout.SLOT_LENGTH];
    private final byte[][] keys = new byte[CHUNK / IndexLayout.SLOT_LENGTH][];
    /** The expiry and write id of each key's block, as a refill's scan of its joiner reads them with the key. */
    private final long[] expireAts = new long[CHUNK / IndexLayout.SLOT_LENGTH];
    private final long[] writeIds = new long[CHUNK / IndexLayout.SLOT_LENGTH];
    /** The committed words of the node the switch pass scans, sorted once it is scanned. */
    private long[] present = new long[CHUNK / IndexLayout.SLOT_LENGTH];
    private int presentCount;
    /** Whether a key found in place goes to the ledger: not in a second refill pass, which reads the ledger. */
    private boolean noting = true;
    /** In a second refill pass, per node scanned: the words its scan skipped as in place, which stand still. */
    private LongHashSet[] standingInPlace;
    private long keysSeen;
    private long refilled;
    private long inPlace;
    private long unsettled;
    private long alone;
    /** Of the keys in place, those the first pass's sweep found so from whole reads. */
    private long swept;

    public ReplicaCopier(final IndexListing listing, final RefillBatch batch, final MembershipView membership,
        final long[] nodeIds, final NanoClock nanoClock)
    {
        this(listing, batch, membership, nodeIds, nanoClock, null);
    }

    /**
     * @param batch  the refills of keys in batches, over the chain of the session that reads the indexes.
     * @param ledger filled by {@link #fillChange()} for the handover pass after it ({@link #handoverChange}).
     */
    public ReplicaCopier(final IndexListing listing, final RefillBatch batch, final MembershipView membership,
        final long[] nodeIds, final NanoClock nanoClock, final ChangeLedger ledger)
    {
        this.ledger = ledger;
        this.servingNodes = new int[membership.replicas()];
        this.servingWords = new long[membership.replicas()];
        this.inPlaceWords = new LongHashSet[nodeIds.length];
        for (int node = 0; node < nodeIds.length; node++)
        {
            inPlaceWords[node] = new LongHashSet();
        }
        this.listing = listing;
        this.batch = batch;
        this.membership = membership;
        this.nodeIds = nodeIds;
        this.nanoClock = nanoClock;
        this.placed = new int[membership.replicas()];
        this.placedAfter = new int[membership.replicas()];
        this.buffer = listing.allocateBuffer(CHUNK);
    }

    /**
     * Refill the joiner: every key whose replicas include it brought up to its serving replicas' settled write. With a
     * ledger, each key found or put in place is noted with its words (its group), for {@link #refillAgain}.
     */
    public RefillReport refill(final int joiner)
    {
        final long started = nanoClock.nanoTime();
        sweep(joiner);
        final int passes = refillScans(joiner, false);
        return new RefillReport(keysSeen, refilled, inPlace, unsettled, passes,
            TimeUnit.NANOSECONDS.toMillis(nanoClock.nanoTime() - started), alone, swept);
    }

    /**
     * The second pass of a refill whose first ({@link #refill} with a ledger) ran while writers that did not know the
     * joiner yet could still write, called once every such write has ended (client/README.md, "Refill around its
     * wait"): each index is scanned again, skipping the words the first pass found or put in place. A key such a
     * writer wrote since holds a word the first pass did not see, and is refilled; a key it deleted left a word of its
     * group gone, and is refilled from the key read at a word of the group still standing (the joiner's copy, then
     * cleared).
     *
     * @return what it did: keys seen, refilled and in place over both passes, unsettled in this one.
     */
    public RefillReport refillAgain(final int joiner)
    {
        if (ledger == null || ledger.abandoned())
        {
            throw new IllegalStateException("a second refill pass needs the first's ledger, whole: " + ledger);
        }
        final long started = nanoClock.nanoTime();
        noting = false;
        // a key the first pass left unsettled is not in place: this pass reads it again, and counts it if it still is
        unsettled = 0;
        standingInPlace = new LongHashSet[nodeIds.length];
        final int passes = refillScans(joiner, true);
        final Set<ByteBuffer> gone = new HashSet<>();
        final int[] nodes = new int[ledger.groups()];
        final long[] words = new long[ledger.groups()];
        // a word of a group the scan did not skip as in place is gone, or was not kept as in place (the set's cap):
        // either way the key is read again
        readKeysOf(nodes, words, ledger.standingWordsOfGone((node, word) -> standingInPlace[node] != null &&
            standingInPlace[node].contains(word), nodes, words), gone);
        standingInPlace = null;
        for (final ByteBuffer key : gone)
        {
            count(key.array(), joiner);
        }
        flush();
        return new RefillReport(keysSeen, refilled, inPlace, unsettled, passes,
            TimeUnit.NANOSECONDS.toMillis(nanoClock.nanoTime() - started), alone, swept);
    }

    /**
     * Before the scans: the joiner's keys found in place from whole reads of its index and heap and of its serving
     * replicas' ({@link InPlaceSweep}), each as a batch finding it in place would note it, so the scans skip them.
     */
    private void sweep(final int joiner)
    {
        if (this.sweep == null)
        {
            this.sweep = new InPlaceSweep(batch, listing, nanoClock);
        }
        final long found = this.sweep.sweep(joiner, new InPlaceSweep.Found()
        {
            public void inPlace(final int j, final long joinWord, final int count, final int[] nodes,
                final long[] words)
            {
                foundInPlace(j, joinWord, count, nodes, words);
            }

            public void expect(final long keys)
            {
                // sized once for them all, rather than grown by rehashing through a million words
                final int capacity = (int)(Math.min(keys, IN_PLACE_WORDS_LIMIT) * 3 / 2) + 1;
                for (int node = 0; node < inPlaceWords.length; node++)
                {
                    if (inPlaceWords[node].isEmpty())
                    {
                        inPlaceWords[node] = new LongHashSet(capacity);
                    }
                }
            }
        });
        keysSeen += found;
        inPlace += found;
        swept += found;
    }

    /**
     * Scan each serving member's index and the joiner's, each again while it split a subtable during its scan.
     *
     * @param keepStanding fill {@link #standingInPlace} with each node's words skipped as in place by its last scan.
     * @return the scans made.
     */
    private int refillScans(final int joiner, final boolean keepStanding)
    {
        int passes = 0;
        final MembershipView.Placement placement = membership.placement();
        for (int node = 0; node < nodeIds.length; node++)
        {
            // a joining member back with its memory may hold the copies of keys no member serves: scanned too
            if (node != joiner && !membership.serves(node) && !placement.isBackWithItsMemory(node))
            {
                continue;
            }
            long before;
            long after;
            do
            {
                if (++passes > MAX_PASSES * nodeIds.length)
                {
                    throw new KvException("memory node " + nodeIds[node] + " kept splitting subtables while its " +
                        "index was scanned to refill memory node " + nodeIds[joiner] + ": " + passes + " scans");
                }
                before = directoryVersion(node);
                if (keepStanding)
                {
                    // only what this scan saw: a word an earlier scan of the node saw may have gone since
                    standingInPlace[node] = new LongHashSet();
                }
                scan(node, joiner);
                after = directoryVersion(node);
            }
            while (before != after);
        }
        return passes;
    }

    /**
     * Copy every key a membership change moves onto the members entering its placement, each up to the write its
     * replicas before the change settled on (client/README.md, "Membership change"): the index of each serving member
     * placed before the change is scanned, and of each member entering the placement, so that what one of those holds
     * from its disk but was deleted meanwhile is cleared. In the fill phase the seals a change before left are cleared
     * as the scan meets them; in the handover phase each moving key is sealed instead
     * ({@link ReplicaChain#sealForChange}, client/README.md, "The handover").
     *
     * @return what it did; {@link RefillReport#complete()} is false when some key was left unsettled or had no
     * serving replica, and the pass should run again.
     */
    public RefillReport fillChange()
    {
        final long started = nanoClock.nanoTime();
        final MembershipView.Placement placement = membership.placement();
        if (!placement.changing())
        {
            throw new KvException("no membership change is in progress (epoch " + placement.epoch + ")");
        }
        final int passes = scanMembers(placement, node -> scanForChange(placement, node));
        if (ledger != null)
        {
            ledger.close(unsettled == 0);
        }
        return new RefillReport(keysSeen, refilled, inPlace, unsettled, passes,
            TimeUnit.NANOSECONDS.toMillis(nanoClock.nanoTime() - started), alone, swept);
    }

    /**
     * The handover phase's pass when the fill pass before it noted what it found ({@link ChangeLedger}): each member's
     * index is read in large READs as the fill reads it; a key's tail that still holds the word the fill noted is
     * sealed from it as it is read, and only the keys of words the fill did not account for are read, and only the
     * moving keys among them, and those one of whose settled words is gone, are sealed one by one (a write left
     * unsettled by a writer that died rolled forward first), as {@link #fillChange()} seals every moving key in the
     * handover. What it reads again grows with what was written since the fill, not with the keys the change moves.
     *
     * @param fill what the fill pass noted; {@link ChangeLedger#servesHandoverOf} the membership's epoch.
     * @return what it did: keys seen are the keys it read again.
     */
    public RefillReport handoverChange(final ChangeLedger fill)
    {
        final long started = nanoClock.nanoTime();
        final MembershipView.Placement placement = membership.placement();
        if (placement.phase != Membership.HANDOVER || !fill.servesHandoverOf(placement.epoch))
        {
            throw new KvException("the fill's ledger (" + fill + ") does not serve epoch " + placement.epoch +
                " in phase " + Membership.phaseName(placement.phase));
        }
        final Set<ByteBuffer> changed = new HashSet<>();
        final long[][] present = new long[placement.nodeCount()][];
        final int[] presentCounts = new int[placement.nodeCount()];
        final int passes = scanMembers(placement, node ->
        {
            presentCount = 0;
            scanSinceFill(fill, node, changed);
            present[node] = Arrays.copyOf(this.present, presentCount);
            presentCounts[node] = presentCount;
            Arrays.sort(present[node]);
        });
        readKeysOfGone(fill, present, presentCounts, changed);
        for (final ByteBuffer key : changed)
        {
            sealMoving(placement, key.array());
        }
        flush();
        return new RefillReport(keysSeen, refilled, inPlace, unsettled, passes,
            TimeUnit.NANOSECONDS.toMillis(nanoClock.nanoTime() - started), alone, swept);
    }

    /**
     * Scan the index of each member the change places keys on and that serves, each again while it split a subtable
     * during its scan (a key may have moved past the scan).
     *
     * @return the scans made.
     */
    private int scanMembers(final MembershipView.Placement placement, final IntConsumer scan)
    {
        int passes = 0;
        for (int node = 0; node < placement.nodeCount(); node++)
        {
            if (placement.placement(node) == 0 || !placement.serves(node))
            {
                continue;
            }
            long before;
            long after;
            do
            {
                if (++passes > MAX_PASSES * placement.nodeCount())
                {
                    throw new KvException("memory node " + nodeIds[node] + " kept splitting subtables while its " +
                        "index was scanned for a membership change: " + passes + " scans");
                }
                before = directoryVersion(node);
                scan.accept(node);
                after = directoryVersion(node);
            }
            while (before != after);
        }
        return passes;
    }

    /** Read the keys of the moving keys one of whose settled words is gone, from a word of each still standing. */
    private void readKeysOfGone(final ChangeLedger fill, final long[][] present, final int[] presentCounts,
        final Set<ByteBuffer> changed)
    {
        final int[] nodes = new int[fill.groups()];
        final long[] words = new long[fill.groups()];
        readKeysOf(nodes, words, fill.standingWordsOfGone(present, presentCounts, nodes, words), changed);
    }

    /** Read the keys of the words given, one a node, adding those still whole to {@code changed}. */
    private void readKeysOf(final int[] nodes, final long[] words, final int found, final Set<ByteBuffer> changed)
    {
        for (int f = 0; f < found; f++)
        {
            committed[0] = words[f];
            listing.keysOf(nodes[f], committed, 1, keys);
            if (keys[0] != null)
            {
                changed.add(ByteBuffer.wrap(keys[0]));
            }
        }
    }

    /** Read a node's index, keeping its committed words, and the keys of those the fill did not account for. */
    private void scanSinceFill(final ChangeLedger fill, final int node, final Set<ByteBuffer> changed)
    {
        final long[] range = indexRange(node);
        for (long at = range[0]; at < range[1]; at += CHUNK)
        {
            final int count = committedWords(node, at, (int)Math.min(CHUNK, range[1] - at), committed, false);
            if (presentCount + count > present.length)
            {
                present = Arrays.copyOf(present, Math.max(2 * present.length, presentCount + count));
            }
            System.arraycopy(committed, 0, present, presentCount, count);
            presentCount += count;
            int unaccounted = 0;
            for (int c = 0; c < count; c++)
            {
                final long word = committed[c];
                if (!fill.accountedFor(node, word))
                {
                    committed[unaccounted++] = word;
                }
                else if (fill.isSettledTail(node, word))
                {
                    // no write touched the key since the fill found it in place: sealed from that word, or, the CAS
                    // lost to a write since the read, its key read and sealed as a changed one is
                    if (batch.chain().swapSlot(node, slotOffsets[c], word, SlotWord.sealed(word)))
                    {
                        refilled++;
                    }
                    else
                    {
                        committed[unaccounted++] = word;
                    }
                }
            }
            // read at once: a word just read names a block its grace period keeps whole
            listing.keysOf(node, committed, unaccounted, keys);
            for (int c = 0; c < unaccounted; c++)
            {
                if (keys[c] != null)
                {
                    changed.add(ByteBuffer.wrap(keys[c]));
                }
            }
        }
    }

    /** Seal a key the fill found in place but a write touched since, or whose seal from its word failed. */
    private void sealMoving(final MembershipView.Placement placement, final byte[] key)
    {
        final long hash = KeyHash.hash(key);
        final int before = placement.before(hash, placed.length, placed);
        final int after = placement.after(hash, placedAfter.length, placedAfter);
        if (!entersAny(before, after))
        {
            return;
        }
        keysSeen++;
        seal(key);
    }

    private void scanForChange(final MembershipView.Placement placement, final int node)
    {
        final boolean handover = placement.phase == Membership.HANDOVER;
        final long[] range = indexRange(node);
        for (long at = range[0]; at < range[1]; at += CHUNK)
        {
            final int count = committedWords(node, at, (int)Math.min(CHUNK, range[1] - at), committed, true);
            if (placement.phase == Membership.FILL && membership.epoch() == placement.epoch)
            {
                clearSeals(node, count);
            }
            listing.keysOf(node, committed, count, keys);
            for (int c = 0; c < count; c++)
            {
                if (keys[c] == null)
                {
                    continue;
                }
                if (handover)
                {
                    visitForSeal(placement, node, keys[c]);
                }
                else if (!visitForChange(placement, node, keys[c]) && ledger != null)
                {
                    ledger.seen(node, committed[c]);
                }
            }
            flush();
        }
    }

    /**
     * Clear the seals a change before this one left (client/README.md, "The handover"): once the fill has run, no
     * writer of this change meets one before its switch seals its keys anew. A seal whose CAS fails was replaced by a
     * write, which puts no seal. Each seal cleared counts as a copy cleared.
     */
    private void clearSeals(final int node, final int count)
    {
        for (int c = 0; c < count; c++)
        {
            final long word = committed[c];
            if (SlotWord.isSealed(word) && batch.chain().swapSlot(node, slotOffsets[c], word, SlotWord.unsealed(word)))
            {
                committed[c] = SlotWord.unsealed(word);
                refilled++;
            }
        }
    }

    /** Seal a moving key in the handover phase, from its first serving replica before or a member it enters. */
    private void visitForSeal(final MembershipView.Placement placement, final int node, final byte[] key)
    {
        keysSeen++;
        final long hash = KeyHash.hash(key);
        final int before = placement.before(hash, placed.length, placed);
        final int after = placement.after(hash, placedAfter.length, placedAfter);
        if (!entersAny(before, after) ||
            (contains(placed, before, node) && firstServing(placement, placed, before) != node) ||
            (!contains(placed, before, node) && !contains(placedAfter, after, node)))
        {
            return;
        }
        seal(key);
    }

    private void seal(final byte[] key)
    {
        switch (batch.chain().sealForChange(key))
        {
            case ReplicaChain.SEALED -> refilled++;
            case ReplicaChain.IN_PLACE -> inPlace++;
            case ReplicaChain.NOT_SETTLED -> unsettled++;
            default ->
            {
                // not moving after all (the membership moved on)
            }
        }
    }

    /** @return true when the change moves the key: some member enters its placement. */
    private boolean visitForChange(final MembershipView.Placement placement, final int node, final byte[] key)
    {
        keysSeen++;
        final long hash = KeyHash.hash(key);
        final int before = placement.before(hash, placed.length, placed);
        final int after = placement.after(hash, placedAfter.length, placedAfter);
        if (!entersAny(before, after))
        {
            return false;
        }
        if (contains(placed, before, node) && firstServing(placement, placed, before) != node)
        {
            // each moving key once: from its first serving replica before the change
            return true;
        }
        for (int p = 0; p < after; p++)
        {
            final int entering = placedAfter[p];
            if (contains(placed, before, entering))
            {
                continue;
            }
            if (!contains(placed, before, node) && entering != node)
            {
                // scanning an entering member's own index: only its own copies are its business
                continue;
            }
            count(key, entering);
        }
        return true;
    }

    private boolean entersAny(final int before, final int after)
    {
        for (int p = 0; p < after; p++)
        {
            if (!contains(placed, before, placedAfter[p]))
            {
                return true;
            }
        }
        return false;
    }

    /** Refill the key onto a member entering its placement: in the next batch, run once it is full. */
    private void count(final byte[] key, final int joiner)
    {
        batch.add(key, joiner);
        if (batch.full())
        {
            flush();
        }
    }

    /** Run the batch of refills, and count what each came to. */
    private void flush()
    {
        if (batch.size() == 0)
        {
            return;
        }
        batch.run();
        alone += batch.alone();
        for (int i = 0; i < batch.size(); i++)
        {
            final int outcome = batch.outcome(i);
            if (outcome == ReplicaChain.REFILLED || outcome == ReplicaChain.IN_PLACE)
            {
                foundInPlace(batch.joiner(i), batch.joinWordInPlace(i),
                    batch.servingWordsInPlace(i, servingNodes, servingWords), servingNodes, servingWords);
            }
            switch (outcome)
            {
                case ReplicaChain.REFILLED -> refilled++;
                case ReplicaChain.IN_PLACE -> inPlace++;
                case ReplicaChain.NOT_SETTLED -> unsettled++;
                default ->
                {
                    // not moving onto it after all (the membership moved on): nothing to copy
                }
            }
        }
        batch.clear();
    }

    /**
     * A refill found its key in place: the words it read on the joiner and the serving replicas are skipped by the
     * rest of the scan, and noted in the ledger as the key's settled words.
     */
    private void foundInPlace(final int joiner, final long joinWord, final int count, final int[] nodes,
        final long[] words)
    {
        if (ledger != null && noting)
        {
            ledger.group();
            ledger.settled(joiner, joinWord);
            for (int p = 0; p < count; p++)
            {
                ledger.settled(nodes[p], words[p]);
            }
            if (count > 0)
            {
                ledger.settledTail(nodes[count - 1], words[count - 1]);
            }
        }
        keepInPlace(joiner, joinWord);
        for (int p = 0; p < count; p++)
        {
            keepInPlace(nodes[p], words[p]);
        }
    }

    /** A word the scan of its node skips: a copy this scan found in place with its key's other copies. */
    private void keepInPlace(final int node, final long word)
    {
        if (word != SlotWord.EMPTY && inPlaceWords[node].size() < IN_PLACE_WORDS_LIMIT)
        {
            inPlaceWords[node].add(word);
        }
    }

    private static int firstServing(final MembershipView.Placement placement, final int[] nodes, final int count)
    {
        for (int p = 0; p < count; p++)
        {
            if (placement.serves(nodes[p]))
            {
                return nodes[p];
            }
        }
        return -1;
    }

    private static boolean contains(final int[] nodes, final int count, final int node)
    {
        for (int p = 0; p < count; p++)
        {
            if (nodes[p] == node)
            {
                return true;
            }
        }
        return false;
    }

    /** @return the node's subtables' first and end offsets in its index region. */
    private long[] indexRange(final int node)
    {
        listing.readIndex(node, 0, buffer, IndexLayout.HEADER_LENGTH);
        final int groups = buffer.get(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET);
        final int subtables = buffer.get(INT, IndexLayout.SUBTABLES_OFFSET);
        final long start = IndexLayout.subtablesOffset(buffer.get(INT, IndexLayout.MAX_GLOBAL_DEPTH_OFFSET));
        return new long[]{start, start + (long)groups * subtables * IndexLayout.GROUP_LENGTH};
    }

    /**
     * Read one range of the node's index and copy its committed words out: reading blocks and refilling keys reuses
     * the session's buffers, not this one, but a word copied out is the snapshot the scan stands by.
     *
     * @param skipInPlace leave out the words of copies this scan found or put in place at the node (and, in a second
     *                    refill pass, keep them in {@link #standingInPlace}).
     */
    private int committedWords(final int node, final long at, final int length, final long[] committed,
        final boolean skipInPlace)
    {
        listing.readIndex(node, at, buffer, length);
        int count = 0;
        for (int bucket = 0; bucket < length / IndexLayout.BUCKET_LENGTH; bucket++)
        {
            for (int i = 0; i < IndexLayout.SLOTS_PER_BUCKET; i++)
            {
                final long word = buffer.get(LONG, (long)bucket * IndexLayout.BUCKET_LENGTH +
                    IndexLayout.BUCKET_HEADER_LENGTH + (long)i * IndexLayout.SLOT_LENGTH);
                if (!SlotWord.isCommitted(word))
                {
                    continue;
                }
                if (skipInPlace && inPlaceWords[node].contains(word))
                {
                    if (standingInPlace != null && standingInPlace[node] != null)
                    {
                        standingInPlace[node].add(word);
                    }
                }
                else
                {
                    slotOffsets[count] = at + (long)bucket * IndexLayout.BUCKET_LENGTH +
                        IndexLayout.BUCKET_HEADER_LENGTH + (long)i * IndexLayout.SLOT_LENGTH;
                    committed[count++] = word;
                }
            }
        }
        return count;
    }

    private long directoryVersion(final int node)
    {
        listing.readIndex(node, 0, buffer, IndexLayout.HEADER_LENGTH);
        return buffer.get(LONG, IndexLayout.DIRECTORY_VERSION_OFFSET);
    }

    private void scan(final int node, final int joiner)
    {
        final long[] range = indexRange(node);
        for (long at = range[0]; at < range[1]; at += CHUNK)
        {
            final int count = committedWords(node, at, (int)Math.min(CHUNK, range[1] - at), committed, true);
            if (node == joiner)
            {
                listing.keysOf(node, committed, count, keys, expireAts, writeIds);
                for (int c = 0; c < count; c++)
                {
                    visitJoiner(joiner, c);
                }
            }
            else
            {
                listing.keysOf(node, committed, count, keys);
                for (int c = 0; c < count; c++)
                {
                    visit(node, joiner, keys[c]);
                }
            }
            flush();
        }
    }

    /** A key of the joiner's own index: refilled with the state the scan read of it (its word, write id). */
    private void visitJoiner(final int joiner, final int c)
    {
        if (keys[c] == null)
        {
            return;
        }
        keysSeen++;
        batch.addScanned(keys[c], joiner, committed[c], expireAts[c], writeIds[c]);
        if (batch.full())
        {
            flush();
        }
    }

    private void visit(final int node, final int joiner, final byte[] key)
    {
        if (key == null)
        {
            // replaced and reclaimed since the scan read its slot: its key's current write is elsewhere in the scan
            return;
        }
        keysSeen++;
        if (node != joiner && !firstServingReplicaIs(node, joiner, key))
        {
            return;
        }
        count(key, joiner);
    }

    /**
     * @return true when the key's replicas include the joiner and {@code node} is its first serving one, or, none
     * serving, the one that served last.
     */
    private boolean firstServingReplicaIs(final int node, final int joiner, final byte[] key)
    {
        final MembershipView.Placement placement = membership.placement();
        final int count = placement.before(KeyHash.hash(key), placed.length, placed);
        boolean holds = false;
        int first = -1;
        for (int p = 0; p < count; p++)
        {
            holds |= placed[p] == joiner;
            if (first < 0 && membership.serves(placed[p]))
            {
                first = placed[p];
            }
        }
        if (first < 0 && !placement.changing())
        {
            first = placement.lastToServe(placed, count);
        }
        return holds && first == node;
    }
}
