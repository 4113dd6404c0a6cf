package io.dkv.agent;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A doorbell in a shared file mapping: a ring wakes a thread asleep on it long before its timeout, a ring between a
 * sleeper's look for work and its sleep is not slept through, and a ring with nobody asleep moves nothing. The
 * sleeps here time out after a minute and each test gives up after 30 s, so a ring that failed to wake fails the test
 * rather than making it slow.
 */
class DoorbellTest
{
    private static final long A_MINUTE_NS = TimeUnit.MINUTES.toNanos(1);
    private static final Duration GIVE_UP = Duration.ofSeconds(30);

    @TempDir
    Path directory;
    private Arena arena;
    private Doorbell doorbell;

    @BeforeEach
    void mapAFile() throws IOException
    {
        arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(directory.resolve("doorbell"), StandardOpenOption.CREATE,
            StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, 64, arena);
            doorbell = new Doorbell(new UnsafeBuffer(mapping.address(), 64), 8);
        }
    }

    @AfterEach
    void unmap()
    {
        arena.close();
    }

    @Test
    void aRingWakesAThreadAsleepLongBeforeItsTimeout() throws InterruptedException
    {
        assumeTrue(Futex.available(), "no futex on " + System.getProperty("os.name") + "/" +
            System.getProperty("os.arch") + ": sleeps are timed parks there");
        final AtomicBoolean work = new AtomicBoolean();
        final Thread sleeper = Thread.ofPlatform().start(() ->
        {
            while (!work.get())
            {
                final int sequence = doorbell.prepare();
                try
                {
                    if (!work.get())
                    {
                        doorbell.sleep(sequence, A_MINUTE_NS);
                    }
                }
                finally
                {
                    doorbell.finish();
                }
            }
        });
        while (doorbell.sleepers() == 0)
        {
            Thread.sleep(1);
        }
        work.set(true);
        doorbell.ring();
        sleeper.join(GIVE_UP);
        assertFalse(sleeper.isAlive(), "the sleeper still sleeps " + GIVE_UP.toSeconds() + " s after the ring");
        assertEquals(0, doorbell.sleepers());
    }

    @Test
    void aRingAfterTheSleeperLookedIsNotSleptThrough()
    {
        final int sequence = doorbell.prepare();
        // the sleeper found no work; the work comes and is rung for before it sleeps
        doorbell.ring();
        assertTimeoutPreemptively(GIVE_UP, () -> doorbell.sleep(sequence, A_MINUTE_NS),
            "a sleep on a sequence the ring moved returns at once");
        doorbell.finish();
    }

    @Test
    void aRingWithNobodyAsleepMovesNothing()
    {
        final int before = doorbell.prepare();
        doorbell.finish();
        doorbell.ring();
        final int after = doorbell.prepare();
        doorbell.finish();
        assertEquals(before, after, "the sequence moves only for a sleeper");
    }

    @Test
    void aStrategyThatFindsWorkWaitingDoesNotSleep()
    {
        final DoorbellIdleStrategy idle = new DoorbellIdleStrategy(doorbell, () -> true, 2, A_MINUTE_NS, A_MINUTE_NS);
        assertTimeoutPreemptively(GIVE_UP, () ->
        {
            for (int i = 0; i < 10; i++)
            {
                idle.idle(0);
            }
        }, "an idle turn with work waiting returns at once");
        assertEquals(0, doorbell.sleepers());
    }

    @Test
    void aDoorbellRefusesHeapMemoryAndAMisalignedWord()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Doorbell(new UnsafeBuffer(new byte[16]), 0))
            .getMessage().contains("(heap)"));
        assertThrows(IllegalArgumentException.class, () -> new Doorbell(
            new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(16)), 2));
    }
}
