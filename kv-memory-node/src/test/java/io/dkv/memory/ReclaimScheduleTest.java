package io.dkv.memory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node walks its index for retired chunks an interval apart; walks that free nothing, with nothing retired or
 * refused since, wait twice as long each time up to eight intervals, and a chunk retired or refused brings the
 * interval back at once.
 */
class ReclaimScheduleTest
{
    private static final long INTERVAL = 1_000;

    @Test
    void walksThatFreeNothingWaitTwiceAsLongUpToEightIntervals()
    {
        final ReclaimSchedule schedule = new ReclaimSchedule(INTERVAL, 0);
        assertTrue(schedule.due(0, 1, 0), "the first walk is due at once");
        long now = 0;
        final long[] waits = new long[5];
        for (int i = 0; i < waits.length; i++)
        {
            // one chunk retired before the first walk, none since
            schedule.walked(now, 0, 1, 0);
            waits[i] = schedule.waitNanos();
            assertFalse(schedule.due(now + waits[i] - 1, 1, 0), "not due before its wait: walk " + i);
            now += waits[i];
            assertTrue(schedule.due(now, 1, 0), "due once its wait passed: walk " + i);
        }
        assertEquals(INTERVAL, waits[0], "the first walk after a chunk retired: the interval");
        assertEquals(2 * INTERVAL, waits[1]);
        assertEquals(4 * INTERVAL, waits[2]);
        assertEquals(8 * INTERVAL, waits[3]);
        assertEquals(8 * INTERVAL, waits[4], "eight intervals at most");
    }

    @Test
    void aChunkRetiredOrRefusedBringsTheIntervalBack()
    {
        final ReclaimSchedule schedule = new ReclaimSchedule(INTERVAL, 0);
        long now = 0;
        for (int i = 0; i < 4; i++)
        {
            schedule.walked(now, 0, 5, 2);
            now += schedule.waitNanos();
        }
        schedule.walked(now, 0, 5, 2);
        assertEquals(8 * INTERVAL, schedule.waitNanos());
        assertFalse(schedule.due(now + INTERVAL, 5, 2), "nothing new: the long wait stands");
        assertTrue(schedule.due(now + INTERVAL, 6, 2), "a chunk retired since: due an interval after the last walk");

        schedule.walked(now + INTERVAL, 0, 6, 2);
        assertEquals(INTERVAL, schedule.waitNanos(), "the walk after a retirement waits the interval");
        now += INTERVAL;
        for (int i = 0; i < 3; i++)
        {
            now += schedule.waitNanos();
            schedule.walked(now, 0, 6, 2);
        }
        assertEquals(8 * INTERVAL, schedule.waitNanos());
        assertTrue(schedule.due(now + INTERVAL, 6, 3), "a chunk refused since (a full heap): due again");
    }

    @Test
    void aWalkThatFreesAChunkKeepsTheInterval()
    {
        final ReclaimSchedule schedule = new ReclaimSchedule(INTERVAL, 0);
        schedule.walked(0, 0, 1, 0);
        schedule.walked(INTERVAL, 0, 1, 0);
        assertEquals(2 * INTERVAL, schedule.waitNanos());
        schedule.walked(3 * INTERVAL, 1, 1, 0);
        assertEquals(INTERVAL, schedule.waitNanos(), "freeing a chunk says more may follow");
    }
}
