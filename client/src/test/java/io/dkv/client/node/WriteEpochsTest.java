package io.dkv.client.node;

import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client's durable epoch: its clock in epochs, raised by what it reads, never going back; and its mark, below the
 * epoch of every write whose nodes may not have been told of it yet.
 */
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

    @Test
    void theMarkIsTheEpochLessOneWithNoWriteInFlight()
    {
        clock.update(1_000);
        assertEquals(19, epochs.mark());
        clock.update(2_000);
        assertEquals(39, epochs.mark());
    }

    @Test
    void aWriteInFlightHoldsTheMarkBelowTheEpochItBeganAtUntilItLeaves()
    {
        clock.update(1_000);
        final int first = epochs.enter();
        clock.update(2_000);
        final int second = epochs.enter();
        clock.update(3_000);
        assertEquals(2, epochs.inFlight());
        assertEquals(19, epochs.mark(), "held by the first write, begun at epoch 20");
        epochs.leave(first);
        assertEquals(39, epochs.mark(), "held by the second, begun at epoch 40");
        epochs.leave(second);
        assertEquals(59, epochs.mark());
        assertEquals(0, epochs.inFlight());
    }

    @Test
    void slotsLeftAreTakenAgainSoWritesWithoutEndNeedNoMoreThanTheirOwn()
    {
        clock.update(1_000);
        for (int i = 0; i < 3 * WriteEpochs.SLOTS; i++)
        {
            epochs.leave(epochs.enter());
        }
        final int held = epochs.enter();
        assertEquals(1, epochs.inFlight());
        epochs.leave(held);
        assertEquals(0, epochs.inFlight());
    }

    /**
     * Writers enter, take the epoch, publish it and clear it before they leave, while the clock moves and reads raise
     * the epoch; a marker checks each mark against the writes it sees published after it: every one is of a later
     * epoch. A mark that read the slots before the epoch fails this (a write entering between the two reads).
     */
    @Test
    void noWriteSeenInFlightAfterAMarkIsOfAnEpochAtOrBelowIt() throws Exception
    {
        final int writers = 3;
        final long unset = -1;
        final AtomicLongArray published = new AtomicLongArray(writers);
        for (int w = 0; w < writers; w++)
        {
            published.set(w, unset);
        }
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong marks = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++)
        {
            final int writer = w;
            threads.add(Thread.ofPlatform().start(() ->
            {
                while (running.get())
                {
                    final int slot = epochs.enter();
                    published.set(writer, epochs.current());
                    Thread.onSpinWait();
                    published.set(writer, unset);
                    epochs.leave(slot);
                }
            }));
        }
        threads.add(Thread.ofPlatform().start(() ->
        {
            long now = 0;
            while (running.get())
            {
                clock.update(now += 7);
                if ((now & 63) == 0)
                {
                    epochs.observe(now / 50 + 3);
                }
                Thread.yield();
            }
        }));
        final long until = System.nanoTime() + 300_000_000L;
        try
        {
            while (System.nanoTime() < until)
            {
                final long mark = epochs.mark();
                for (int w = 0; w < writers; w++)
                {
                    final long epoch = published.get(w);
                    assertTrue(epoch == unset || epoch > mark, "a write of epoch " + epoch + " in flight after mark " +
                        mark);
                }
                marks.incrementAndGet();
            }
        }
        finally
        {
            running.set(false);
            for (final Thread thread : threads)
            {
                thread.join();
            }
        }
        assertTrue(marks.get() > 0);
    }
}
