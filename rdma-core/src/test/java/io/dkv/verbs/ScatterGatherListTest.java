package io.dkv.verbs;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A scatter/gather list is the local memory of a work request, as {@code sg_list} and {@code num_sge}:
 * its elements are made once, the first numSge of them are the list, and a refusal names the value
 * that was out of bounds and the bounds.
 */
class ScatterGatherListTest
{
    /** Only what a scatter/gather element takes from a region: its address and local key. */
    private record Region(long address, int lkey) implements MemoryRegion
    {
        public MemorySegment segment()
        {
            return MemorySegment.NULL;
        }

        public long length()
        {
            return Long.MAX_VALUE;
        }

        public int rkey()
        {
            return 0;
        }

        public int access()
        {
            return Access.LOCAL_WRITE;
        }

        public boolean isRegistered()
        {
            return true;
        }

        public void deregister()
        {
        }
    }

    private static final Region REGION = new Region(0x10_0000L, 0x42);

    @Test
    void aNewListIsEmptyWithRoomForItsElements()
    {
        final ScatterGatherList list = new ScatterGatherList(3);

        assertEquals(0, list.numSge());
        assertEquals(3, list.maxSge());
        assertEquals(0, list.totalLength());
        assertEquals(0, new SendWorkRequest().sgList().numSge());
        assertEquals(4, new RecvWorkRequest().sgList().maxSge());
    }

    @Test
    void numSgeTakesZeroToMaxSgeAndRefusesOthersNamingThem()
    {
        final ScatterGatherList list = new ScatterGatherList(3);

        assertEquals(3, list.numSge(3).numSge());
        assertEquals(0, list.numSge(0).numSge());
        assertEquals("numSge 4 outside 0..3",
            assertThrows(IllegalArgumentException.class, () -> list.numSge(4)).getMessage());
        assertEquals("numSge -1 outside 0..3",
            assertThrows(IllegalArgumentException.class, () -> list.numSge(-1)).getMessage());
        assertEquals(0, list.numSge(), "a refused numSge leaves the list as it was");
        assertEquals("maxSge -1 is negative",
            assertThrows(IllegalArgumentException.class, () -> new ScatterGatherList(-1)).getMessage());
    }

    @Test
    void anyElementBelowMaxSgeMayBeFilledInAndNoneBeyond()
    {
        final ScatterGatherList list = new ScatterGatherList(2);

        list.sge(1).set(REGION, 8, 16);
        assertEquals(REGION.address() + 8, list.sge(1).addr());
        assertSame(list.sge(1), list.sge(1), "elements are made once and reused");
        assertEquals("sge 2 outside 0..1",
            assertThrows(IndexOutOfBoundsException.class, () -> list.sge(2)).getMessage());
        assertEquals("sge -1 outside 0..1",
            assertThrows(IndexOutOfBoundsException.class, () -> list.sge(-1)).getMessage());
    }

    @Test
    void setMakesTheListExactlyOneElementCoveringPartOfARegion()
    {
        final ScatterGatherList list = new ScatterGatherList(4).numSge(3);

        list.set(REGION, 100, 64);

        assertEquals(1, list.numSge());
        final ScatterGatherElement sge = list.sge(0);
        assertEquals(REGION.address() + 100, sge.addr());
        assertEquals(64, sge.length());
        assertEquals(REGION.lkey(), sge.lkey());
        assertEquals(64, list.totalLength());
    }

    @Test
    void theTotalLengthCountsTheElementsOfTheListOnly()
    {
        final ScatterGatherList list = new ScatterGatherList(3).numSge(2);
        list.sge(0).set(REGION, 0, 1000);
        list.sge(1).set(REGION, 5000, 24);
        list.sge(2).set(REGION, 9000, 7);

        assertEquals(1024, list.totalLength());
        assertEquals(1031, list.numSge(3).totalLength());
    }

    @Test
    void aCopyHasTheSameElementsAndAListTooShortForThemRefusesIt()
    {
        final ScatterGatherList posted = new ScatterGatherList(3).numSge(2);
        posted.sge(0).set(REGION, 0, 10);
        posted.sge(1).set(REGION, 64, 20);
        final ScatterGatherList copy = new ScatterGatherList(2);

        copy.copyFrom(posted);
        posted.sge(0).set(REGION, 128, 1);

        assertEquals(2, copy.numSge());
        assertEquals(REGION.address(), copy.sge(0).addr());
        assertEquals(10, copy.sge(0).length());
        assertEquals(REGION.lkey(), copy.sge(1).lkey());
        assertEquals(30, copy.totalLength(), "the copy keeps what was posted");
        assertEquals("numSge 3 outside 0..2",
            assertThrows(IllegalArgumentException.class, () -> copy.copyFrom(posted.numSge(3))).getMessage());
    }
}
