package io.dkv.meta;

import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaDirectory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two MetaServers: a write is on both when it is acknowledged; with one down, nodes keep reading,
 * writing and renewing through the other, and the one that returns takes the other's state.
 */
class ReplicationTest
{
    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aWriteIsOnBothServersWhenItIsAcknowledged(final String provider)
    {
        try (MetaTestSupport.Pair pair = MetaTestSupport.startPair(provider, dirA, dirB))
        {
            assertTrue(pair.a().snapshotsInstalled() >= 1, "A took the state of B, which served longer");
            // B counts the transfer once its last frame is out, which may be after A installed it and started
            MetaTestSupport.await("B to count the state it sent A", Duration.ofSeconds(10),
                () -> pair.b().snapshotsSent() >= 1);
            try (Raas node = MetaTestSupport.node(provider, 9, pair.a().endpoint(), pair.b().endpoint()))
            {
                assertNotNull(pair.a().node(9));
                assertNotNull(pair.b().node(9), "the registration reached B before it was acknowledged");
                final RemoteRegion region = node.malloc(node.self().id(), 4096, "replicated.region");
                assertEquals(region, pair.a().region("replicated.region"));
                assertEquals(region, pair.b().region("replicated.region"));
                node.free(region);
                assertNull(pair.a().region("replicated.region"));
                assertNull(pair.b().region("replicated.region"));
            }
            assertNull(pair.a().node(9));
            assertNull(pair.b().node(9), "so did the deregistration");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void nodesKeepWorkingWithOneServerDownAndTheServerCatchesUpWhenItReturns(final String provider)
    {
        final MetaTestSupport.Pair pair = MetaTestSupport.startPair(provider, dirA, dirB);
        final MetaServer b = pair.b();
        MetaServer a = pair.a();
        try (Raas writer = MetaTestSupport.node(provider, 21, a.endpoint(), b.endpoint());
            Raas reader = MetaTestSupport.node(provider, 22, a.endpoint(), b.endpoint()))
        {
            final MetaDirectory readerDirectory = (MetaDirectory)MetaTestSupport.directoryOf(reader);
            final MetaDirectory writerDirectory = (MetaDirectory)MetaTestSupport.directoryOf(writer);
            final RemoteRegion before = writer.malloc(writer.self().id(), 4096, "before.region");
            assertEquals(before, reader.lookup("before.region"));
            assertEquals(a.endpoint().nodeId(), readerDirectory.currentServer(), "reads go to the first server");

            a.close();
            final RemoteRegion during = writer.malloc(writer.self().id(), 4096, "during.region");
            assertEquals(during, b.region("during.region"), "B acknowledged the write alone");
            assertEquals(during, reader.lookup("during.region"), "and reads moved to B");
            assertEquals(b.endpoint().nodeId(), readerDirectory.currentServer());
            assertNotNull(readerDirectory.node(writer.self().id()));
            final long lease = writerDirectory.leaseExpiry();
            MetaTestSupport.await("the writer to renew its lease with B", Duration.ofSeconds(5),
                () -> writerDirectory.leaseExpiry() > lease,
                () -> "last failure: " + writerDirectory.lastHeartbeatFailure());

            a = pair.restartA();
            assertEquals(during, a.region("during.region"), "A took B's state before serving");
            assertNotNull(a.node(writer.self().id()));
            assertTrue(a.snapshotsInstalled() >= 1);
            try (Raas onlyA = MetaTestSupport.node(provider, 23, a.endpoint()))
            {
                assertEquals(during, onlyA.lookup("during.region"), "read one-sided from A's own tables");
            }

            final RemoteRegion after = writer.malloc(writer.self().id(), 4096, "after.region");
            assertEquals(after, a.region("after.region"));
            assertEquals(after, b.region("after.region"));
        }
        finally
        {
            a.close();
            b.close();
        }
    }
}
