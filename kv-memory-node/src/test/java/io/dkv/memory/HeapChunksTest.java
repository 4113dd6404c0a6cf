package io.dkv.memory;

import io.dkv.format.HeapLayout;
import io.dkv.format.IndexLayout;
import io.dkv.format.SlotWord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Free chunks are granted whatever lengths were asked before: the length asked first, else a new one from the heap's
 * uncut end, else the shortest longer free chunk, else the longest shorter one that holds what the client needs; the
 * reserve goes only to writes that free memory; a chunk's generation moves on with each life.
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
    void aLongerFreeChunkIsGrantedWhereNoneHasTheLengthAskedAndTheHeapIsCut()
    {
        final HeapChunks chunks = heapOf(8 * K64);
        final long[] small = new long[4];
        for (int i = 0; i < small.length; i++)
        {
            small[i] = chunks.allocate(K64, null);
        }
        final long large = chunks.allocate(4 * K64, null);
        assertEquals(-1, chunks.allocate(K64, null), "every byte is handed out");
        freeAll(chunks, large, small[1]);

        assertEquals(large, chunks.allocate(2 * K64, K64, null), "the shortest longer one, whole: 256 KiB");
        assertEquals(4 * K64, chunks.granted());
        assertEquals(small[1], chunks.allocate(2 * K64, K64, null), "then a shorter one that holds the block");
        assertEquals(K64, chunks.granted());
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

        assertEquals(-1, chunks.allocate(4 * K64, 3 * K64, null), "no free chunk holds 192 KiB");
        assertEquals(pairs[0], chunks.allocate(4 * K64, 2 * K64, null), "a 128 KiB chunk holds the 128 KiB needed");
        assertEquals(2 * K64, chunks.granted());
        assertEquals(pairs[2], chunks.allocate(2 * K64, 2 * K64, null));
        assertEquals(-1, chunks.allocate(K64, null));
    }

    @Test
    void aFreeChunkOfTheLengthAskedIsTakenBeforeAnyOther()
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
    void onlyWritesThatFreeMemoryAreGrantedTheReserve()
    {
        final HeapChunks chunks = new HeapChunks(4 * K64, HeapLayout.HEADER_LENGTH + 8L * K64, 0, 2 * K64);
        for (int i = 0; i < 6; i++)
        {
            assertTrue(chunks.allocate(K64, K64, null, false) >= 0, "chunk " + i + " outside the reserve");
        }
        assertEquals(-1, chunks.allocate(K64, K64, null, false), "the last 128 KiB are the reserve's");
        assertEquals(2L * K64, chunks.room());
        assertTrue(chunks.allocate(K64, K64, null, true) >= 0, "a delete's chunk from the reserve");
        assertTrue(chunks.allocate(K64, K64, null, true) >= 0);
        assertEquals(-1, chunks.allocate(K64, K64, null, true), "the reserve is spent");
    }

    @Test
    void aLimitBoundsWhatWritesAreHandedOutButNotFrees()
    {
        final HeapChunks chunks = new HeapChunks(4 * K64, HeapLayout.HEADER_LENGTH + 16L * K64, 0, 2 * K64);
        chunks.limit(3L * K64);
        assertEquals(3L * K64, chunks.roomForWrites());
        assertTrue(chunks.allocate(2 * K64, K64, null, false) >= 0);
        assertEquals(2 * K64, chunks.granted());
        assertTrue(chunks.allocate(2 * K64, K64, null, false) >= 0, "what is left within the limit, cut short");
        assertEquals(K64, chunks.granted());
        assertEquals(0, chunks.roomForWrites());
        assertEquals(-1, chunks.allocate(K64, K64, null, false), "at the limit, a write is refused");
        assertTrue(chunks.allocate(K64, K64, null, true) >= 0, "a delete's chunk past the limit");
        assertEquals(4L * K64, chunks.handedOut());

        chunks.limit(HeapLayout.LIMIT_NONE);
        assertEquals(10L * K64, chunks.roomForWrites(), "none: the room outside the reserve");
        assertTrue(chunks.allocate(K64, K64, null, false) >= 0);
    }

    @Test
    void aLimitBelowWhatIsHandedOutRefusesWritesUntilChunksComeBack()
    {
        final HeapChunks chunks = new HeapChunks(4 * K64, HeapLayout.HEADER_LENGTH + 8L * K64, 0, 0);
        final long a = chunks.allocate(K64, K64, null, false);
        chunks.allocate(K64, K64, null, false);
        chunks.limit(K64);
        assertEquals(0, chunks.roomForWrites());
        assertEquals(-1, chunks.allocate(K64, K64, null, false));
        freeAll(chunks, a);
        assertEquals(0, chunks.roomForWrites(), "one chunk handed out: the limit's worth");
        assertThrows(IllegalArgumentException.class, () -> chunks.limit(100));
        assertThrows(IllegalArgumentException.class, () -> chunks.limit(0));
    }

    @Test
    void eachLifeOfAChunkHasTheNextGeneration()
    {
        final HeapChunks chunks = heapOf(2 * K64);
        final long a = chunks.allocate(K64, null);
        final int first = chunks.generation(a);
        freeAll(chunks, a);
        assertEquals(a, chunks.allocate(K64, null));
        assertEquals(SlotWord.nextGeneration(first), chunks.generation(a));
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
