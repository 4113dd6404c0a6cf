package io.dkv.memory;

import io.dkv.format.HeapLayout;
import io.dkv.format.IndexLayout;
import io.dkv.format.SlotWord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Free space is granted whatever lengths were asked before: chunks freed side by side merge, a longer free chunk is
 * cut to the length asked, and a shorter one that holds what the client needs is granted where nothing else is; a
 * chunk's generation moves on with each life so that no word of its last life names a block of its next.
 */
class HeapChunksTest
{
    private static final int K64 = 64 * 1024;
    private static final int GROUPS = 64;
    private static final int MAX_DEPTH = 2;

    private final Arena arena = Arena.ofConfined();
    private final LocalIndex emptyIndex = emptyIndex();

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void chunksFreedSideBySideMergeAndAreCutToTheLengthAskedAgain()
    {
        final HeapChunks chunks = heapOf(8 * K64);
        final long[] small = new long[8];
        for (int i = 0; i < small.length; i++)
        {
            small[i] = chunks.allocate(K64, null);
            assertEquals(HeapLayout.HEADER_LENGTH + (long)i * K64, small[i]);
        }
        assertEquals(-1, chunks.allocate(K64, null), "every byte is handed out");

        freeAll(chunks, small);
        assertEquals(8L * K64, chunks.freeBytes());

        final long first = chunks.allocate(4 * K64, 4 * K64, null);
        assertEquals(HeapLayout.HEADER_LENGTH, first, "the merged free chunk is cut from its front");
        assertEquals(4 * K64, chunks.granted());
        final long second = chunks.allocate(4 * K64, 4 * K64, null);
        assertEquals(HeapLayout.HEADER_LENGTH + 4L * K64, second, "the rest of it is the next chunk");
        assertEquals(4 * K64, chunks.granted());
        assertEquals(0, chunks.freeBytes());
        assertEquals(-1, chunks.allocate(K64, null));
    }

    @Test
    void aShorterFreeChunkIsGrantedWhereItHoldsWhatTheClientNeedsAndNothingLongerIsFree()
    {
        final HeapChunks chunks = heapOf(8 * K64);
        final long[] pairs = new long[4];
        for (int i = 0; i < pairs.length; i++)
        {
            pairs[i] = chunks.allocate(2 * K64, null);
        }
        // two free chunks of 128 KiB, not side by side
        freeAll(chunks, pairs[0], pairs[2]);

        assertEquals(-1, chunks.allocate(4 * K64, 3 * K64, null), "no free piece holds 192 KiB");
        assertEquals(pairs[0], chunks.allocate(4 * K64, 2 * K64, null), "a 128 KiB piece holds the 128 KiB needed");
        assertEquals(2 * K64, chunks.granted());
        assertEquals(pairs[2], chunks.allocate(2 * K64, 2 * K64, null));
        assertEquals(-1, chunks.allocate(K64, null));
    }

    @Test
    void aFreeChunkOfTheLengthAskedIsTakenBeforeALongerOneIsCut()
    {
        final HeapChunks chunks = heapOf(8 * K64);
        final long a = chunks.allocate(K64, null);
        final long b = chunks.allocate(K64, null);
        final long c = chunks.allocate(4 * K64, null);
        final long d = chunks.allocate(K64, null);
        chunks.allocate(K64, null);
        assertEquals(-1, chunks.allocate(K64, null));
        freeAll(chunks, a, c);
        assertEquals(c, chunks.allocate(4 * K64, K64, null));
        assertEquals(a, chunks.allocate(K64, null));
        assertEquals(-1, chunks.allocate(K64, null));
        freeAll(chunks, b, d);
        assertEquals(b, chunks.allocate(K64, null));
        assertEquals(d, chunks.allocate(K64, null));
    }

    @Test
    void eachLifeOfAChunkHasAGenerationNoWordOfItsLastLifeCarries()
    {
        final HeapChunks chunks = heapOf(2 * K64);
        final long a = chunks.allocate(K64, null);
        final long b = chunks.allocate(K64, null);
        final int firstA = chunks.generation(a);
        // b lives twice while a lives once: their generations part
        freeAll(chunks, b);
        assertEquals(b, chunks.allocate(K64, null));
        final int secondB = chunks.generation(b);
        assertEquals(SlotWord.nextGeneration(firstA), secondB);

        freeAll(chunks, a, b);
        final long merged = chunks.allocate(2 * K64, null);
        assertEquals(a, merged);
        final int mergedGeneration = chunks.generation(merged);
        assertNotEquals(firstA, mergedGeneration, "a's last words name the merged chunk's first block");
        assertNotEquals(secondB, mergedGeneration, "b's last words name a block in the merged chunk");

        for (int first = 0; first < SlotWord.GENERATIONS; first++)
        {
            for (int second = 0; second < SlotWord.GENERATIONS; second++)
            {
                final int generation = HeapChunks.mergedGeneration(first, second);
                assertNotEquals(Math.floorMod(first - 1, SlotWord.GENERATIONS), generation);
                assertNotEquals(Math.floorMod(second - 1, SlotWord.GENERATIONS), generation);
            }
        }
    }

    /** A heap of {@code bytes} after its header, chunks of at most 256 KiB, no grace. */
    private static HeapChunks heapOf(final long bytes)
    {
        return new HeapChunks(4 * K64, HeapLayout.HEADER_LENGTH + bytes, 0);
    }

    /** Retire the chunks, find them unreferenced, and let their (empty) grace end. */
    private void freeAll(final HeapChunks chunks, final long... offsets)
    {
        for (final long offset : offsets)
        {
            chunks.retire(offset, null, 0);
        }
        assertEquals(offsets.length, chunks.reclaim(emptyIndex, 1));
        assertEquals(offsets.length, chunks.release(2));
    }

    private LocalIndex emptyIndex()
    {
        final MemorySegment index =
            arena.allocate(IndexLayout.regionLength(MAX_DEPTH, GROUPS, 1 << MAX_DEPTH), 64);
        MemoryNode.formatIndex(index, GROUPS, MAX_DEPTH);
        return new LocalIndex(index, arena.allocate(HeapLayout.HEADER_LENGTH, 64), GROUPS, MAX_DEPTH);
    }
}
