package io.dkv.memory;

import io.dkv.format.HeapLayout;
import io.dkv.format.SlotWord;
import io.dkv.raas.Connection;
import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

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
    private final TreeMap<Long, Chunk> chunks = new TreeMap<>();
    private final Int2ObjectHashMap<ArrayDeque<Chunk>> free = new Int2ObjectHashMap<>();
    private final ArrayDeque<Chunk> quarantined = new ArrayDeque<>();
    private long next = HeapLayout.HEADER_LENGTH;
    private int retired;
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
            chunks.put(next, chunk);
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
        final Chunk chunk = chunks.get(offset);
        if (chunk != null && chunk.state == WRITING && chunk.owner == owner)
        {
            toRetired(chunk, nowNanos);
        }
    }

    /** The client is gone (it closed, or died): its chunks get no more blocks. */
    void ownerGone(final Connection owner, final long nowNanos)
    {
        for (final Chunk chunk : chunks.values())
        {
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
        for (final Chunk chunk : chunks.values())
        {
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
        final Map.Entry<Long, Chunk> entry = chunks.floorEntry(blockOffset);
        if (entry == null)
        {
            return null;
        }
        final Chunk chunk = entry.getValue();
        return blockOffset < chunk.offset + chunk.length ? chunk : null;
    }

    /** @return the generation of the chunk at {@code offset}, as handed out last. */
    int generation(final long offset)
    {
        final Chunk chunk = chunks.get(offset);
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
