package io.dkv.client.keyspace;

import io.dkv.client.index.IndexListing;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.node.NodeLinks;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.SlotWord;
import org.agrona.concurrent.EpochClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * A scan of the keyspace by cursor, step by step (client/README.md, "Scans and flushes"): each serving memory node's
 * index in turn, ranked by node id, its subtables in the order the node made them and their bucket groups in order,
 * read with one-sided READs, and the key of each committed slot read from its block. A key is returned only from the
 * node that answers reads of it (its first serving replica, before or after a membership change in progress), so r
 * copies make one key, and only while its value lives: an expired block is left out, and a key holding a transaction's
 * intent is read as a get reads it.
 *
 * <p>Why every key present for the whole scan is returned: while the membership stays, a key stays at the node that
 * answers its reads, in a slot of its index. A subtable's split moves a slot only to a new subtable, made after every
 * other, and copies it there before it empties the old one: a step that read the old place before the move finds it
 * there, one after finds it in the new subtable, which the scan reaches later. A step reads the count of subtables
 * afresh, so subtables made since the scan began are scanned too. A membership change may move keys between nodes:
 * a cursor made under another membership epoch starts the scan again (a key may then come twice, as redis allows).
 * One instance per session: not thread-safe.
 */
public final class KeyScan
{
    /** Bucket groups one READ takes at most: 64 x 192 bytes. */
    static final int MAX_GROUPS_PER_READ = 64;
    /** READs of index ranges one step makes at most before it answers, keys found or not. */
    static final int MAX_READS_PER_STEP = 32;
    /** Keys a step of {@link #randomKey} asks for: it reads 8 bucket groups at a time. */
    private static final int RANDOM_STEP = 64;
    private static final int SLOTS_PER_GROUP = 3 * IndexLayout.SLOTS_PER_BUCKET;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final NodeLinks links;
    private final MembershipView membership;
    private final IndexListing listing;
    private final EpochClock epochClock;
    private final Predicate<byte[]> hasValue;
    private final MemorySegment buffer;
    private final long[] words = new long[MAX_GROUPS_PER_READ * SLOTS_PER_GROUP];
    private final byte[][] keys = new byte[MAX_GROUPS_PER_READ * SLOTS_PER_GROUP][];
    private final long[] expireAts = new long[MAX_GROUPS_PER_READ * SLOTS_PER_GROUP];
    private final int[] placed;
    private int[] ranked = new int[0];
    /** Whether the step in progress returns the store's own keys too. */
    private boolean reserved;

    /**
     * @param hasValue reads a key as a get does (a transaction's intent resolved): whether it has a value. Asked only
     *                 of keys found holding an intent.
     */
    public KeyScan(final NodeLinks links, final MembershipView membership, final IndexListing listing,
        final EpochClock epochClock, final Predicate<byte[]> hasValue)
    {
        this.hasValue = hasValue;
        this.links = links;
        this.membership = membership;
        this.listing = listing;
        this.epochClock = epochClock;
        this.buffer = listing.allocateBuffer(MAX_GROUPS_PER_READ * IndexLayout.GROUP_LENGTH);
        this.placed = new int[Math.max(1, membership.replicas())];
    }

    /**
     * One step of a scan.
     *
     * @param cursor  {@link ScanCursor#START}, or the cursor the step before returned.
     * @param count   about how many keys to return (redis's COUNT): the step reads more of the index until it has
     *                found that many or read {@link #MAX_READS_PER_STEP} ranges, each range twice the one before
     *                while they find fewer keys than asked (a sparse index is read in few steps).
     * @param pattern only keys it matches are returned; null: every key.
     * @throws IllegalArgumentException when the cursor is not one a scan returned.
     */
    public ScanPage step(final long cursor, final int count, final KeyPattern pattern)
    {
        return step(cursor, count, pattern, false);
    }

    /**
     * As {@link #step(long, int, KeyPattern)}, with the store's own keys (collections' segments,
     * {@link ReservedKeys}) too when {@code reserved}: what a flush removes.
     */
    public ScanPage step(final long cursor, final int count, final KeyPattern pattern, final boolean reserved)
    {
        this.reserved = reserved;
        if (!ScanCursor.isValid(cursor))
        {
            throw new IllegalArgumentException("invalid cursor " + cursor + ": not one a scan returned");
        }
        if (count < 1)
        {
            throw new IllegalArgumentException("count " + count + ": at least 1");
        }
        membership.refreshIfDue();
        if (cursor != ScanCursor.START && ScanCursor.epochTagOf(cursor) != ScanCursor.epochTag(membership.epoch()))
        {
            // made under a membership this client has not read yet, or one since replaced: read it now, and start
            // over if the cursor's is still another (keys may have moved between nodes since)
            membership.refreshNow();
        }
        final MembershipView.Placement placement = membership.placement();
        final int tag = ScanCursor.epochTag(placement.epoch);
        final boolean resume = cursor != ScanCursor.START && ScanCursor.epochTagOf(cursor) == tag;
        int rank = resume ? ScanCursor.node(cursor) : 0;
        int subtable = resume ? ScanCursor.subtable(cursor) : 0;
        int group = resume ? ScanCursor.group(cursor) : 0;
        final int nodes = rank(placement);
        final List<byte[]> found = new ArrayList<>(Math.min(count, 1024));
        final long nowMillis = epochClock.time();
        int groupsPerRead = Math.clamp((count + 7) / 8, 1, MAX_GROUPS_PER_READ);
        int reads = 0;
        int headerOf = -1;
        int groups = 0;
        int subtables = 0;
        long first = 0;
        while (rank < nodes && found.size() < count && reads < MAX_READS_PER_STEP)
        {
            final int node = ranked[rank];
            if (headerOf != node || subtable >= subtables)
            {
                // read again at the end of the subtables known: the node may have made more since
                listing.readIndex(node, 0, buffer, IndexLayout.HEADER_LENGTH);
                groups = buffer.get(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET);
                subtables = buffer.get(INT, IndexLayout.SUBTABLES_OFFSET);
                first = IndexLayout.subtablesOffset(buffer.get(INT, IndexLayout.MAX_GLOBAL_DEPTH_OFFSET));
                headerOf = node;
            }
            if (subtable >= subtables)
            {
                rank++;
                subtable = 0;
                group = 0;
                continue;
            }
            final int take = Math.min(groupsPerRead, groups - group);
            final long at =
                first + subtable * IndexLayout.subtableLength(groups) + (long)group * IndexLayout.GROUP_LENGTH;
            listing.readIndex(node, at, buffer, take * IndexLayout.GROUP_LENGTH);
            reads++;
            final int before = found.size();
            collect(placement, node, take * 3, nowMillis, pattern, found);
            if ((found.size() - before) * 2 < take * 8 && groupsPerRead < MAX_GROUPS_PER_READ)
            {
                // under 4 keys a group (a fifth of its slots): a sparse index, read wider
                groupsPerRead = Math.min(MAX_GROUPS_PER_READ, 2 * groupsPerRead);
            }
            group += take;
            if (group >= groups)
            {
                subtable++;
                group = 0;
            }
        }
        return new ScanPage(rank >= nodes ? ScanCursor.START : ScanCursor.of(tag, rank, subtable, group), found,
            cursor != ScanCursor.START && !resume);
    }

    /**
     * A key picked at random (redis's RANDOMKEY): a scan begun at a random node, subtable and bucket group, taking the
     * first keys it finds, on past the last node to the first, until it has read every index once. Not uniform: a
     * key after a long run of empty slots comes more often, as in redis, where a key alone in a long chain does.
     *
     * @return a key that had a value, or null when no key has one.
     */
    public byte[] randomKey()
    {
        membership.refreshIfDue();
        final MembershipView.Placement placement = membership.placement();
        final int nodes = rank(placement);
        if (nodes == 0)
        {
            return null;
        }
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final int rank = random.nextInt(nodes);
        listing.readIndex(ranked[rank], 0, buffer, IndexLayout.HEADER_LENGTH);
        final int subtables = buffer.get(INT, IndexLayout.SUBTABLES_OFFSET);
        final int groups = buffer.get(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET);
        long cursor = ScanCursor.of(ScanCursor.epochTag(placement.epoch), rank, random.nextInt(Math.max(1, subtables)),
            random.nextInt(Math.max(1, groups)));
        boolean wrapped = false;
        while (true)
        {
            final ScanPage page = step(cursor, RANDOM_STEP, null);
            if (!page.keys().isEmpty())
            {
                return page.keys().get(random.nextInt(page.keys().size()));
            }
            cursor = page.cursor();
            if (cursor == ScanCursor.START)
            {
                if (wrapped)
                {
                    return null;
                }
                wrapped = true;
            }
        }
    }

    /** The keys of the committed slots of {@code buckets} buckets read into the buffer that this step returns. */
    private void collect(final MembershipView.Placement placement, final int node, final int buckets,
        final long nowMillis, final KeyPattern pattern, final List<byte[]> found)
    {
        int committed = 0;
        for (int bucket = 0; bucket < buckets; bucket++)
        {
            for (int i = 0; i < IndexLayout.SLOTS_PER_BUCKET; i++)
            {
                final long word = buffer.get(LONG, (long)bucket * IndexLayout.BUCKET_LENGTH +
                    IndexLayout.BUCKET_HEADER_LENGTH + (long)i * IndexLayout.SLOT_LENGTH);
                if (SlotWord.isCommitted(word))
                {
                    words[committed++] = word;
                }
            }
        }
        if (committed == 0)
        {
            return;
        }
        listing.keysOf(node, words, committed, keys, expireAts);
        for (int c = 0; c < committed; c++)
        {
            final byte[] key = keys[c];
            keys[c] = null;
            if (key == null || KvBlockLayout.isExpired(expireAts[c], nowMillis) ||
                !answersReads(placement, node, KeyHash.hash(key)) || (pattern != null && !pattern.matches(key)))
            {
                continue;
            }
            if (!reserved && ReservedKeys.isReserved(key))
            {
                continue;
            }
            if (KvBlockLayout.isIntent(expireAts[c]) && !hasValue.test(key))
            {
                // a transaction's intent: the key has the value its outcome says, read as a get reads it
                continue;
            }
            found.add(key);
        }
    }

    /** @return true when the node is the key's first serving replica, before or after the change in progress. */
    private boolean answersReads(final MembershipView.Placement placement, final int node, final long hash)
    {
        if (firstServing(placement, placement.before(hash, placed.length, placed)) == node)
        {
            return true;
        }
        return placement.changing() && firstServing(placement, placement.after(hash, placed.length, placed)) == node;
    }

    private int firstServing(final MembershipView.Placement placement, final int count)
    {
        for (int p = 0; p < count; p++)
        {
            if (serving(placement, placed[p]))
            {
                return placed[p];
            }
        }
        return -1;
    }

    /** @return true when the node's copies are read: it serves, or the directory keeps no membership (epoch 0). */
    private static boolean serving(final MembershipView.Placement placement, final int node)
    {
        return placement.epoch == 0 || placement.serves(node);
    }

    /** @return how many nodes the scan reads: those placed and serving, ranked by id into {@link #ranked}. */
    private int rank(final MembershipView.Placement placement)
    {
        final int known = placement.nodeCount();
        if (ranked.length < known)
        {
            ranked = new int[known];
        }
        int count = 0;
        for (int i = 0; i < known; i++)
        {
            if (placement.placement(i) == 0 || !serving(placement, i))
            {
                continue;
            }
            int r = count++;
            for (; r > 0 && placement.nodeId(ranked[r - 1]) > placement.nodeId(i); r--)
            {
                ranked[r] = ranked[r - 1];
            }
            ranked[r] = i;
        }
        if (count > ScanCursor.MAX_NODES)
        {
            throw new IllegalStateException(count + " memory nodes to scan: a cursor ranks at most " +
                ScanCursor.MAX_NODES);
        }
        return count;
    }
}
