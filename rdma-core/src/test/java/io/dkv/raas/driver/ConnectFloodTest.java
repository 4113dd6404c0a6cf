package io.dkv.raas.driver;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasPair;
import io.dkv.raas.StaticDirectory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A CONNECT costs its sender one message and the listener's driver a connection: a hostile peer
 * that sends thousands and never uses them must not fill the listener's memory and regions, nor
 * lock out the nodes that connect for real meanwhile.
 */
class ConnectFloodTest
{
    private static final int SERVICE = 1;
    private static final int FLOOD = 2_000;
    private static final int ADVERT = 64 * 1024;
    private static final int INBOUND_PER_PEER = 16;
    private static final int UNUSED_PER_PEER = 8;
    private static final int UNUSED_MAX = 64;

    private static RaasContext context(final String provider, final long nodeId)
    {
        return RaasPair.context(provider, nodeId).advertisedBytes(ADVERT);
    }

    /** The listener's bounds: small, so that a flood of a few thousand CONNECTs passes them many times over. */
    private static RaasContext bounded(final String provider, final long nodeId)
    {
        // the deadline is far beyond a real node's round trip, and only ends the test's wait once the flood stopped
        return context(provider, nodeId)
            .inboundPerPeer(INBOUND_PER_PEER)
            .unusedPerPeer(UNUSED_PER_PEER)
            .unusedMax(UNUSED_MAX)
            .unusedMs(2_000);
    }

    private static void await(final BooleanSupplier condition, final Supplier<String> what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("waited 60 s for " + what.get());
            }
            Thread.onSpinWait();
        }
    }

    /** Accepts every connection and sends back each message it gets; closes what its peer closed. */
    private static final class EchoServer implements AutoCloseable
    {
        private final Listener listener;
        private final Thread thread;
        private volatile boolean running = true;

        EchoServer(final Raas raas)
        {
            listener = raas.listen(SERVICE);
            thread = new Thread(this::run, "echo");
            thread.setDaemon(true);
            thread.start();
        }

        private void run()
        {
            final List<Connection> open = new ArrayList<>();
            final MemorySegment buffer = MemorySegment.ofArray(new byte[ADVERT]);
            while (running)
            {
                Connection accepted;
                while ((accepted = listener.poll()) != null)
                {
                    open.add(accepted);
                }
                for (int i = open.size() - 1; i >= 0; i--)
                {
                    final Connection connection = open.get(i);
                    if (!connection.isReadable())
                    {
                        continue;
                    }
                    try
                    {
                        final int length = connection.recv(buffer, 0, (int)buffer.byteSize(), Duration.ZERO);
                        connection.send(buffer, 0, length, Flags.ADAPTIVE);
                    }
                    catch (final RaasException closed)
                    {
                        connection.close();
                        open.remove(i);
                    }
                }
                Thread.onSpinWait();
            }
            open.forEach(Connection::close);
        }

        public void close()
        {
            running = false;
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            listener.close();
        }
    }

    /** Send a message of {@code length} bytes and check its echo. */
    private static void roundTrip(final Connection connection, final int round, final int length)
    {
        final MemorySegment message = MemorySegment.ofArray(new byte[length]);
        message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, round);
        message.set(ValueLayout.JAVA_INT_UNALIGNED, length - 4, ~round);
        connection.send(message, 0, length, Flags.ADAPTIVE);
        final MemorySegment echo = MemorySegment.ofArray(new byte[length]);
        assertEquals(length, connection.recv(echo, 0, length, Duration.ofSeconds(10)), "round " + round);
        assertEquals(round, echo.get(ValueLayout.JAVA_INT_UNALIGNED, 0), "round " + round + " echoed");
        assertEquals(~round, echo.get(ValueLayout.JAVA_INT_UNALIGNED, length - 4), "round " + round + " echoed whole");
    }

    /** Connect, exchange a message, close: what a node registering with a MetaServer does. */
    private static void exchange(final Raas legitimate, final long target, final int round)
    {
        final Connection connection = legitimate.connect(target, SERVICE, Flags.ADAPTIVE, null);
        try
        {
            roundTrip(connection, round, 64);
        }
        finally
        {
            connection.close();
        }
    }

    private static void awaitNothingInbound(final RaasDriver flooded)
    {
        await(() ->
            flooded.inboundConnections() == 0 && flooded.connectionCount() == 0 && flooded.inboundAdverts() == 0,
            () -> "the flooded driver to hold no connection (" + flooded.describeState() + ", " +
                flooded.connectionCount() + " connections)");
        assertEquals(0, flooded.unusedInboundConnections());
        assertEquals(0, flooded.inboundAdvertisedBytes());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(180)
    void aConnectFloodLeavesRoomForALegitimateNode(final String provider) throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        try (RaasDriver flooded = (RaasDriver)RaasDriver.start(bounded(provider, 1), directory);
            RaasDriver hostile = (RaasDriver)RaasDriver.start(context(provider, 2), directory);
            RaasDriver accomplice = (RaasDriver)RaasDriver.start(context(provider, 3), directory);
            Raas legitimate = RaasDriver.start(context(provider, 4), directory);
            EchoServer ignored = new EchoServer(flooded))
        {
            exchange(legitimate, 1, 0);
            awaitNothingInbound(flooded);

            final CompletableFuture<Void> flood = CompletableFuture.runAsync(() ->
            {
                for (int sent = 0; sent < FLOOD; sent += 100)
                {
                    ForgedConnects.send(hostile, 1, SERVICE, 1_000_000 + sent, 100);
                    ForgedConnects.send(accomplice, 1, SERVICE, 2_000_000 + sent, 100);
                }
                ForgedConnects.awaitSent(hostile);
                ForgedConnects.awaitSent(accomplice);
            });
            int rounds = 1;
            int mostInbound = 0;
            int mostUnused = 0;
            int mostAdverts = 0;
            while (!flood.isDone() || rounds < 20)
            {
                exchange(legitimate, 1, rounds++);
                mostInbound = Math.max(mostInbound, flooded.inboundConnections());
                mostUnused = Math.max(mostUnused, flooded.unusedInboundConnections());
                mostAdverts = Math.max(mostAdverts, flooded.inboundAdverts());
            }
            flood.get();
            // each hostile address holds at most its unused places; the legitimate node at most its connections
            assertTrue(mostUnused <= 2 * UNUSED_PER_PEER + 1, "unused inbound connections held: " + mostUnused);
            assertTrue(mostInbound <= 2 * UNUSED_PER_PEER + INBOUND_PER_PEER,
                "inbound connections held: " + mostInbound);
            assertTrue(mostAdverts <= INBOUND_PER_PEER,
                "advertised buffers held (only used connections have one): " + mostAdverts);

            awaitNothingInbound(flooded);
            assertEquals(2L * FLOOD, flooded.unusedConnectionsReclaimed() + flooded.connectRefusals(),
                "every forged connection reclaimed or refused");
            exchange(legitimate, 1, rounds);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(180)
    void forgedNodeIdsLeaveNoMoreRoutesThanTheBoundAndRealPeersStillConnect(final String provider) throws Exception
    {
        final int maxRoutes = 32;
        final StaticDirectory directory = new StaticDirectory();
        try (RaasDriver flooded = (RaasDriver)RaasDriver.start(bounded(provider, 1).maxRoutes(maxRoutes), directory);
            RaasDriver hostile = (RaasDriver)RaasDriver.start(context(provider, 2), directory);
            Raas legitimate = RaasDriver.start(context(provider, 4), directory);
            EchoServer ignored = new EchoServer(flooded))
        {
            exchange(legitimate, 1, 0);
            int mostRoutes = 0;
            for (int sent = 0; sent < FLOOD; sent += 100)
            {
                ForgedConnects.send(hostile, 1, SERVICE, 3_000_000 + sent, 100);
                ForgedConnects.awaitSent(hostile);
                mostRoutes = Math.max(mostRoutes, flooded.routeCount());
                exchange(legitimate, 1, 1 + sent);
            }
            assertTrue(mostRoutes <= maxRoutes, "routes held after " + FLOOD + " forged node ids: " + mostRoutes);
            awaitNothingInbound(flooded);
            exchange(legitimate, 1, FLOOD + 1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(180)
    void aFloodFromManyAddressesIsBoundedInTotal(final String provider) throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        try (RaasDriver flooded =
            (RaasDriver)RaasDriver.start(bounded(provider, 1).unusedMax(2 * UNUSED_PER_PEER), directory);
            RaasDriver first = (RaasDriver)RaasDriver.start(context(provider, 2), directory);
            RaasDriver second = (RaasDriver)RaasDriver.start(context(provider, 3), directory);
            RaasDriver third = (RaasDriver)RaasDriver.start(context(provider, 4), directory);
            Raas legitimate = RaasDriver.start(context(provider, 5), directory);
            EchoServer ignored = new EchoServer(flooded))
        {
            int most = 0;
            for (int sent = 0; sent < FLOOD; sent += 50)
            {
                ForgedConnects.send(first, 1, SERVICE, 1_000_000 + sent, 50);
                ForgedConnects.send(second, 1, SERVICE, 2_000_000 + sent, 50);
                ForgedConnects.send(third, 1, SERVICE, 3_000_000 + sent, 50);
                most = Math.max(most, flooded.inboundConnections());
            }
            ForgedConnects.awaitSent(first);
            ForgedConnects.awaitSent(second);
            ForgedConnects.awaitSent(third);
            most = Math.max(most, flooded.inboundConnections());
            assertTrue(most <= 2 * UNUSED_PER_PEER, "three addresses' unused connections held: " + most);
            exchange(legitimate, 1, 1);
            awaitNothingInbound(flooded);
            assertEquals(3L * FLOOD, flooded.unusedConnectionsReclaimed() + flooded.connectRefusals(),
                "every forged connection reclaimed or refused");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(120)
    void aPeerBeyondItsConnectionBoundIsRefusedWithTheReason(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        try (RaasDriver listening = (RaasDriver)RaasDriver.start(bounded(provider, 7), directory);
            Raas peer = RaasDriver.start(context(provider, 8), directory);
            EchoServer ignored = new EchoServer(listening))
        {
            final List<Connection> held = new ArrayList<>();
            for (int i = 0; i < INBOUND_PER_PEER; i++)
            {
                final Connection connection = peer.connect(7, SERVICE, Flags.ADAPTIVE, null);
                roundTrip(connection, i, 64);
                held.add(connection);
            }
            assertEquals(0, listening.connectRefusals());

            final RaasException refused =
                assertThrows(RaasException.class, () -> peer.connect(7, SERVICE, Flags.ADAPTIVE, null));
            assertEquals("node 7 refused the connection to service 1: it holds " + INBOUND_PER_PEER +
                " connections from this peer (limit " + INBOUND_PER_PEER + ")", refused.getMessage());
            assertEquals(1, listening.connectRefusals());

            held.removeFirst().close();
            await(() -> listening.inboundConnections() < INBOUND_PER_PEER, () -> "a place freed");
            exchange(peer, 7, INBOUND_PER_PEER);
            held.forEach(Connection::close);
            awaitNothingInbound(listening);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(120)
    void usedConnectionsBeyondTheAdvertBudgetCarryLargeMessagesWithoutABuffer(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        try (RaasDriver listening =
            (RaasDriver)RaasDriver.start(bounded(provider, 7).inboundAdvertBytes(2L * ADVERT), directory);
            Raas peer = RaasDriver.start(context(provider, 8), directory);
            EchoServer ignored = new EchoServer(listening))
        {
            final Connection unused = peer.connect(7, SERVICE, Flags.ADAPTIVE, null);
            await(() -> listening.unusedInboundConnections() == 1, () -> "the connection accepted");
            assertEquals(0, listening.inboundAdverts(), "an unused connection holds no buffer");

            final List<Connection> used = new ArrayList<>();
            for (int i = 0; i < 4; i++)
            {
                final Connection connection = peer.connect(7, SERVICE, Flags.ADAPTIVE, null);
                for (final int length : new int[] {64, 3000, 10_000, ADVERT / 2})
                {
                    roundTrip(connection, i, length);
                }
                used.add(connection);
            }
            assertEquals(2, listening.inboundAdverts(), "buffers within the budget");
            assertEquals(2L * ADVERT, listening.inboundAdvertisedBytes());
            for (final Connection connection : used)
            {
                roundTrip(connection, 99, ADVERT / 2);
                connection.close();
            }
            unused.close();
            awaitNothingInbound(listening);
        }
    }
}
