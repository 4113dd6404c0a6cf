package io.dkv.load.bench.membership;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A change's figures are read from its driver's output as MembershipChangeDriver prints it. */
class ChangeLogTest
{
    private static final String RUNNING = """
        dkv memory node 103 serving index 'dkv-index-103' (1,032,192 slots) and heap 'dkv-heap-103' (64 MiB) at x; y
        membership change in phase fill (epoch 5): waiting 4,000 ms for every client to act in it
        fill pass 1: 20,000 keys seen, 3,000 copied or cleared, 400 in place, 2 unsettled, 1,500 ms
        fill pass 2: 20,000 keys seen, 2 copied or cleared, 3,400 in place, 0 unsettled, 900 ms
        membership change in phase switch (epoch 6): waiting 4,000 ms for every client to act in it
        membership change in phase handover (epoch 7): waiting 4,000 ms for every client to act in it
        handover pass 1: 20,000 keys seen, 3,390 sealed, 11 sealed before, 0 unsettled, 700 ms
        membership change in phase cleanup (epoch 8): waiting 4,000 ms for every client to act in it
        """;

    @Test
    void addsTheFillPassesAndTheWaitsOnceTheChangeIsDone()
    {
        assertNull(ChangeLog.parse(RUNNING));
        final ChangeLog log = ChangeLog.parse(RUNNING + "membership change done in 15,321 ms: membership{...}\n");

        assertEquals(new ChangeLog(16_000, 2, 2_400, 3_002, 3_800, 700, 15_321), log);
    }

    @Test
    void anAbortedChangeSaysWhy()
    {
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> ChangeLog.parse(RUNNING +
            "membership change aborted: keys were still unsettled after 10 passes; keys stay where they were\n"));

        assertTrue(ex.getMessage().contains("still unsettled after 10 passes"), ex.getMessage());
    }
}
