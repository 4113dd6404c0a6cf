package io.dkv.client.collection;

import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.WrongKindException;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;

/**
 * One hash or set as a transaction sees it (client/README.md, "Hashes and sets"): the header at its key, read when
 * opened, and the segments it reads as elements are asked for. Changes are kept here until {@link #write}, which
 * splits or merges segments while their average size is past the bounds, and hands the changed segments and the
 * header to the transaction; its commit makes them all at once, or none. Opening reads the header through the
 * transaction (its commit checks it), segments are read without that check ({@link Transaction#peek}): every change
 * of a segment rewrites the header, so an unchanged header vouches for every segment read under it.
 */
public final class Collection implements Composite
{
    /** The most bytes one element (field and value) may take: a segment must fit a value, whatever else it holds. */
    public static final int MAX_ELEMENT_BYTES = 256 * 1024;
    private static final byte[] NO_VALUE = new byte[0];
    /** Segments a collection may have (linear hashing's level stays below 30). */
    private static final int MAX_LEVEL = 29;

    /**
     * Elements' bytes past which a drop removes the segments after its transaction commits: the reserve a full memory
     * node keeps for deletes is 3% of its heap, 256 KiB at least.
     */
    public static final long DROP_AFTER_COMMIT_BYTES = 64 * 1024;

    private final Transaction tx;
    private final byte[] key;
    private final int kind;
    private final int segmentBytes;
    private final Map<Integer, Segment> loaded = new HashMap<>();
    private final TreeSet<Integer> dirty = new TreeSet<>();
    private final TreeSet<Integer> dropped = new TreeSet<>();
    private boolean exists;
    private boolean changed;
    private long expiryWord;
    private long generation;
    private long count;
    private long bytes;
    private int level;
    private int split;

    private Collection(final Transaction tx, final byte[] key, final int kind, final int segmentBytes)
    {
        this.tx = tx;
        this.key = key;
        this.kind = kind;
        this.segmentBytes = segmentBytes;
    }

    /**
     * Open the collection at {@code key} in {@code tx}: its header is read (and checked by the commit).
     *
     * @param kind         {@link ValueKind#HASH} or {@link ValueKind#SET}.
     * @param segmentBytes the bytes of elements a segment holds on average ({@code KvClientContext}).
     * @throws WrongKindException when the key holds a value of another kind.
     */
    public static Collection open(final Transaction tx, final byte[] key, final int kind, final int segmentBytes)
    {
        final Collection collection = new Collection(tx, key, kind, segmentBytes);
        final LogicalValue header = tx.read(key);
        if (header != null)
        {
            WrongKindException.require(key, header.expiryWord(), kind);
            collection.load(header);
        }
        return collection;
    }

    /** @return the kind of value the key holds in {@code tx} ({@link ValueKind}), or -1 when it has none. */
    public static int kindAt(final Transaction tx, final byte[] key)
    {
        final LogicalValue value = tx.read(key);
        return value == null ? -1 : value.kind();
    }

    private void load(final LogicalValue header)
    {
        final byte[] value = header.value();
        if (value.length != CollectionLayout.LENGTH)
        {
            throw new KvException("the " + ValueKind.name(kind) + " at key " + KvErrors.describe(key) + " has a " +
                "header of " + value.length + " bytes, not " + CollectionLayout.LENGTH);
        }
        exists = true;
        expiryWord = header.expiryWord();
        generation = CollectionLayout.generation(value);
        count = CollectionLayout.count(value);
        bytes = CollectionLayout.bytes(value);
        level = CollectionLayout.level(value);
        split = CollectionLayout.split(value);
    }

    /** @return true when the key holds this collection (with at least one element). */
    public boolean exists()
    {
        return exists;
    }

    /** @return its elements. */
    public long size()
    {
        return exists ? count : 0;
    }

    /** @return the segments its elements are in, 0 when it has none. */
    public int segments()
    {
        return exists ? (1 << level) + split : 0;
    }

    /** @return epoch milliseconds from which the whole collection is gone, or {@link KvBlockLayout#NEVER}. */
    public long expireAtMillis()
    {
        return ValueKind.expiryOf(expiryWord);
    }

    /** @return the field's value (an empty array for a set's member), or null when it has no such element. */
    public byte[] get(final byte[] field)
    {
        if (!exists)
        {
            return null;
        }
        final Segment segment = segment(segmentOf(field));
        final int at = segment.indexOf(field);
        return at < 0 ? null : segment.values.get(at);
    }

    /** @return true when it has an element of that field (a set: that member). */
    public boolean contains(final byte[] field)
    {
        return get(field) != null;
    }

    /**
     * Set the field's value (a set: add the member, {@code value} empty), making the collection if it has none.
     *
     * @return true when the field is new.
     */
    public boolean put(final byte[] field, final byte[] value)
    {
        if (SegmentLayout.entryLength(field.length, value.length) > MAX_ELEMENT_BYTES)
        {
            throw new IllegalArgumentException("an element of a " + ValueKind.name(kind) + " takes at most " +
                MAX_ELEMENT_BYTES + " bytes with its field; this one takes " +
                SegmentLayout.entryLength(field.length, value.length) + " (key " + KvErrors.describe(key) + ")");
        }
        if (!exists)
        {
            create();
        }
        final int index = segmentOf(field);
        final Segment segment = segment(index);
        final int at = segment.indexOf(field);
        changed(index);
        if (at >= 0)
        {
            bytes += value.length - segment.values.get(at).length;
            segment.values.set(at, value);
            return false;
        }
        segment.add(field, value);
        count++;
        bytes += SegmentLayout.entryLength(field.length, value.length);
        // split as the elements come, not only at write(): a segment is searched linearly, so one SADD or HSET of
        // 100,000 new elements into a few segments took 33 s (quadratic), where splitting as they come is linear
        while (level < MAX_LEVEL && bytes > (long)segments() * segmentBytes)
        {
            splitNext();
        }
        return true;
    }

    /**
     * Add a set's member: nothing changes when it is one already (redis's SADD, SMOVE: a watcher of the set sees no
     * change), where {@link #put} rewrites the element whatever it held (HSET touches the hash).
     *
     * @return true when the member is new.
     */
    public boolean add(final byte[] member)
    {
        return !contains(member) && put(member, NO_VALUE);
    }

    /** @return true when it had the field, which it no longer has. */
    public boolean remove(final byte[] field)
    {
        if (!exists)
        {
            return false;
        }
        final int index = segmentOf(field);
        final Segment segment = segment(index);
        final int at = segment.indexOf(field);
        if (at < 0)
        {
            return false;
        }
        changed(index);
        bytes -= SegmentLayout.entryLength(field.length, segment.values.get(at).length);
        segment.remove(at);
        count--;
        return true;
    }

    /**
     * Visit the elements of segment {@code index} (0 to {@link #segments()} less one), as this transaction sees them.
     */
    public void forEachIn(final int index, final BiConsumer<byte[], byte[]> visitor)
    {
        if (index < 0 || index >= segments())
        {
            return;
        }
        final Segment segment = segment(index);
        for (int i = 0; i < segment.size(); i++)
        {
            visitor.accept(segment.fields.get(i), segment.values.get(i));
        }
    }

    /** Visit every element, a segment at a time. */
    public void forEach(final BiConsumer<byte[], byte[]> visitor)
    {
        final int segments = segments();
        for (int i = 0; i < segments; i++)
        {
            forEachIn(i, visitor);
        }
    }

    /**
     * One step of a scan by cursor (redis's HSCAN and SSCAN, its dictScan): the elements whose fields' hashes end in
     * the cursor's low L bits (one segment, or the two a split made of it), then the cursor moved on by redis's reverse
     * binary increment over L bits. As in redis, every element present for the whole scan comes back at least once
     * whatever splits and merges come between steps: a step covers one class of hashes modulo 2^L, and the reverse
     * increment visits the classes so that a class once covered stays covered when L grows or shrinks.
     *
     * @param cursor 0 to begin; then what the step before returned.
     * @return the next cursor, 0 when the scan is done.
     */
    public long scanStep(final long cursor, final BiConsumer<byte[], byte[]> visitor)
    {
        if (!exists)
        {
            return 0;
        }
        final long mask = (1L << level) - 1;
        final int bucket = (int)(cursor & mask);
        forEachIn(bucket, visitor);
        if (bucket < split)
        {
            forEachIn(bucket + (1 << level), visitor);
        }
        return Long.reverse(Long.reverse(cursor | ~mask) + 1);
    }

    /**
     * @return the field of an element picked at random (a random segment among those that hold any, then a random
     * element of it: not uniform when segments hold different counts, as redis's own pick is not), or null when it
     * has none.
     */
    public byte[] randomField()
    {
        if (!exists || count == 0)
        {
            return null;
        }
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final int segments = segments();
        final int start = random.nextInt(segments);
        for (int i = 0; i < segments; i++)
        {
            final Segment segment = segment((start + i) % segments);
            if (segment.size() > 0)
            {
                return segment.fields.get(random.nextInt(segment.size()));
            }
        }
        return null;
    }

    /**
     * Give the whole collection another expiry (redis's EXPIRE on it): its header and every segment, so that the
     * memory nodes' expiry scans take all of it at once.
     */
    public void expireAt(final long expireAtMillis)
    {
        if (!exists)
        {
            return;
        }
        expiryWord = ValueKind.withExpiry(expiryWord, expireAtMillis);
        final int segments = segments();
        for (int i = 0; i < segments; i++)
        {
            segment(i);
            changed(i);
        }
        changed = true;
    }

    /**
     * Remove the whole collection, header and segments, when the transaction commits. One of more than
     * {@link #DROP_AFTER_COMMIT_BYTES} of elements has its header removed in the transaction and its segments once it
     * committed ({@link Transaction#dropAfterCommit}), so that a delete's intents do not carry every segment as a prior
     * value: nobody reads a segment of a generation whose header is gone.
     */
    public void drop()
    {
        if (!exists)
        {
            return;
        }
        final int segments = segments();
        if (bytes > DROP_AFTER_COMMIT_BYTES)
        {
            final int count = dropped.isEmpty() ? segments : Math.max(segments, dropped.last() + 1);
            for (int i = 0; i < count; i++)
            {
                final byte[] segment = ReservedKeys.segmentKey(generation, i);
                if (tx.writes(segment))
                {
                    // written earlier in this transaction: removed with it, so that it does not write it again
                    tx.remove(segment);
                }
            }
            tx.dropAfterCommit(generation, count);
        }
        else
        {
            for (int i = 0; i < segments; i++)
            {
                tx.remove(ReservedKeys.segmentKey(generation, i));
            }
            for (final int index : dropped)
            {
                tx.remove(ReservedKeys.segmentKey(generation, index));
            }
        }
        tx.remove(key);
        exists = false;
        changed = false;
        loaded.clear();
        dirty.clear();
        dropped.clear();
    }

    /**
     * Write a copy of the whole collection at {@code target} (a new generation, every segment copied), expiring as
     * this one; whatever {@code target} held must be gone already.
     */
    public void copyTo(final byte[] target)
    {
        if (!exists)
        {
            return;
        }
        final long copyGeneration = drawGeneration();
        final int segments = segments();
        for (int i = 0; i < segments; i++)
        {
            tx.write(ReservedKeys.segmentKey(copyGeneration, i), segment(i).encode(), segmentWord());
        }
        tx.write(target, CollectionLayout.encode(copyGeneration, count, bytes, level, split), expiryWord);
    }

    /**
     * Hand the changes to the transaction: segments split or merged while their average is past the bounds, the
     * changed segments and the header written; when no element is left, the collection removed (redis removes an
     * empty hash or set). Call once, after the last change.
     */
    public void write()
    {
        if (!changed)
        {
            return;
        }
        if (count == 0)
        {
            drop();
            return;
        }
        while (level < MAX_LEVEL && bytes > (long)segments() * segmentBytes)
        {
            splitNext();
        }
        while (segments() > 1 && bytes < (long)segments() * segmentBytes / 4)
        {
            mergeLast();
        }
        for (final int index : dirty)
        {
            final byte[] encoded = loaded.get(index).encode();
            if (encoded.length > KvBlockLayout.MAX_VALUE_LENGTH)
            {
                throw new KvException("segment " + index + " of the " + ValueKind.name(kind) + " at key " +
                    KvErrors.describe(key) + " would hold " + encoded.length + " bytes, past a value's " +
                    KvBlockLayout.MAX_VALUE_LENGTH + ": its elements' fields hash alike");
            }
            tx.write(ReservedKeys.segmentKey(generation, index), encoded, segmentWord());
        }
        for (final int index : dropped)
        {
            tx.remove(ReservedKeys.segmentKey(generation, index));
        }
        tx.write(key, CollectionLayout.encode(generation, count, bytes, level, split), expiryWord);
        changed = false;
        dirty.clear();
        dropped.clear();
    }

    private void create()
    {
        exists = true;
        generation = drawGeneration();
        expiryWord = ValueKind.word(kind, KvBlockLayout.NEVER);
        count = 0;
        bytes = 0;
        level = 0;
        split = 0;
        loaded.put(0, new Segment());
    }

    private static long drawGeneration()
    {
        long generation;
        do
        {
            generation = ThreadLocalRandom.current().nextLong();
        }
        while (generation == 0);
        return generation;
    }

    private long segmentWord()
    {
        return ValueKind.word(ValueKind.SEGMENT, ValueKind.expiryOf(expiryWord));
    }

    private void changed(final int index)
    {
        changed = true;
        dirty.add(index);
        dropped.remove(index);
    }

    /** Linear hashing's split: segment p's elements between p and p + 2^L, then p moves on. */
    private void splitNext()
    {
        final int from = split;
        final int to = from + (1 << level);
        final Segment source = segment(from);
        final Segment stays = new Segment();
        final Segment moves = new Segment();
        for (int i = 0; i < source.size(); i++)
        {
            final boolean high = (hash(source.fields.get(i)) & (1L << level)) != 0;
            (high ? moves : stays).add(source.fields.get(i), source.values.get(i));
        }
        loaded.put(from, stays);
        loaded.put(to, moves);
        changed(from);
        changed(to);
        split++;
        if (split == 1 << level)
        {
            level++;
            split = 0;
        }
    }

    /** The inverse of the last split: segment p - 1 + 2^L's elements back into p - 1. */
    private void mergeLast()
    {
        if (split == 0)
        {
            level--;
            split = 1 << level;
        }
        split--;
        final int into = split;
        final int from = into + (1 << level);
        final Segment target = segment(into);
        final Segment source = segment(from);
        for (int i = 0; i < source.size(); i++)
        {
            target.add(source.fields.get(i), source.values.get(i));
        }
        loaded.remove(from);
        dirty.remove(from);
        dropped.add(from);
        changed(into);
    }

    private int segmentOf(final byte[] field)
    {
        final long hash = hash(field);
        int index = (int)(hash & ((1L << level) - 1));
        if (index < split)
        {
            index = (int)(hash & ((1L << (level + 1)) - 1));
        }
        return index;
    }

    private static long hash(final byte[] field)
    {
        return KeyHash.hash(field);
    }

    private Segment segment(final int index)
    {
        Segment segment = loaded.get(index);
        if (segment == null)
        {
            final LogicalValue read = tx.peek(ReservedKeys.segmentKey(generation, index));
            if (read == null)
            {
                segment = new Segment();
            }
            else
            {
                if (read.kind() != ValueKind.SEGMENT)
                {
                    throw new KvException("segment " + index + " of the " + ValueKind.name(kind) + " at key " +
                        KvErrors.describe(key) + " holds a " + ValueKind.name(read.kind()));
                }
                segment = Segment.decode(read.value(), "segment " + index + " of the " + ValueKind.name(kind) +
                    " at key " + KvErrors.describe(key));
            }
            loaded.put(index, segment);
        }
        return segment;
    }
}
