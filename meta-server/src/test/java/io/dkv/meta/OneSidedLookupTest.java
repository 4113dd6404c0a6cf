package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaDirectory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lookups never reach the MetaServer's CPU: a registered node and a published region are found
 * by one-sided READs of its tables, and found again from the cache with no READ at all.
 */
class OneSidedLookupTest
{
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aRegisteredNodeAndAPublishedRegionAreReadOneSidedThenServedFromTheCache(final String provider)
    {
        try (MetaServer server = MetaTestSupport.startServer(provider, dir);
            Raas owner = MetaTestSupport.node(provider, 7, server.endpoint());
            Raas reader = MetaTestSupport.node(provider, 8, server.endpoint()))
        {
            final RemoteRegion published = owner.malloc(owner.self().id(), 4096, "lookup.region");
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(reader);
            final long requestsBefore = server.requestsHandled();
            final long lookupsBefore = directory.tableLookups();

            final NodeRecord found = directory.node(owner.self().id());
            assertNotNull(found);
            assertEquals(owner.self().withLease(found.leaseExpiry()), found, "the record the node registered");
            assertTrue(found.leaseExpiry() > System.currentTimeMillis(), "with a lease running");
            assertEquals(published, directory.region("lookup.region"));
            assertEquals(lookupsBefore + 2, directory.tableLookups(), "one table lookup each");
            assertEquals(requestsBefore, server.requestsHandled(), "and not one RPC: the lookups were one-sided");

            assertEquals(found, directory.node(owner.self().id()));
            assertEquals(published, directory.region("lookup.region"));
            assertEquals(lookupsBefore + 2, directory.tableLookups(), "found again in the cache");

            final RemoteRegion tables = reader.lookup(MetaServer.TABLES_NAME_PREFIX + server.endpoint().nodeId());
            assertEquals(server.tables(), tables, "the tables are listed too, and nodes may only read them");
            assertEquals(io.dkv.verbs.Access.REMOTE_READ, tables.access());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aNodeUnknownAtFirstIsFoundOnceItRegistersAndGoneOnceItLeaves(final String provider)
    {
        try (MetaServer server = MetaTestSupport.startServer(provider, dir);
            Raas reader = MetaTestSupport.node(provider, 8, server.endpoint()))
        {
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(reader);
            assertNull(directory.node(9));
            assertNull(directory.region("late.region"));
            final long epochBefore = server.epoch();
            try (Raas late = MetaTestSupport.node(provider, 9, server.endpoint()))
            {
                late.malloc(late.self().id(), 4096, "late.region");
                assertTrue(server.epoch() > epochBefore, "joining moved the epoch");
                assertEquals(late.self().dcKey(), directory.node(9).dcKey());
                assertNotNull(directory.region("late.region"));
            }
            MetaTestSupport.await("the cache to drop the node that left", java.time.Duration.ofSeconds(5),
                () -> directory.node(9) == null && directory.region("late.region") == null);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void theNodesOfARoleAreListedFromTheTables(final String provider)
    {
        try (MetaServer server = MetaServer.start(
                MetaTestSupport.serverContext(MetaTestSupport.fixedAddress(provider), 100, dir).founders(21, 22));
            Raas memoryA = MetaTestSupport.node(MetaTestSupport.nodeContext(provider, 21).role(NodeRecord.ROLE_MEMORY),
                server.endpoint());
            Raas memoryB = MetaTestSupport.node(MetaTestSupport.nodeContext(provider, 22).role(NodeRecord.ROLE_MEMORY),
                server.endpoint());
            Raas reader = MetaTestSupport.node(provider, 23, server.endpoint()))
        {
            final long requestsBefore = server.requestsHandled();
            assertEquals(Set.of(21L, 22L), reader.nodes(NodeRecord.ROLE_MEMORY).stream().map(NodeRecord::id)
                .collect(Collectors.toSet()));
            assertEquals(List.of(23L), reader.nodes(NodeRecord.ROLE_CLIENT).stream().map(NodeRecord::id).toList());
            assertEquals(requestsBefore, server.requestsHandled(), "listed by one-sided READs");
            memoryB.close();
            MetaTestSupport.await("the node that left to be unlisted", Duration.ofSeconds(5),
                () -> reader.nodes(NodeRecord.ROLE_MEMORY).stream().map(NodeRecord::id).toList().equals(List.of(21L)));
        }
    }
}
