package io.dkv.raas.driver;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A shared queue pair is recycled as stalled only when housekeeping has watched it sit with requests outstanding and
 * no completion for the stall time, over enough checks: a request posted after a long idle time is not a stall, nor
 * is a process that was paused.
 */
class StallDetectorTest
{
    private static final long STALL_MS = 2_000;
    private final StallDetector detector = new StallDetector(STALL_MS, 50);

    @Test
    void aRequestPostedAfterALongIdleTimeIsTimedFromTheLastCheckNotFromTheLastCompletion()
    {
        // idle for ten seconds since its last completion (the 5th)
        for (long now = 0; now <= 10_000; now++)
        {
            assertFalse(detector.check(now, 0, 5));
        }
        // a request is posted: the next checks see it outstanding, with no completion yet
        assertFalse(detector.check(10_001, 1, 5), "a millisecond after the post");
        assertFalse(detector.check(10_002, 1, 5));
    }

    @Test
    void requestsWithNoCompletionForTheStallTimeAreAStall()
    {
        boolean stalled = false;
        long now = 0;
        for (; now <= STALL_MS && !stalled; now++)
        {
            stalled = detector.check(now, 3, 7);
        }
        assertFalse(stalled, "not before the stall time");
        assertTrue(detector.check(STALL_MS + 1, 3, 7), "after it, watched all along");
    }

    @Test
    void aCompletionStartsANewWatch()
    {
        for (long now = 0; now < 1_500; now++)
        {
            assertFalse(detector.check(now, 2, 0));
        }
        assertFalse(detector.check(1_500, 1, 1), "one completed");
        for (long now = 1_501; now <= 3_500; now++)
        {
            assertFalse(detector.check(now, 1, 1), "2 s of no progress are counted from 1,500 ms, at " + now);
        }
        assertTrue(detector.check(3_501, 1, 1));
    }

    @Test
    void aPausedProcessLooksAgainBeforeItCallsAStall()
    {
        assertFalse(detector.check(0, 4, 9));
        // no check for three seconds (the process was stopped, or starved of CPU), and its poller ran no more than
        // housekeeping did: the completions waiting for it are not a peer's silence
        assertFalse(detector.check(3_000, 4, 9), "the first check after the pause");
        for (long now = 3_001; now < 3_048; now++)
        {
            assertFalse(detector.check(now, 4, 9), "fewer checks than the minimum, at " + now);
        }
        // the poller catches up
        assertFalse(detector.check(3_048, 0, 13));
        assertFalse(detector.check(3_049, 0, 13));
    }

    @Test
    void aStallThatOutlastsAPauseIsStillFound()
    {
        assertFalse(detector.check(0, 4, 9));
        assertFalse(detector.check(3_000, 4, 9));
        boolean stalled = false;
        for (long now = 3_001; now < 3_100 && !stalled; now++)
        {
            stalled = detector.check(now, 4, 9);
        }
        assertTrue(stalled, "once enough checks have seen it");
    }
}
