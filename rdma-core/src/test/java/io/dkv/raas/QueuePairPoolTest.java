package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The QP pool: requests start on the shared DC initiators; a peer that turns hot is promoted to an
 * RC queue pair of a bounded pool, and demoted when it goes idle; nothing is lost on the way.
 */
class QueuePairPoolTest
{
    /** Promoted to RC by a hundred requests within ten seconds: soon after it starts, however loaded the host. */
    private static RaasContext hot(final RaasContext context)
    {
        return context.rcPromoteRequests(100).rcPromoteWindowMs(10_000);
    }

    private static void await(final Raas raas, final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean())
        {
            raas.poll();
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("waited 10 s for " + what);
            }
            Thread.onSpinWait();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aHotPeerIsPromotedToRcAndDemotedWhenIdle(final String provider)
    {
        try (RaasPair pair =
            new RaasPair(provider, context -> context.rcPromoteRequests(200).rcPromoteWindowMs(10_000).rcIdleMs(200)))
        {
            final RaasDriver a = (RaasDriver)pair.a;
            final RaasDriver b = (RaasDriver)pair.b;
            final long target = pair.b.self().id();
            final RemoteRegion region = pair.publishedByB("hot", 4096);
            final Connection connection = pair.a.open(target, null);
            assertFalse(a.usesRc(target), "a new peer is reached over DC");

            long increments = 0;
            while (!a.usesRc(target) && increments < 100_000)
            {
                connection.faa(region, 0, 1);
                increments++;
            }
            assertTrue(a.usesRc(target), "promoted after " + increments + " requests");
            assertEquals(1, a.rcQueuePairs());
            assertEquals(1, b.rcQueuePairs(), "the peer holds the other end");
            for (int i = 0; i < 1000; i++)
            {
                connection.faa(region, 0, 1);
            }
            increments += 1000;
            assertEquals(increments, connection.faa(region, 0, 0), "nothing lost across the switch");

            await(pair.a, () -> a.rcQueuePairs() == 0 && !a.usesRc(target), "demotion after 200 ms idle");
            await(pair.b, () -> b.rcQueuePairs() == 0, "the peer closing its end");
            assertEquals(increments, connection.faa(region, 0, 0), "DC again");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void theEndThatOnlyServesNeverClosesTheQueuePairUnderItsPeer(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider, context -> hot(context).rcIdleMs(50)))
        {
            final RaasDriver a = (RaasDriver)pair.a;
            final long target = pair.b.self().id();
            final RemoteRegion region = pair.publishedByB("served", 4096);
            final Connection connection = pair.a.open(target, null);
            long increments = 0;
            final long end = System.nanoTime() + 2_000_000_000L;
            boolean promoted = false;
            while (System.nanoTime() < end)
            {
                connection.faa(region, 0, 1);
                increments++;
                promoted |= a.usesRc(target);
            }
            assertTrue(promoted, "the hot peer was promoted");
            assertEquals(increments, connection.faa(region, 0, 0),
                "two seconds of requests (forty times the idle limit of the serving end) all counted, none failed");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aPeerClosingItsQueuePairClosesNoOtherPeersWhoseQueuePairHasTheSameNumber(final String provider)
    {
        // two clients made alike number their queue pairs alike: the server holds two RC queue pairs
        // whose peers' numbers are equal, and must tell them apart by the peer too
        final StaticDirectory directory = new StaticDirectory();
        try (Raas server = RaasDriver.start(RaasPair.context(provider, 2), directory);
            Raas busy = RaasDriver.start(hot(RaasPair.context(provider, 1)), directory);
            Raas leaving = RaasDriver.start(hot(RaasPair.context(provider, 3)).rcIdleMs(100), directory))
        {
            final long target = server.self().id();
            final RemoteRegion region = RaasPair.published(server, busy, "shared", 4096);
            final Connection busyConnection = busy.open(target, null);
            final Connection leavingConnection = leaving.open(target, null);
            long increments = 0;
            while (!(((RaasDriver)busy).usesRc(target) && ((RaasDriver)leaving).usesRc(target)) && increments < 100_000)
            {
                busyConnection.faa(region, 0, 1);
                leavingConnection.faa(leaving.lookup("shared"), 8, 1);
                increments++;
            }
            assertTrue(((RaasDriver)busy).usesRc(target) && ((RaasDriver)leaving).usesRc(target),
                "both clients promoted");
            assertEquals(2, ((RaasDriver)server).rcQueuePairs());

            // the leaving client goes idle and gives its queue pair back; the busy one never stops
            final long end = System.nanoTime() + 1_500_000_000L;
            while (System.nanoTime() < end)
            {
                busyConnection.faa(region, 0, 1);
                increments++;
                leaving.poll();
            }
            await(server, () -> ((RaasDriver)server).rcQueuePairs() == 1,
                "the server closing the leaving client's queue pair");
            assertFalse(((RaasDriver)leaving).usesRc(target), "the idle client is back on DC");
            assertTrue(((RaasDriver)busy).usesRc(target), "the busy client keeps its queue pair");
            assertEquals(increments, busyConnection.faa(region, 0, 0),
                "every request of the busy client counted, none failed");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aPeerThatRefusesAnRcQueuePairIsNotAskedAgainOnEveryRequest(final String provider)
    {
        // a queue pair is a costly thing to make and drop (a file mapped and unmapped on shm): a hot
        // peer that says no must not be asked again with every request that follows
        final StaticDirectory directory = new StaticDirectory();
        try (Raas full = RaasDriver.start(RaasPair.context(provider, 2).rcPoolSize(0), directory);
            Raas asking = RaasDriver.start(hot(RaasPair.context(provider, 1)), directory))
        {
            final long target = full.self().id();
            final RemoteRegion region = RaasPair.published(full, asking, "counted", 4096);
            final Connection connection = asking.open(target, null);
            for (int i = 0; i < 20_000; i++)
            {
                connection.faa(region, 0, 1);
            }
            final RaasDriver driver = (RaasDriver)asking;
            assertFalse(driver.usesRc(target), "the peer has no room for an RC queue pair");
            assertEquals(0, driver.rcQueuePairs());
            assertTrue(driver.rcPromotions() >= 1 && driver.rcPromotions() <= 2,
                "asked " + driver.rcPromotions() +
                " times in 20,000 requests; after a refusal the peer stays on DC for a while");
            assertEquals(20_000, connection.faa(region, 0, 0), "every request went over DC");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aConnectionThatForcesRcGetsItOnceThePeerHasRoom(final String provider)
    {
        // the peer's pool holds one RC queue pair, taken by another client: asked at connect, it refuses;
        // the connection still wants RC, so it is asked again until the peer has room
        final StaticDirectory directory = new StaticDirectory();
        try (Raas server = RaasDriver.start(RaasPair.context(provider, 2).rcPoolSize(1), directory);
            Raas other = RaasDriver.start(hot(RaasPair.context(provider, 3)).rcIdleMs(300), directory);
            Raas client = RaasDriver.start(RaasPair.context(provider, 1), directory))
        {
            final long target = server.self().id();
            server.listen(1);
            final RemoteRegion region = RaasPair.published(server, other, "taken", 4096);
            final Connection otherConnection = other.open(target, null);
            while (!((RaasDriver)other).usesRc(target))
            {
                otherConnection.faa(region, 0, 1);
            }
            await(server, () -> ((RaasDriver)server).rcQueuePairs() == 1,
                "the other client holding the peer's one RC queue pair");

            client.connect(target, 1, Flags.FORCE_RC, null);
            final RaasDriver driver = (RaasDriver)client;
            await(client, () -> driver.rcPromotions() >= 1, "the connection asking for RC");
            assertFalse(driver.usesRc(target), "refused while the peer's pool is full");

            // the other client goes idle: its queue pair is demoted and the peer has room again
            await(client, () -> driver.usesRc(target), "RC for the connection that asked for it");
            assertTrue(driver.rcPromotions() >= 2, "asked again after the refusal");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void forcingRcPromotesAtConnectAndThePoolStaysBounded(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        final List<Raas> peers = new ArrayList<>();
        try (Raas hub = RaasDriver.start(RaasPair.context(provider, 100).rcPoolSize(2).rcPromoteRequests(0), directory))
        {
            try
            {
                for (int i = 1; i <= 4; i++)
                {
                    final Raas peer = RaasDriver.start(RaasPair.context(provider, i), directory);
                    peers.add(peer);
                    peer.listen(1);
                }
                final List<Connection> connections = new ArrayList<>();
                for (final Raas peer : peers)
                {
                    connections.add(hub.connect(peer.self().id(), 1, Flags.FORCE_RC, null));
                }
                final RaasDriver driver = (RaasDriver)hub;
                await(hub, () -> driver.rcQueuePairs() == 2, "two RC queue pairs");
                final MemorySegment message = MemorySegment.ofArray(new byte[]{1, 2, 3});
                for (final Connection connection : connections)
                {
                    connection.send(message, 0, 3, Flags.ADAPTIVE);
                }
                assertEquals(2, driver.rcQueuePairs(), "the pool holds at most rcPoolSize");
                final long overRc = peers.stream().filter(peer -> driver.usesRc(peer.self().id())).count();
                assertEquals(2, overRc);
            }
            finally
            {
                peers.forEach(Raas::close);
            }
        }
    }
}
