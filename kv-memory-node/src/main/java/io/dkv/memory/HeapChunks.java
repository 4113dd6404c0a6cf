package io.dkv.memory;

import io.dkv.format.HeapLayout;
import io.dkv.format.SlotWord;
import io.dkv.raas.Connection;
import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The heap's chunks and their lives: handed to one client, which writes blocks into it (WRITING);
 * given back when it is full or its client is gone (RETIRED); once a scan of the index finds no
 * slot pointing into it, kept aside for the grace period (QUARANTINED), so that an operation that
 * read a slot before the block was replaced is over before anything else is written there; then
 * FREE, to be handed out again. Each time a chunk is freed its generation moves on: the slot words
 * naming its blocks carry it ({@link SlotWord}), so that a CAS made from a word read in an earlier life of the chunk
 * (by a client stopped past the grace period) finds no slot holding that word. One caller: the request server's
 * thread.
 *
 * <p>Free space is never kept in sizes no one asks for: a chunk freed beside a free one is merged with it (the
 * merged chunk takes a generation that neither part's words of its last life carry). A request is granted, in this
 * order: a free chunk of the length asked; a new one from the uncut end; the front of the smallest free chunk longer
 * than asked (the rest stays free, with the same generation); the longest free chunk shorter than asked that still
 * holds what the client needs. So a heap whose free bytes hold the bytes needed in one piece always grants a chunk,
 * whatever lengths were asked before.
 */
final class HeapChunks
{
    static final int WRITING = 0;
    static final int RETIRED = 1;
    static final int QUARANTINED = 2;
    static final int FREE = 3;

    /** One chunk: where, how long, whose, and since when in its state. */
    static final class Chunk
    {
        final long offset;
        int length;
        Connection owner;
        boolean ownerGone;
        int state;
        int generation;
        long sinceNanos;
        boolean referenced;

        Chunk(final long offset, final int length)
        {
            this.offset = offset;
            this.length = length;
        }
    }

    private final int maxChunkLength;
    private final long heapLength;
    private final long graceNanos;
    /**
     * Every chunk cut from the heap, in the order of their offsets (each is cut from the end of the last), and their
     * offsets: the scan of the index finds the chunk of each slot's block by a binary search of them, with no boxing
     * (a node of 10^6 keys scans once a second while it has retired chunks).
     */
    private Chunk[] chunks = new Chunk[64];
    private long[] starts = new long[64];
    private int chunkCount;
    /** Free chunks by length: the exact fit is found at once; anything else by a walk of {@link #chunks}. */
    private final Int2ObjectHashMap<ArrayDeque<Chunk>> free = new Int2ObjectHashMap<>();
    private int freeCount;
    private long freeBytes;
    /** Bytes the last {@link #allocate} granted. */
    private int granted;
    private final ArrayDeque<Chunk> quarantined = new ArrayDeque<>();
    private long next = HeapLayout.HEADER_LENGTH;
    private int retired;
    /** Chunks retired since the node started: a new one means the scan may find one unreferenced again. */
    private long retirements;
    /** Written here only; read by anyone who asks. */
    private volatile int allocated;
    private volatile long reclaimed;

    HeapChunks(final int maxChunkLength, final long heapLength, final long graceNanos)
    {
        this.maxChunkLength = maxChunkLength;
        this.heapLength = heapLength;
        this.graceNanos = graceNanos;
    }

    /**
     * @param length bytes wanted: a multiple of 64, at least 64.
     * @param owner  the client that writes into it (null: the node itself, when it loads keys).
     * @return the offset of a chunk of exactly {@code length} bytes no one else writes into, or -1 when the heap has
     * no room for it.
     */
    long allocate(final int length, final Connection owner)
    {
        return allocate(length, length, owner);
    }

    /**
     * @param wanted bytes wanted: a multiple of 64, at least 64.
     * @param needed the fewest bytes the client can use (its next block): a multiple of 64, at most {@code wanted}.
     * @param owner  the client that writes into it (null: the node itself, when it loads keys).
     * @return the offset of a chunk of between {@code needed} and {@code wanted} bytes ({@link #granted()}) no one
     * else writes into, or -1 when no free space holds {@code needed} bytes in one piece.
     */
    long allocate(final int wanted, final int needed, final Connection owner)
    {
        Chunk chunk = pollFree(wanted);
        if (chunk == null && next + wanted <= heapLength)
        {
            chunk = new Chunk(next, wanted);
            insertAt(chunkCount, chunk);
            next += wanted;
        }
        if (chunk == null)
        {
            chunk = fallback(wanted, needed);
            if (chunk == null)
            {
                return -1;
            }
        }
        chunk.owner = owner;
        chunk.ownerGone = false;
        chunk.state = WRITING;
        granted = chunk.length;
        allocated = allocated + 1;
        return chunk.offset;
    }

    /** @return bytes the last {@link #allocate} granted. */
    int granted()
    {
        return granted;
    }

    /**
     * No free chunk of the length and no uncut end: the front of the smallest longer free chunk, else the longest
     * shorter one that holds {@code needed}, taken out of the free chunks.
     */
    private Chunk fallback(final int wanted, final int needed)
    {
        if (freeCount == 0)
        {
            return null;
        }
        int longer = -1;
        int shorter = -1;
        for (int c = 0; c < chunkCount; c++)
        {
            final Chunk chunk = chunks[c];
            if (chunk.state != FREE)
            {
                continue;
            }
            if (chunk.length > wanted)
            {
                if (longer < 0 || chunk.length < chunks[longer].length)
                {
                    longer = c;
                }
            }
            else if (chunk.length >= needed && (shorter < 0 || chunk.length > chunks[shorter].length))
            {
                shorter = c;
            }
        }
        if (longer >= 0)
        {
            final Chunk whole = chunks[longer];
            removeFree(whole);
            // the rest keeps the whole's generation: the words of its earlier life carry the one before
            final Chunk rest = new Chunk(whole.offset + wanted, whole.length - wanted);
            rest.generation = whole.generation;
            whole.length = wanted;
            insertAt(longer + 1, rest);
            addFree(rest);
            return whole;
        }
        if (shorter >= 0)
        {
            final Chunk chunk = chunks[shorter];
            removeFree(chunk);
            return chunk;
        }
        return null;
    }
    /** Its client will write no more blocks into the chunk at {@code offset}. */
    void retire(final long offset, final Connection owner, final long nowNanos)
    {
        final Chunk chunk = chunkAt(offset);
        if (chunk != null && chunk.state == WRITING && chunk.owner == owner)
        {
            toRetired(chunk, nowNanos);
        }
    }

    /** The client is gone (it closed, or died): its chunks get no more blocks. */
    void ownerGone(final Connection owner, final long nowNanos)
    {
        for (int c = 0; c < chunkCount; c++)
        {
            final Chunk chunk = chunks[c];
            if (chunk.state == WRITING && chunk.owner == owner)
            {
                toRetired(chunk, nowNanos);
                chunk.ownerGone = true;
            }
        }
    }

    private void toRetired(final Chunk chunk, final long nowNanos)
    {
        chunk.state = RETIRED;
        chunk.sinceNanos = nowNanos;
        chunk.owner = null;
        retired++;
        retirements++;
    }

    long retirements()
    {
        return retirements;
    }

    boolean hasRetired()
    {
        return retired > 0;
    }

    /**
     * Find the retired chunks no slot points into and quarantine them. A tentative slot that points
     * into a chunk whose client is gone, for longer than the grace period, is an insert that client
     * never finished: it is cleared (it was never visible).
     *
     * @return chunks quarantined.
     */
    int reclaim(final LocalIndex index, final long nowNanos)
    {
        index.forEachSlot((slot, word) ->
        {
            final Chunk chunk = chunkOf(SlotWord.blockOffset(word));
            if (chunk == null || chunk.state != RETIRED)
            {
                return;
            }
            if (!SlotWord.isCommitted(word) && chunk.ownerGone && nowNanos - chunk.sinceNanos > graceNanos &&
                index.clearSlot(slot, word))
            {
                return;
            }
            chunk.referenced = true;
        });
        int count = 0;
        for (int c = 0; c < chunkCount; c++)
        {
            final Chunk chunk = chunks[c];
            if (chunk.state == RETIRED)
            {
                if (!chunk.referenced)
                {
                    chunk.state = QUARANTINED;
                    chunk.sinceNanos = nowNanos;
                    quarantined.add(chunk);
                    retired--;
                    count++;
                }
                chunk.referenced = false;
            }
        }
        return count;
    }

    /** @return chunks whose grace period ended, free again. */
    int release(final long nowNanos)
    {
        int count = 0;
        Chunk chunk;
        while ((chunk = quarantined.peek()) != null && nowNanos - chunk.sinceNanos >= graceNanos)
        {
            quarantined.poll();
            chunk.state = FREE;
            chunk.generation = SlotWord.nextGeneration(chunk.generation);
            count++;
            coalesce(chunk);
        }
        reclaimed = reclaimed + count;
        return count;
    }

    /** A chunk just freed joins the free chunks beside it, or is free as it is. */
    private void coalesce(final Chunk chunk)
    {
        int at = indexOf(chunk);
        if (at + 1 < chunkCount && chunks[at + 1].state == FREE)
        {
            final Chunk after = chunks[at + 1];
            removeFree(after);
            chunk.generation = mergedGeneration(chunk.generation, after.generation);
            chunk.length += after.length;
            removeAt(at + 1);
        }
        if (at > 0 && chunks[at - 1].state == FREE)
        {
            final Chunk before = chunks[at - 1];
            removeFree(before);
            before.generation = mergedGeneration(before.generation, chunk.generation);
            before.length += chunk.length;
            removeAt(at);
            at--;
        }
        final Chunk merged = chunks[at];
        addFree(merged);
    }

    /**
     * @return a generation that none of the words made in the last lives of two free chunks carry (each one before
     * the chunk's), so that the merged chunk's words never equal a word left from either.
     */
    static int mergedGeneration(final int first, final int second)
    {
        final int firstOld = (first + SlotWord.GENERATIONS - 1) & (SlotWord.GENERATIONS - 1);
        final int secondOld = (second + SlotWord.GENERATIONS - 1) & (SlotWord.GENERATIONS - 1);
        int generation = first;
        while (generation == firstOld || generation == secondOld)
        {
            generation = SlotWord.nextGeneration(generation);
        }
        return generation;
    }

    private Chunk pollFree(final int length)
    {
        final ArrayDeque<Chunk> sameLength = free.get(length);
        final Chunk chunk = sameLength == null ? null : sameLength.poll();
        if (chunk != null)
        {
            freeCount--;
            freeBytes -= chunk.length;
        }
        return chunk;
    }

    private void addFree(final Chunk chunk)
    {
        free.computeIfAbsent(chunk.length, ignored -> new ArrayDeque<>()).add(chunk);
        freeCount++;
        freeBytes += chunk.length;
    }

    private void removeFree(final Chunk chunk)
    {
        final ArrayDeque<Chunk> sameLength = free.get(chunk.length);
        if (sameLength == null || !sameLength.remove(chunk))
        {
            throw new IllegalStateException("free chunk at heap offset " + chunk.offset + " of " + chunk.length +
                " bytes is not among the free chunks of its length");
        }
        freeCount--;
        freeBytes -= chunk.length;
    }

    private void insertAt(final int at, final Chunk chunk)
    {
        if (chunkCount == chunks.length)
        {
            chunks = Arrays.copyOf(chunks, 2 * chunkCount);
            starts = Arrays.copyOf(starts, 2 * chunkCount);
        }
        System.arraycopy(chunks, at, chunks, at + 1, chunkCount - at);
        System.arraycopy(starts, at, starts, at + 1, chunkCount - at);
        chunks[at] = chunk;
        starts[at] = chunk.offset;
        chunkCount++;
    }

    private void removeAt(final int at)
    {
        System.arraycopy(chunks, at + 1, chunks, at, chunkCount - at - 1);
        System.arraycopy(starts, at + 1, starts, at, chunkCount - at - 1);
        chunks[--chunkCount] = null;
    }

    private int indexOf(final Chunk chunk)
    {
        final int at = Arrays.binarySearch(starts, 0, chunkCount, chunk.offset);
        if (at < 0 || chunks[at] != chunk)
        {
            throw new IllegalStateException("no chunk starts at heap offset " + chunk.offset);
        }
        return at;
    }

    private Chunk chunkOf(final long blockOffset)
    {
        int low = 0;
        int high = chunkCount - 1;
        while (low <= high)
        {
            final int middle = (low + high) >>> 1;
            if (starts[middle] <= blockOffset)
            {
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }
        if (high < 0)
        {
            return null;
        }
        final Chunk chunk = chunks[high];
        return blockOffset < chunk.offset + chunk.length ? chunk : null;
    }

    /** @return the chunk that starts at {@code offset}, or null. */
    private Chunk chunkAt(final long offset)
    {
        final Chunk chunk = chunkOf(offset);
        return chunk != null && chunk.offset == offset ? chunk : null;
    }

    /** @return the generation of the chunk at {@code offset}, as handed out last. */
    int generation(final long offset)
    {
        final Chunk chunk = chunkAt(offset);
        if (chunk == null)
        {
            throw new IllegalArgumentException("no chunk starts at heap offset " + offset);
        }
        return chunk.generation;
    }

    boolean isValidLength(final int length)
    {
        return length >= 64 && (length & 63) == 0;
    }

    int maxChunkLength()
    {
        return maxChunkLength;
    }

    long heapLength()
    {
        return heapLength;
    }

    long used()
    {
        return next;
    }

    /** @return bytes of chunks cut from the heap that are free now. */
    long freeBytes()
    {
        return freeBytes;
    }

    int allocated()
    {
        return allocated;
    }

    long reclaimed()
    {
        return reclaimed;
    }

    long graceNanos()
    {
        return graceNanos;
    }
}
