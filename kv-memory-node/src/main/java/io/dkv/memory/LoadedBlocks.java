package io.dkv.memory;

import io.dkv.format.KvBlockLayout;
import org.agrona.concurrent.NanoClock;

/**
 * Blocks the node writes itself, from its disk: into chunks of its own, one after another, each chunk retired once
 * full (it goes back when clients replaced or deleted its keys). Used by the node's start, which puts its keys back,
 * and by a rollback, which puts older versions in their place; both on one thread, before or instead of a turn.
 */
final class LoadedBlocks
{
    private final HeapChunks chunks;
    private final LocalIndex index;
    private final NanoClock clock;
    private long chunk = -1;
    private long used;
    private long length;

    LoadedBlocks(final HeapChunks chunks, final LocalIndex index, final NanoClock clock)
    {
        this.chunks = chunks;
        this.index = index;
        this.clock = clock;
    }

    /**
     * Write a block of the key, as the write it was.
     *
     * @return the block's offset in the heap, or -1 when the heap has no chunk left for it.
     */
    long write(final byte[] key, final byte[] value, final long expireAt, final long writeId, final long epoch)
    {
        final int blockLength = KvBlockLayout.blockLength(key.length, value.length);
        if (chunk < 0 || used + blockLength > length)
        {
            final int chunkLength = Math.max(chunks.maxChunkLength(), blockLength);
            finish();
            chunk = chunks.allocate(chunkLength, null);
            if (chunk < 0)
            {
                return -1;
            }
            used = 0;
            length = chunkLength;
        }
        final long offset = chunk + used;
        KvBlockLayout.write(index.heap(), offset, key, value, expireAt,
            writeId != KvBlockLayout.NO_WRITE ? writeId : KvBlockLayout.drawWriteId(), epoch);
        used += blockLength;
        return offset;
    }

    /** @return the generation of the chunk the last block went into, as its slot word carries it. */
    int generation()
    {
        return chunks.generation(chunk);
    }

    /** The node writes no more blocks: its last chunk is retired, as full ones are. */
    void finish()
    {
        if (chunk >= 0)
        {
            chunks.retire(chunk, null, clock.nanoTime());
            chunk = -1;
        }
    }
}
