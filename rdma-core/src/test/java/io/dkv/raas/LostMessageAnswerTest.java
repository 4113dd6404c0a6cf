package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messages sent to a receiver that takes none for a while (its process stopped or stuck): over shm the sender places
 * each in the receiver's ring at once, and only the acknowledgement waits for the receiver. The sender's shared DC
 * initiator stalls on the first and is recycled; the first fails UNREACHABLE and the second, flushed behind it, was
 * placed already. Sent again, it arrived twice (seen as [1, 2, 2, 3]; by WRITE_WITH_IMM the stream stopped or read
 * bytes never written there as a message: a MetaServer reply "a 137-byte frame that is no reply" was such a one).
 * A message flushed behind a request whose outcome is unknown is not sent again: it fails OUTCOME_UNKNOWN, and
 * each message arrives at most once.
 */
class LostMessageAnswerTest
{
    private static final int STALL_MS = 1_000;
    private static final int LENGTH = 48;
    private static final Duration WAIT = Duration.ofSeconds(20);

    @ParameterizedTest
    @ValueSource(ints = {Flags.USE_SEND, Flags.USE_WRITE})
    @Timeout(90)
    void aMessageFlushedBehindALostAnswerArrivesOnce(final int how) throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        // one DC initiator, never promoted to RC: both messages travel on it, in order
        final RaasContext sender = RaasPair.context("shm", 1).dciCount(1).syncLanes(0).rcPromoteRequests(0)
            .qpStallMs(STALL_MS);
        // no agents: the receiver takes messages only while its test thread waits for one
        final RaasContext receiver = RaasPair.context("shm", 2).startAgents(false);
        try (Raas a = RaasDriver.start(sender, directory);
            Raas b = RaasDriver.start(receiver, directory);
            Listener listener = b.listen(7))
        {
            final CompletableFuture<Connection> connecting =
                CompletableFuture.supplyAsync(() -> a.connect(2, 7, Flags.ADAPTIVE, null));
            final Connection server = listener.accept(WAIT);
            final Connection client = connecting.get(20, TimeUnit.SECONDS);
            final MemorySegment in = Arena.ofAuto().allocate(64 * 1024);
            // the first message makes the receiver advertise its buffer, which a WRITE needs
            final Thread zero = Thread.ofPlatform().start(() -> send(client, 0, Flags.USE_SEND));
            assertEquals(0, receive(server, in));
            zero.join();
            // the advert travels as a control message the sender's poller takes on its own time
            Thread.sleep(STALL_MS / 5);

            // both sent while the receiver takes nothing: the initiator stalls on the first and is recycled
            final Thread first = Thread.ofPlatform().start(() -> sendQuietly(client, 1, how));
            Thread.sleep(STALL_MS / 10);
            final Thread second = Thread.ofPlatform().start(() -> sendQuietly(client, 2, how));
            first.join(TimeUnit.SECONDS.toMillis(30));
            second.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(first.isAlive() || second.isAlive(), "both sends ended");
            // the driver counts the recycle on its own agent's thread, soon after the failures it caused
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (((RaasDriver)a).recycledQueuePairs() < 1)
            {
                assertTrue(System.nanoTime() < deadline, "the stalled initiator was recycled");
                Thread.sleep(1);
            }

            final Thread third = Thread.ofPlatform().start(() -> sendQuietly(client, 3, how));
            final List<Integer> received = new ArrayList<>();
            received.add(receive(server, in));
            while (received.getLast() != 3)
            {
                received.add(receive(server, in));
            }
            third.join(TimeUnit.SECONDS.toMillis(30));
            try
            {
                // a copy past the last: recorded as minus 1000 less its length
                received.add(-1000 - server.recv(in, 0, (int)in.byteSize(), Duration.ofMillis(STALL_MS)));
            }
            catch (final RaasException none)
            {
                // nothing more came, as it should
            }
            assertEquals(List.of(1, 2, 3), received, "each message once, in order");
        }
    }

    private static int receive(final Connection server, final MemorySegment in)
    {
        final int length = server.recv(in, 0, (int)in.byteSize(), WAIT);
        if (length != LENGTH || in.get(ValueLayout.JAVA_INT, 4) != 0x5eed)
        {
            return -length;
        }
        return in.get(ValueLayout.JAVA_INT, 0);
    }

    private static void send(final Connection client, final int number, final int how)
    {
        final MemorySegment out = Arena.ofAuto().allocate(LENGTH);
        out.set(ValueLayout.JAVA_INT, 0, number);
        out.set(ValueLayout.JAVA_INT, 4, 0x5eed);
        client.send(out, 0, LENGTH, how);
    }

    private static void sendQuietly(final Connection client, final int number, final int how)
    {
        try
        {
            send(client, number, how);
        }
        catch (final RaasException failed)
        {
            // the message the queue pair stalled on fails; what the receiver got is what the test checks
        }
    }
}
