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
 * <p>Free chunks keep their lengths (merging and cutting them is left to a cleaner). A request is granted, in this
 * order: a free chunk of the length asked; a new one from the uncut end; the shortest free chunk longer than asked;
 * the longest free chunk shorter than asked that still holds what the client needs (its next block). So lengths
 * asked before do not keep a later request from free room that holds its block.
 *
 * <p>A share of the heap is kept for writes that free memory (deletes' tombstones, their transactions' intents): other
 * requests are refused a chunk that would leave less than it free.
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
        final int length;
        Connection owner;
        boolean ownerGone;
        int state;
        int generation;
        long sinceNanos;
        boolean referenced;
        /** Bytes of the blocks committed slots named at the last walk: what a cleaner would have to move. */
        int liveBytes;

        Chunk(final long offset, final int length)
        {
            this.offset = offset;
            this.length = length;
        }
    }

    private final int maxChunkLength;
    private final long reserveBytes;
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
    /** Of the last walk ({@link #reclaim}): bytes of the blocks committed slots named, and retired chunks held. */
    private volatile long liveBytes;
    private volatile int pinned;
    private long walkedAtNanos;
    /**
     * Bytes handed out at most to requests that do not free memory (the node's share of the pool's maxmemory), or
     * {@link HeapLayout#LIMIT_NEVER_SET} / {@link HeapLayout#LIMIT_NONE}: the heap's length alone bounds them.
     */
    private long limit = HeapLayout.LIMIT_NEVER_SET;

    HeapChunks(final int maxChunkLength, final long heapLength, final long graceNanos)
    {
        this(maxChunkLength, heapLength, graceNanos, 0);
    }

    /** @param reserveBytes bytes only requests that free memory are granted ({@link #allocate}). */
    HeapChunks(final int maxChunkLength, final long heapLength, final long graceNanos, final long reserveBytes)
    {
        this.reserveBytes = reserveBytes;
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
     * As {@link #allocate(int, int, Connection)}, leaving the reserve, and keeping within the limit, unless the request
     * frees memory.
     *
     * @param freeing the client's write frees memory (a delete's tombstone, its transaction's intents): it may take
     *                the reserve kept for such writes, where others may not.
     */
    long allocate(final int wanted, final int needed, final Connection owner, final boolean freeing)
    {
        if (freeing || reserveBytes == 0 && limit <= 0)
        {
            return allocate(wanted, needed, owner, Long.MAX_VALUE);
        }
        final long beyondReserve = roomForWrites() & ~63L;
        if (beyondReserve < needed)
        {
            return -1;
        }
        return allocate((int)Math.min(wanted, beyondReserve), needed, owner, beyondReserve);
    }

    /** @return bytes that may still be handed out: free chunks' and the uncut end's. */
    long room()
    {
        return heapLength - next + freeBytes;
    }

    /**
     * @return bytes requests that do not free memory may still be handed out: the room outside the reserve, within
     * the limit where there is one (the reserve stays outside it: deletes at the limit take it as at full).
     */
    long roomForWrites()
    {
        final long outsideReserve = room() - reserveBytes;
        final long withinLimit = limit > 0 ? limit - handedOut() : Long.MAX_VALUE;
        return Math.max(0, Math.min(outsideReserve, withinLimit));
    }

    /**
     * @param bytes the most bytes of chunks to hand out to requests that do not free memory, a multiple of 64, or
     *              {@link HeapLayout#LIMIT_NONE}; chunks handed out past it stay theirs, and come back as ever.
     */
    void limit(final long bytes)
    {
        if (bytes != HeapLayout.LIMIT_NONE && (bytes <= 0 || (bytes & 63) != 0))
        {
            throw new IllegalArgumentException("a heap limit is a positive multiple of 64 bytes or none (" +
                HeapLayout.LIMIT_NONE + "): " + bytes);
        }
        limit = bytes;
    }

    /** @return the limit as the heap header tells it ({@link HeapLayout#LIMIT_OFFSET}). */
    long limit()
    {
        return limit;
    }

    long reserveBytes()
    {
        return reserveBytes;
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
        return allocate(wanted, needed, owner, Long.MAX_VALUE);
    }

    /** @param limit the most bytes the chunk granted may have. */
    private long allocate(final int wanted, final int needed, final Connection owner, final long limit)
    {
        Chunk chunk = pollFree(wanted);
        if (chunk == null && next + wanted <= heapLength)
        {
            chunk = new Chunk(next, wanted);
            if (chunkCount == chunks.length)
            {
                chunks = Arrays.copyOf(chunks, 2 * chunkCount);
                starts = Arrays.copyOf(starts, 2 * chunkCount);
            }
            chunks[chunkCount] = chunk;
            starts[chunkCount++] = next;
            next += wanted;
        }
        if (chunk == null)
        {
            chunk = fallback(wanted, needed, limit);
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
     * No free chunk of the length and no uncut end: the shortest longer free chunk within {@code limit}, else the
     * longest shorter one that holds {@code needed}, taken out of the free chunks.
     */
    private Chunk fallback(final int wanted, final int needed, final long limit)
    {
        if (freeCount == 0)
        {
            return null;
        }
        Chunk longer = null;
        Chunk shorter = null;
        for (int c = 0; c < chunkCount; c++)
        {
            final Chunk chunk = chunks[c];
            if (chunk.state != FREE)
            {
                continue;
            }
            if (chunk.length > wanted)
            {
                if (chunk.length <= limit && (longer == null || chunk.length < longer.length))
                {
                    longer = chunk;
                }
            }
            else if (chunk.length >= needed && (shorter == null || chunk.length > shorter.length))
            {
                shorter = chunk;
            }
        }
        final Chunk chosen = longer != null ? longer : shorter;
        if (chosen != null)
        {
            removeFree(chosen);
        }
        return chosen;
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
     * Walk the index: find the retired chunks no slot points into and quarantine them, and count what each chunk
     * holds live (the bytes of the blocks committed slots name; a slot's word gives its block's length, the block's
     * header only where it is longer than the word tells). A tentative slot that points into a chunk whose client is
     * gone, for longer than the grace period, is an insert that client never finished: it is cleared (it was never
     * visible).
     *
     * @return chunks quarantined.
     */
    int reclaim(final LocalIndex index, final long nowNanos)
    {
        for (int c = 0; c < chunkCount; c++)
        {
            chunks[c].liveBytes = 0;
        }
        index.forEachSlot((slot, word) ->
        {
            final long block = SlotWord.blockOffset(word);
            final Chunk chunk = chunkOf(block);
            if (chunk == null)
            {
                return;
            }
            if (SlotWord.isCommitted(word))
            {
                final int hint = SlotWord.lengthHint(word);
                // a length beyond its chunk is no block of this life of the chunk: it counts as the chunk's rest
                chunk.liveBytes += (int)Math.min(hint > 0 ? hint : index.blockLengthOf(block),
                    chunk.offset + chunk.length - block);
            }
            if (chunk.state != RETIRED)
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
        long live = 0;
        int held = 0;
        for (int c = 0; c < chunkCount; c++)
        {
            final Chunk chunk = chunks[c];
            live += chunk.liveBytes;
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
                else
                {
                    held++;
                }
                chunk.referenced = false;
            }
        }
        liveBytes = live;
        pinned = held;
        walkedAtNanos = nowNanos;
        return count;
    }

    /** @return when {@link #reclaim} last walked the index (the clock it was given), 0 before the first walk. */
    long walkedAtNanos()
    {
        return walkedAtNanos;
    }

    /** @return bytes of the blocks committed slots named at the last walk. */
    long liveBytes()
    {
        return liveBytes;
    }

    /** @return retired chunks a live block still held at the last walk: given back only once it is replaced. */
    int pinned()
    {
        return pinned;
    }

    /** @return bytes of the heap in chunks handed out and not free again (writing, retired, in their grace). */
    long handedOut()
    {
        return next - HeapLayout.HEADER_LENGTH - freeBytes;
    }

    /** @return bytes of the heap chunks are cut from. */
    long capacity()
    {
        return heapLength - HeapLayout.HEADER_LENGTH;
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
            addFree(chunk);
        }
        reclaimed = reclaimed + count;
        return count;
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
