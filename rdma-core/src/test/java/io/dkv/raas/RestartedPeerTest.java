package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A connection to a node that restarted (a new process registered under the same node id) is dead: closing it tells
 * the new process nothing. Routes follow a node to its new incarnation, and a fresh driver numbers its connections from
 * where it starts, so a CLOSE of the old connection reached the new process under a vQPN that a new connection had
 * taken there, and closed that one (a memory node then dropped the persist ring its client kept writing into: the
 * client's notices were lost without a sign, found by {@code ./dkv check} as a bank torn after every copy was lost).
 */
class RestartedPeerTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int SERVICE = 7;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closingAConnectionToTheOldProcessLeavesTheNewProcessConnectionsOpen(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        try (Raas client = RaasDriver.start(RaasPair.context(provider, 1), directory))
        {
            final Connection old;
            try (Raas first = RaasDriver.start(RaasPair.context(provider, 2), directory);
                Listener listener = first.listen(SERVICE))
            {
                old = client.connect(2, SERVICE, Flags.ADAPTIVE, null);
                final Connection served = listener.accept(WAIT);
                send(old, 1);
                assertEquals(1, receive(served));
            }
            try (Raas second = RaasDriver.start(RaasPair.context(provider, 2), directory);
                Listener listener = second.listen(SERVICE))
            {
                final Connection fresh = connectAgain(client);
                final Connection served = listener.accept(WAIT);
                send(fresh, 2);
                assertEquals(2, receive(served));

                // a one-sided request of the old connection finds the node moved on: its route is read again
                second.malloc(2, 4096, "second");
                try
                {
                    old.read(client.lookup("second"), 0, MemorySegment.ofArray(new byte[8]), 0, 8);
                }
                catch (final RaasException expected)
                {
                    // the old connection's request may fail or land: either way the route follows the node
                }
                old.close();
                send(fresh, 3);
                assertEquals(3, receive(served), "the new process's connection still takes messages after the " +
                    "client closed its connection to the old one");
                send(fresh, 4);
                assertEquals(4, receive(served));
            }
        }
    }

    /** The first CONNECT may go to the old process's address: the client's route is read again after it fails. */
    private static Connection connectAgain(final Raas client)
    {
        RaasException last = null;
        for (int attempt = 0; attempt < 20; attempt++)
        {
            try
            {
                return client.connect(2, SERVICE, Flags.ADAPTIVE, null);
            }
            catch (final RaasException ex)
            {
                last = ex;
            }
        }
        throw last;
    }

    private static void send(final Connection connection, final long value)
    {
        final MemorySegment out = MemorySegment.ofArray(new byte[8]);
        out.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        connection.send(out, 0, 8, Flags.USE_SEND);
    }

    private static long receive(final Connection connection)
    {
        final MemorySegment in = MemorySegment.ofArray(new byte[8]);
        assertEquals(8, connection.recv(in, 0, 8, WAIT));
        return in.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }
}
