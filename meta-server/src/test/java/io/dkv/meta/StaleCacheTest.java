package io.dkv.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cached entry of a node that restarted never delivers a request to the wrong node: the node's
 * old address now belongs to another node, whose DC target has the same number but another key,
 * and refuses; the failure drops the entry and the node's new incarnation is reached.
 */
class StaleCacheTest
{
    private static final int MARK = 64;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aStaleEntryIsRefusedByWhoeverHoldsTheOldAddressAndTheNewIncarnationIsReached(final String provider)
    {
        try (MetaServer server = MetaTestSupport.startServer(provider, dir);
            Raas reader = MetaTestSupport.node(provider, 1, server.endpoint()))
        {
            final VerbsContext oldAddress = MetaTestSupport.fixedAddress(provider);
            final RemoteRegion stale;
            final NodeRecord first;
            final Connection connection;
            try (Raas firstIncarnation = MetaTestSupport.node(MetaTestSupport.nodeContext(oldAddress, 2),
                server.endpoint()))
            {
                first = firstIncarnation.self();
                mark(firstIncarnation, firstIncarnation.malloc(2, 4096, "b.data"), "first incarnation of node 2");
                stale = reader.lookup("b.data");
                connection = reader.open(2, null);
                assertEquals("first incarnation of node 2", read(connection, stale));
            }

            try (Raas squatter = MetaTestSupport.node(MetaTestSupport.nodeContext(oldAddress, 3), server.endpoint());
                Raas secondIncarnation = MetaTestSupport.node(provider, 2, server.endpoint()))
            {
                final RemoteRegion squatterRegion = squatter.malloc(3, 4096, "c.data");
                mark(squatter, squatterRegion, "node 3, at node 2's old address");
                assertEquals(first.address(), squatter.self().address(), "node 3 took node 2's old address");
                assertEquals(first.dctNumber(), squatter.self().dctNumber(), "and its DC target has the same number");
                assertNotEquals(first.dcKey(), squatter.self().dcKey(), "only the DC key differs");
                mark(secondIncarnation, secondIncarnation.malloc(2, 4096, "b.data"), "second incarnation of node 2");
                assertNotEquals(first.address(), secondIncarnation.self().address());

                final Connection toSquatter = reader.open(3, null);
                final RemoteRegion squatterSeen = reader.lookup("c.data");
                String seen;
                try
                {
                    seen = read(toSquatter, squatterSeen);
                }
                catch (final RaasException overLinkToPreviousOwner)
                {
                    // over tcp the first request may go out on the link to the address's previous owner, closed since
                    seen = read(toSquatter, squatterSeen);
                }
                assertEquals("node 3, at node 2's old address", seen, "node 3 is reached at that address");

                // the worst case: through the stale entry, a WRITE aimed at memory node 3 really has at that address
                final RemoteRegion aimed =
                    new RemoteRegion("b.data", 2, stale.nodeEpoch(), squatterRegion.address(), squatterRegion.rkey(),
                    squatterRegion.length(), squatterRegion.access(), 1);
                ((RaasDriver)reader).trust(aimed);
                final byte[] evil = "written through a stale entry".getBytes(StandardCharsets.UTF_8);
                final RaasException refused = assertThrows(RaasException.class,
                    () -> connection.write(aimed, 0, MemorySegment.ofArray(evil), 0, evil.length),
                    "a WRITE through the stale entry fails");
                assertTrue(refused.getMessage().contains("REM_ACCESS_ERR"),
                    "refused for its DC key: " + refused.getMessage());
                assertEquals("node 3, at node 2's old address", text(squatter.localMemory(squatterRegion)),
                    "node 3 was not touched");
                assertThrows(RaasException.class, () -> read(connection, stale), "the stale region is refused too");

                final RemoteRegion current = reader.lookup("b.data");
                assertNotEquals(stale, current);
                assertEquals(secondIncarnation.self().dcKey(), MetaTestSupport.directoryOf(reader).node(2).dcKey(),
                    "the entry was read anew");
                assertEquals("second incarnation of node 2", read(reader.open(2, null), current));
                assertEquals("second incarnation of node 2", read(connection, current),
                    "the old connection follows it too");
                // now that the connection goes to the new incarnation, whose keys may be numbered as the old one's were
                final RaasException stillStale = assertThrows(RaasException.class, () -> read(connection, stale),
                    "a region of the old incarnation is refused at the new one too");
                assertTrue(stillStale.getMessage().contains("refused: the region is of incarnation " +
                    stale.nodeEpoch() + " of node 2, which is now at incarnation " + current.nodeEpoch()),
                    stillStale.getMessage());
            }
        }
    }

    private static void mark(final Raas owner, final RemoteRegion region, final String text)
    {
        final byte[] bytes = java.util.Arrays.copyOf(text.getBytes(StandardCharsets.UTF_8), MARK);
        MemorySegment.copy(bytes, 0, owner.localMemory(region), ValueLayout.JAVA_BYTE, 0, MARK);
    }

    private static String read(final Connection connection, final RemoteRegion region)
    {
        final MemorySegment into = MemorySegment.ofArray(new byte[MARK]);
        connection.read(region, 0, into, 0, MARK);
        return text(into);
    }

    private static String text(final MemorySegment memory)
    {
        final byte[] bytes = memory.asSlice(0, MARK).toArray(ValueLayout.JAVA_BYTE);
        int end = 0;
        while (end < bytes.length && bytes[end] != 0)
        {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
