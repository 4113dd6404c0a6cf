package io.dkv.meta;

import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node stays registered while it renews its lease; one that stops renewing is removed with its
 * regions once the lease runs out, and the removal moves the epoch so that cached entries go. Leases are the server's
 * clocks' to grant and judge: moved by a test, they decide alone.
 */
class LeaseExpiryTest
{
    private static final int LEASE_MS = 600;
    /** Far ahead of the real clock: nothing granted by that one could pass for a grant by the test's. */
    private static final long YEAR_2100_MILLIS = 4_102_444_800_000L;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aNodeThatStopsRenewingIsRemovedWithItsRegionsAndTheEpochMoves(final String provider) throws Exception
    {
        final MetaServerContext context =
            MetaTestSupport.serverContext(MetaTestSupport.fixedAddress(provider), 100, dir).leaseMs(LEASE_MS);
        try (MetaServer server = MetaServer.start(context);
            Raas observer = MetaTestSupport.node(provider, 1, server.endpoint());
            Raas renewing = RaasDriver.start(MetaTestSupport.nodeContext(provider, 2),
                new MetaDirectory(MetaTestSupport.directoryContext(server.endpoint()).heartbeatMs(LEASE_MS / 4)));
            // registers, then never renews: as a node that hangs or dies without a word
            Raas silent = RaasDriver.start(MetaTestSupport.nodeContext(provider, 3),
                new MetaDirectory(MetaTestSupport.directoryContext(server.endpoint()).heartbeatMs(3_600_000))))
        {
            renewing.malloc(renewing.self().id(), 4096, "renewing.region");
            silent.malloc(silent.self().id(), 4096, "silent.region");
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(observer);
            assertNotNull(directory.node(3));
            assertNotNull(directory.region("silent.region"));
            final long epochBefore = server.epoch();
            final long leaseBefore = ((MetaDirectory)MetaTestSupport.directoryOf(renewing)).leaseExpiry();

            MetaTestSupport.await("the silent node's removal", Duration.ofSeconds(5), () -> server.node(3) == null);
            assertNull(server.region("silent.region"), "its region went with it");
            assertTrue(server.epoch() > epochBefore, "the removal moved the epoch");
            MetaTestSupport.await("the observer's cache to forget the silent node", Duration.ofSeconds(2),
                () -> directory.node(3) == null && directory.region("silent.region") == null);

            Thread.sleep(3L * LEASE_MS);
            assertNotNull(server.node(2), "the renewing node outlived several leases");
            assertNotNull(directory.node(2));
            assertNotNull(directory.region("renewing.region"));
            assertTrue(((MetaDirectory)MetaTestSupport.directoryOf(renewing)).leaseExpiry() > leaseBefore +
                2L * LEASE_MS, "its lease moved on");
        }
    }

    @Test
    void aNodeRemovedWhileAliveRegistersAgainWithItsRegionsOnItsNextRenewal()
    {
        final String provider = "shm";
        final MetaServerContext context =
            MetaTestSupport.serverContext(MetaTestSupport.fixedAddress(provider), 100, dir).leaseMs(LEASE_MS);
        final MetaDirectoryContext slowRenewal = MetaTestSupport.directoryContext().heartbeatMs(3 * LEASE_MS);
        try (MetaServer server = MetaServer.start(context);
            Raas late = RaasDriver.start(MetaTestSupport.nodeContext(provider, 4),
                new MetaDirectory(slowRenewal.endpoints(server.endpoint()))))
        {
            late.malloc(late.self().id(), 4096, "late.region");
            MetaTestSupport.await("the late node's removal", Duration.ofSeconds(5), () -> server.node(4) == null);
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(late);
            MetaTestSupport.await("the late node's return", Duration.ofSeconds(10),
                () -> server.node(4) != null && server.region("late.region") != null,
                () -> "last renewal failure: " + directory.lastHeartbeatFailure());
        }
    }

    @Test
    void aNodeRegisteredAgainPublishesEveryRegionItCanAndKeepsTryingTheOneWhoseNameWasTaken()
    {
        final int leaseMs = 3_600_000;
        final CachedEpochClock epochClock = new CachedEpochClock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        epochClock.update(YEAR_2100_MILLIS);
        final MetaServerContext context = MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dir)
            .leaseMs(leaseMs).leaseCheckMs(60_000).idleConnectionMs(Integer.MAX_VALUE)
            .epochClock(epochClock).nanoClock(nanoClock);
        // renewed by the test alone, so that the server forgets the node and takes it back when the test says
        final MetaDirectoryContext byHand =
            MetaTestSupport.directoryContext().heartbeatMs(3_600_000).epochClock(epochClock);
        try (MetaServer server = MetaServer.start(context);
            Raas late = RaasDriver.start(MetaTestSupport.nodeContext("shm", 7),
                new MetaDirectory(byHand.endpoints(server.endpoint())));
            Raas other = RaasDriver.start(MetaTestSupport.nodeContext("shm", 8),
                new MetaDirectory(MetaTestSupport.directoryContext().heartbeatMs(3_600_000).epochClock(epochClock)
                    .endpoints(server.endpoint()))))
        {
            final String[] names = {"late.a", "late.b", "late.c", "late.d"};
            for (final String name : names)
            {
                late.malloc(late.self().id(), 4096, name);
            }
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(late);
            final MetaDirectory othersDirectory = (MetaDirectory)MetaTestSupport.directoryOf(other);
            for (int step = 0; step < 7; step++)
            {
                epochClock.advance(leaseMs / 6);
                MetaTestSupport.advanceAndAwaitLeaseCheck(server, nanoClock,
                    TimeUnit.MILLISECONDS.toNanos(leaseMs) / 6);
                othersDirectory.renew();
                assertNull(othersDirectory.lastHeartbeatFailure());
            }
            MetaTestSupport.await("the late node's removal", Duration.ofSeconds(5), () -> server.node(7) == null);
            assertNotNull(server.node(8), "the node that renewed stays");
            assertEquals(1L, server.counter(MetaServerCounter.LEASES_RUN_OUT));
            // every name is free while the late node is forgotten: another node takes one of them
            final RemoteRegion taken = other.malloc(other.self().id(), 4096, "late.b");

            directory.renew();
            assertNotNull(server.node(7), "registered again at its next renewal");
            for (final String name : List.of("late.a", "late.c", "late.d"))
            {
                assertEquals(7L, server.region(name).nodeId(), name + " published again, the refused one aside");
            }
            assertEquals(8L, server.region("late.b").nodeId());
            assertEquals(List.of("late.b"), directory.owedRegions());
            assertTrue(directory.lastHeartbeatFailure().contains("late.b"), directory.lastHeartbeatFailure());

            other.free(taken);
            directory.renew();
            assertEquals(7L, server.region("late.b").nodeId(), "taken back once its name was free");
            assertEquals(List.of(), directory.owedRegions());
            assertNull(directory.lastHeartbeatFailure());
        }
    }

    @Test
    void leasesAreGrantedCheckedAndExpiredByTheServersClocksNotTheHosts()
    {
        final int leaseMs = 3_600_000;
        final int leaseCheckMs = 60_000;
        final CachedEpochClock epochClock = new CachedEpochClock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        epochClock.update(YEAR_2100_MILLIS);
        final MetaServerContext context = MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dir)
            .leaseMs(leaseMs).leaseCheckMs(leaseCheckMs).epochClock(epochClock).nanoClock(nanoClock);
        // the node's frames are stamped by the same clock, or the server would refuse them as stale
        final MetaDirectoryContext silentRenewal =
            MetaTestSupport.directoryContext().heartbeatMs(3_600_000).epochClock(epochClock);
        try (MetaServer server = MetaServer.start(context);
            Raas silent = RaasDriver.start(MetaTestSupport.nodeContext("shm", 5),
                new MetaDirectory(silentRenewal.endpoints(server.endpoint()))))
        {
            silent.malloc(silent.self().id(), 4096, "silent.region");
            assertEquals(YEAR_2100_MILLIS + leaseMs, server.node(5).leaseExpiry(), "granted by the server's clock");

            // in steps the server checks one by one: a single jump of a lease would be its own stall (below)
            for (int step = 0; step < 7; step++)
            {
                epochClock.advance(leaseMs / 6);
                MetaTestSupport.advanceAndAwaitLeaseCheck(server, nanoClock,
                    TimeUnit.MILLISECONDS.toNanos(leaseMs) / 6);
            }
            MetaTestSupport.await("the node's removal once its lease's length passed unrenewed", Duration.ofSeconds(5),
                () -> server.node(5) == null);
            assertNull(server.region("silent.region"), "its region went with it");
        }
    }

    @Test
    void aServerThatStalledPastALeaseExpiresNoneAndEveryLeaseRunsAnewFromItsResume()
    {
        // a MetaServer stopped (SIGSTOP, a VM paused) past a lease heard no renewal meanwhile: judging by that, it
        // declared every memory node down at once on resume, and no copy could refill from another
        final int leaseMs = 3_600_000;
        final CachedNanoClock nanoClock = new CachedNanoClock();
        final MetaServerContext context = MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dir)
            .leaseMs(leaseMs).leaseCheckMs(60_000).nanoClock(nanoClock);
        try (MetaServer server = MetaServer.start(context);
            Raas silent = RaasDriver.start(MetaTestSupport.nodeContext("shm", 6),
                new MetaDirectory(MetaTestSupport.directoryContext().heartbeatMs(3_600_000)
                    .endpoints(server.endpoint()))))
        {
            assertNotNull(server.node(6));
            MetaTestSupport.advanceAndAwaitLeaseCheck(server, nanoClock, TimeUnit.MILLISECONDS.toNanos(leaseMs) + 1);
            assertNotNull(server.node(6), "no lease lapses for a time the server was not listening");
            assertEquals(1, server.counter(MetaServerCounter.OWN_STALLS), "the gap in its checks seen as a stall");

            for (int step = 0; step < 5; step++)
            {
                MetaTestSupport.advanceAndAwaitLeaseCheck(server, nanoClock,
                    TimeUnit.MILLISECONDS.toNanos(leaseMs) / 6);
            }
            assertNotNull(server.node(6), "five sixths of a lease after the resume");
            assertEquals(1, server.counter(MetaServerCounter.OWN_STALLS), "checks a sixth of a lease apart: no stall");
            MetaTestSupport.advanceAndAwaitLeaseCheck(server, nanoClock, TimeUnit.MILLISECONDS.toNanos(leaseMs) / 6);
            MetaTestSupport.advanceAndAwaitLeaseCheck(server, nanoClock, TimeUnit.MILLISECONDS.toNanos(leaseMs) / 6);
            MetaTestSupport.await("the silent node's removal a lease after the resume", Duration.ofSeconds(5),
                () -> server.node(6) == null);
        }
    }
}
