package io.dkv.load.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link OffsetCursor} walks the offsets in order from the one it is told to start at, and from the first again after
 * the last; it takes only a power of two of them, which it cycles through with a mask.
 */
class OffsetCursorTest
{
    private static final long[] OFFSETS = {0, 8, 16, 24};

    @Test
    void walksTheOffsetsInOrderAndStartsAgainAfterTheLast()
    {
        final OffsetCursor cursor = new OffsetCursor(OFFSETS);
        for (final long expected : new long[]{0, 8, 16, 24, 0, 8})
        {
            assertEquals(expected, cursor.next());
        }
    }

    @Test
    void startsWhereItIsTold()
    {
        final OffsetCursor cursor = new OffsetCursor(OFFSETS, 3);
        assertEquals(24, cursor.next());
        assertEquals(0, cursor.next());
    }

    @Test
    void refusesACountThatIsNotAPowerOfTwo()
    {
        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> new OffsetCursor(new long[3]));
        assertTrue(refused.getMessage().startsWith("3 offsets"), refused.getMessage());
    }
}
