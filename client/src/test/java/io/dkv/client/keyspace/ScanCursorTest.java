package io.dkv.client.keyspace;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A scan's cursor: a position and an epoch tag in a positive number that is 0 only at the start and the end. */
class ScanCursorTest
{
    @Test
    void keepsEachPartOfThePosition()
    {
        final long cursor = ScanCursor.of(ScanCursor.epochTag(4_097), 127, 65_535, ScanCursor.MAX_GROUPS - 1);

        assertTrue(cursor > 0);
        assertEquals(1, ScanCursor.epochTagOf(cursor));
        assertEquals(127, ScanCursor.node(cursor));
        assertEquals(65_535, ScanCursor.subtable(cursor));
        assertEquals(ScanCursor.MAX_GROUPS - 1, ScanCursor.group(cursor));
    }

    @Test
    void theFirstPositionIsNotTheStart()
    {
        final long cursor = ScanCursor.of(0, 0, 0, 0);

        assertTrue(cursor != ScanCursor.START);
        assertTrue(ScanCursor.isValid(cursor));
    }

    @Test
    void onlyCursorsItMakesAreValid()
    {
        assertTrue(ScanCursor.isValid(ScanCursor.START));
        assertFalse(ScanCursor.isValid(-1));
        assertFalse(ScanCursor.isValid(12_345));
        assertThrows(IllegalArgumentException.class, () -> ScanCursor.of(0, ScanCursor.MAX_NODES, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> ScanCursor.of(0, 0, 0, -1));
    }
}
