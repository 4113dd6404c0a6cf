package io.dkv.raas;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A READ's result lands in its caller's memory, which may be confined to the caller's thread (an
 * {@code Arena.ofConfined()}), while any thread may poll its completion: the Poller agent, or
 * another caller waiting for its own request. The result is copied by the waiting caller, never by
 * whoever polled; a request whose memory its thread may not write is refused before it is sent,
 * not lost when it completes.
 */
class CallerMemoryTest
{
    private static final int ROUNDS = 2_000;
    private static final int LENGTH = 64;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aReadIntoMemoryConfinedToItsCallerCompletesWhicheverThreadPollsItsCompletion(final String provider)
        throws InterruptedException
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RemoteRegion region = pair.publishedByB("confined-reads", 4096);
            final MemorySegment remote = pair.b.localMemory(region);
            for (int i = 0; i < 4096; i++)
            {
                remote.set(ValueLayout.JAVA_BYTE, i, (byte)i);
            }
            // another caller waits for its own READs meanwhile: its polls deliver many of this thread's completions
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> otherFailed = new AtomicReference<>();
            final CountDownLatch otherStarted = new CountDownLatch(1);
            final Thread other = Thread.ofPlatform().name("other-caller").start(() ->
            {
                try (Connection connection = pair.a.open(pair.b.self().id(), null))
                {
                    final MemorySegment shared = Arena.global().allocate(LENGTH);
                    connection.read(region, 0, shared, 0, LENGTH);
                    otherStarted.countDown();
                    while (!stop.get())
                    {
                        connection.read(region, 0, shared, 0, LENGTH);
                    }
                }
                catch (final Throwable ex)
                {
                    otherFailed.set(ex);
                    otherStarted.countDown();
                }
            });
            otherStarted.await();
            try (Connection connection = pair.a.open(pair.b.self().id(), null);
                Arena arena = Arena.ofConfined())
            {
                final MemorySegment confined = arena.allocate(LENGTH);
                for (int round = 0; round < ROUNDS; round++)
                {
                    final int offset = round % (4096 - LENGTH);
                    confined.fill((byte)0);
                    connection.read(region, offset, confined, 0, LENGTH);
                    assertEquals((byte)(offset + LENGTH - 1), confined.get(ValueLayout.JAVA_BYTE, LENGTH - 1),
                        "round " + round + " at offset " + offset);
                }
            }
            finally
            {
                stop.set(true);
                other.join();
            }
            assertNull(otherFailed.get(), () -> "the other caller failed: " + otherFailed.get());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aRequestWhoseMemoryItsThreadMayNotWriteIsRefusedBeforeItIsSent(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider);
            Connection connection = pair.a.open(pair.b.self().id(), null))
        {
            final RemoteRegion region = pair.publishedByB("elsewhere", 4096);
            final AtomicReference<MemorySegment> elsewhere = new AtomicReference<>();
            final CountDownLatch allocated = new CountDownLatch(1);
            final CountDownLatch done = new CountDownLatch(1);
            final Thread owner = Thread.ofPlatform().name("memory-owner").start(() ->
            {
                try (Arena arena = Arena.ofConfined())
                {
                    elsewhere.set(arena.allocate(LENGTH));
                    allocated.countDown();
                    done.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            });
            allocated.await();
            try
            {
                final RaasException refused = assertThrows(RaasException.class,
                    () -> connection.read(region, 0, elsewhere.get(), 0, LENGTH));
                assertTrue(refused.getMessage().contains("refused: its local buffer is confined to a thread other " +
                    "than " + Thread.currentThread().getName()), refused.getMessage());
            }
            finally
            {
                done.countDown();
                owner.join();
            }
            // nothing was left behind: the next READ completes, and every request slot is free
            final MemorySegment mine = Arena.ofAuto().allocate(LENGTH);
            connection.read(region, 0, mine, 0, LENGTH);
            assertTrue(((io.dkv.raas.driver.RaasDriver)pair.a).describeState().contains("free slots 1024 of 1024"),
                ((io.dkv.raas.driver.RaasDriver)pair.a).describeState());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anAsynchronousReadIntoMemoryConfinedToAThreadIsRefusedAsAnyThreadMayDeliverIt(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider);
            Connection connection = pair.a.open(pair.b.self().id(), null);
            Arena arena = Arena.ofConfined())
        {
            final RemoteRegion region = pair.publishedByB("async", 4096);
            final RaasException refused = assertThrows(RaasException.class,
                () -> connection.readAsync(region, 0, arena.allocate(LENGTH), 0, LENGTH, 1));
            assertTrue(refused.getMessage().contains("refused: its local buffer is confined to thread " +
                Thread.currentThread().getName()), refused.getMessage());
            assertEquals(0, connection.outstanding(), "nothing was sent");
        }
    }
}
