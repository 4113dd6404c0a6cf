package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * One DC initiator carries the messages to two peers in turn: a request for the next peer waits for
 * the previous peer's requests to finish, and then goes out without anything else prodding it.
 */
class SharedInitiatorTest
{
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static RaasContext context(final String provider, final long nodeId)
    {
        return RaasPair.context(provider, nodeId)
            .dciCount(1)
            .receiveBuffers(64)
            .requestSlots(256)
            .advertisedBytes(64 * 1024)
            .timeoutMs(3000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void requestsToTwoPeersAlternatingOnOneInitiatorNeverStall(final String provider) throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        try (Raas sender = RaasDriver.start(context(provider, 1), directory);
            Raas first = RaasDriver.start(context(provider, 2), directory);
            Raas second = RaasDriver.start(context(provider, 3), directory);
            Listener firstListener = first.listen(5);
            Listener secondListener = second.listen(5))
        {
            final Connection toFirst = sender.connect(2, 5, Flags.ADAPTIVE, null);
            final Connection toSecond = sender.connect(3, 5, Flags.ADAPTIVE, null);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread firstEcho = echo(firstListener.accept(WAIT), stop, failure);
            final Thread secondEcho = echo(secondListener.accept(WAIT), stop, failure);
            final MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
            try
            {
                for (int round = 0; round < 300; round++)
                {
                    final Connection connection = (round & 1) == 0 ? toFirst : toSecond;
                    buffer.set(ValueLayout.JAVA_INT_UNALIGNED, 0, round);
                    connection.send(buffer, 0, 64, Flags.ADAPTIVE);
                    assertEquals(64, connection.recv(buffer, 0, 64, WAIT));
                    assertEquals(round, buffer.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                }
            }
            finally
            {
                stop.set(true);
                firstEcho.join(10_000);
                secondEcho.join(10_000);
            }
            assertNull(failure.get());
        }
    }

    private static Thread echo(final Connection connection, final AtomicBoolean stop,
        final AtomicReference<Throwable> failure)
    {
        final Thread thread = new Thread(() ->
        {
            final MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
            try
            {
                while (!stop.get())
                {
                    if (connection.isReadable())
                    {
                        final int length = connection.recv(buffer, 0, 64, WAIT);
                        connection.send(buffer, 0, length, Flags.ADAPTIVE);
                    }
                    else
                    {
                        LockSupport.parkNanos(1_000);
                    }
                }
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        });
        thread.start();
        return thread;
    }
}
