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
 * FREE, to be handed out again. Chunks come from the end of the heap while it lasts and from the
 * free chunks of the length asked for after. Each time a chunk is freed its generation moves on: the slot words
 * naming its blocks carry it ({@link SlotWord}), so that a CAS made from a word read in an earlier life of the chunk
 * (by a client stopped past the grace period) finds no slot holding that word. One caller: the request server's
 * thread.
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
    private final Int2ObjectHashMap<ArrayDeque<Chunk>> free = new Int2ObjectHashMap<>();
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
     * @param length bytes wanted: a multiple of 64, at least 64, at most the largest chunk.
     * @param owner  the client that writes into it (null: the node itself, when it loads keys).
     * @return the offset of a chunk no one else writes into, or -1 when the heap has no room for it.
     */
    long allocate(final int length, final Connection owner)
    {
        final ArrayDeque<Chunk> sameLength = free.get(length);
        Chunk chunk = sameLength == null ? null : sameLength.poll();
        if (chunk == null)
        {
            if (next + length > heapLength)
            {
                return -1;
            }
            chunk = new Chunk(next, length);
            if (chunkCount == chunks.length)
            {
                chunks = Arrays.copyOf(chunks, 2 * chunkCount);
                starts = Arrays.copyOf(starts, 2 * chunkCount);
            }
            chunks[chunkCount] = chunk;
            starts[chunkCount++] = next;
            next += length;
        }
        chunk.owner = owner;
        chunk.ownerGone = false;
        chunk.state = WRITING;
        allocated = allocated + 1;
        return chunk.offset;
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
            free.computeIfAbsent(chunk.length, ignored -> new ArrayDeque<>()).add(chunk);
            count++;
        }
        reclaimed = reclaimed + count;
        return count;
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
