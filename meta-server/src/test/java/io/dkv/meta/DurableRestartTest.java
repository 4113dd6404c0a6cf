package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A MetaServer restarted on the same data directory and device address has the same endpoint and
 * serves, one-sided, the records it had; nodes that were registered carry on with it.
 */
class DurableRestartTest
{
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aRestartedServerKeepsItsEndpointAndServesTheRecordsItHad(final String provider) throws Exception
    {
        final VerbsContext address = MetaTestSupport.fixedAddress(provider);
        final MetaServer first = MetaServer.start(MetaTestSupport.serverContext(address, 100, dir));
        final MetaEndpoint endpoint = first.endpoint();
        assertEquals(endpoint, MetaEndpoint.parse(Files.readString(dir.resolve(MetaServer.ENDPOINT_FILE))),
            "the endpoint file");
        final RemoteRegion firstTables = first.tables();
        final NodeRecord registered;
        final RemoteRegion published;
        try (Raas member = MetaTestSupport.node(provider, 5, endpoint))
        {
            published = member.malloc(member.self().id(), 8192, "durable.region");
            registered = first.node(member.self().id());
            first.close();

            try (MetaServer second = MetaServer.start(MetaTestSupport.serverContext(address, 100, dir)))
            {
                assertEquals(endpoint, second.endpoint(), "same node id, device address and DC key: same endpoint");
                assertNotEquals(firstTables, second.tables(), "the tables are new memory");
                try (Raas newcomer = MetaTestSupport.node(provider, 6, endpoint))
                {
                    final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(newcomer);
                    final NodeRecord read = directory.node(member.self().id());
                    assertNotNull(read, "the member's record survived the restart");
                    assertEquals(registered.withLease(read.leaseExpiry()), read);
                    assertEquals(published, directory.region("durable.region"));
                    assertEquals(published, newcomer.lookup("durable.region"));
                }
                final MetaDirectory memberDirectory = (MetaDirectory)MetaTestSupport.directoryOf(member);
                final long lease = memberDirectory.leaseExpiry();
                MetaTestSupport.await("the member to renew its lease with the restarted server", Duration.ofSeconds(10),
                    () -> memberDirectory.leaseExpiry() > lease,
                    () -> "last failure: " + memberDirectory.lastHeartbeatFailure());
            }
        }
    }
}
