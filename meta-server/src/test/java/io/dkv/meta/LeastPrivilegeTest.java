package io.dkv.meta;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.Access;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MetaServer's tables are registered for remote READ only: a peer that claims more rights for
 * their rkey than it was handed is refused by the NIC itself, as hardware refuses it, and the tables
 * stay as they were.
 */
class LeastPrivilegeTest
{
    private static final CompletionHandler IGNORE = (token, status, value) ->
    {
    };

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void theTablesRefuseZeroLengthWritesAddsOfZeroAndSwapsOfAWordForItself(final String provider)
    {
        try (MetaServer server = MetaTestSupport.startServer(provider, dir);
            Raas peer = MetaTestSupport.node(provider, 7, server.endpoint());
            Arena arena = Arena.ofConfined())
        {
            final RemoteRegion handedOut = peer.lookup(MetaServer.TABLES_NAME_PREFIX + server.endpoint().nodeId());
            assertEquals(Access.REMOTE_READ, handedOut.access());
            final RemoteRegion claimed = new RemoteRegion(handedOut.name(), handedOut.nodeId(), handedOut.nodeEpoch(),
                handedOut.address(), handedOut.rkey(), handedOut.length(), Access.REMOTE_MASK,
                    handedOut.layoutVersion());
            ((RaasDriver)peer).trust(claimed);
            final MemorySegment before = arena.allocate(4096);
            final MemorySegment after = arena.allocate(4096);
            try (Connection connection = peer.open(server.endpoint().nodeId(), IGNORE))
            {
                connection.read(handedOut, 0, before, 0, 4096);
                final long word = before.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                assertRefusedByTheNic(() -> connection.write(claimed, 0, before, 0, 0));
                assertRefusedByTheNic(() -> connection.faa(claimed, 0, 0));
                assertRefusedByTheNic(() -> connection.cas(claimed, 0, word, word));
            }
            try (Connection connection = peer.open(server.endpoint().nodeId(), IGNORE))
            {
                connection.read(handedOut, 0, after, 0, 4096);
            }
            assertArrayEquals(before.toArray(ValueLayout.JAVA_BYTE), after.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    private static void assertRefusedByTheNic(final Executable operation)
    {
        final RaasException refused = assertThrows(RaasException.class, operation);
        assertTrue(refused.getMessage().contains("REM_ACCESS_ERR"), refused.getMessage());
    }
}
