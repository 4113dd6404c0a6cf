package io.dkv.client.node;

import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client's durable epoch: its clock in epochs, raised by what it reads, never going back. */
class WriteEpochsTest
{
    private final CachedEpochClock clock = new CachedEpochClock();
    private final WriteEpochs epochs = new WriteEpochs(clock, 50);

    @Test
    void theEpochIsTheClockInEpochs()
    {
        clock.update(1_000);
        assertEquals(20, epochs.current());
        clock.update(1_049);
        assertEquals(20, epochs.current());
        clock.update(1_050);
        assertEquals(21, epochs.current());
    }

    @Test
    void aBlockReadOfALaterEpochRaisesItAndTheClockCatchesUpBeforeItMovesAgain()
    {
        clock.update(1_000);
        epochs.observe(30);
        assertEquals(30, epochs.current(), "a write after the read is of the read block's epoch");
        epochs.observe(25);
        assertEquals(30, epochs.current(), "an older block lowers nothing");
        clock.update(1_500);
        assertEquals(30, epochs.current());
        clock.update(1_550);
        assertEquals(31, epochs.current());
    }

    @Test
    void aClockThatGoesBackLeavesTheEpochWhereItWas()
    {
        clock.update(10_000);
        assertEquals(200, epochs.current());
        clock.update(5_000);
        assertEquals(200, epochs.current());
    }

    @Test
    void anEpochOfNoLengthIsRefused()
    {
        final IllegalArgumentException thrown =
            assertThrows(IllegalArgumentException.class, () -> new WriteEpochs(clock, 0));
        assertTrue(thrown.getMessage().contains(": 0"), thrown.getMessage());
    }
}
