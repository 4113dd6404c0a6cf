package io.dkv.raas;

import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A region is registered with the remote rights its users need and no more: the NIC refuses the
 * rest whatever a peer claims, no rkey is handed out with rights its memory was not registered for,
 * and a peer gets none of a node's memory unless the node sets some aside for peers.
 */
class RegionRightsTest
{
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aReadOnlyRegionRefusesWritesAndAtomicsAtTheNicWhateverRightsAPeerClaims(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RemoteRegion owned = pair.b.malloc(pair.b.self().id(), 4096, "read-only", Access.REMOTE_READ);
            assertEquals(Access.REMOTE_READ, pair.a.lookup("read-only").access());
            pair.b.localMemory(owned).fill((byte)7);
            final RemoteRegion claimed = new RemoteRegion(owned.name(), owned.nodeId(), owned.nodeEpoch(),
                owned.address(),
                owned.rkey(), owned.length(), Access.REMOTE_MASK, owned.layoutVersion());
            ((RaasDriver)pair.a).trust(claimed);
            final MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
            try (Connection connection = pair.a.open(pair.b.self().id(), null))
            {
                connection.read(claimed, 0, buffer, 0, 64);
                assertEquals(7, buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63));
            }
            assertRefusedByTheNic(pair, claimed, connection -> connection.write(claimed, 0, buffer, 0, 8));
            assertRefusedByTheNic(pair, claimed, connection -> connection.faa(claimed, 8, 1));
            assertRefusedByTheNic(pair, claimed, connection -> connection.cas(claimed, 8, 0x0707070707070707L, 1));
            assertEquals(4096, countOf(pair.b.localMemory(owned), (byte)7), "the region is as it was");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void rightsThatAreNotRemoteOrNoRightsAtAllAreRefusedNamingThem(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider))
        {
            final RaasException local = assertThrows(RaasException.class,
                () -> pair.b.malloc(pair.b.self().id(), 4096, "local", Access.LOCAL_WRITE | Access.REMOTE_READ));
            assertTrue(local.getMessage().contains("'local' asks for access LOCAL_WRITE|REMOTE_READ"),
                local.getMessage());
            final RaasException none = assertThrows(RaasException.class,
                () -> pair.b.malloc(pair.b.self().id(), 4096, "none", 0));
            assertTrue(none.getMessage().contains("access NONE"), none.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anRkeyIsNotHandedOutWithRightsItsMemoryWasNotRegisteredFor(final String provider)
    {
        try (var device = Verbs.open(new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0")))
        {
            final ProtectionDomain pd = device.allocPd();
            final MemoryRegion memory = pd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
            assertEquals(Access.REMOTE_READ, RemoteRegion.of(memory, "ro", 1, 1, Access.REMOTE_READ, 1).access());
            final IllegalArgumentException widened = assertThrows(IllegalArgumentException.class,
                () -> RemoteRegion.of(memory, "ro", 1, 1, Access.REMOTE_READ | Access.REMOTE_WRITE, 1));
            assertTrue(widened.getMessage().contains(
                "registered for LOCAL_WRITE|REMOTE_READ: its rkey cannot be handed out with REMOTE_WRITE|REMOTE_READ"),
                widened.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aPeerGetsNoneOfANodesMemoryBeyondWhatTheNodeSetsAsideForPeers(final String provider)
    {
        try (RaasPair stingy = new RaasPair(provider))
        {
            final RaasException refused = assertThrows(RaasException.class,
                () -> stingy.a.malloc(stingy.b.self().id(), 4096, "asked", Access.REMOTE_READ));
            assertTrue(refused.getMessage().contains("remoteMallocBytes"), refused.getMessage());
        }
        try (RaasPair generous = new RaasPair(provider, context -> context.remoteMallocBytes(64 * 1024)))
        {
            final RemoteRegion granted = generous.a.malloc(generous.b.self().id(), 32 * 1024, "granted",
                Access.REMOTE_READ);
            assertEquals(Access.REMOTE_READ, granted.access());
            assertEquals(granted, generous.a.lookup("granted"));
            assertThrows(RaasException.class,
                () -> generous.a.malloc(generous.b.self().id(), 64 * 1024, "beyond", Access.REMOTE_READ));
        }
    }

    private static void assertRefusedByTheNic(
        final RaasPair pair, final RemoteRegion region, final java.util.function.Consumer<Connection> operation)
    {
        try (Connection connection = pair.a.open(region.nodeId(), null))
        {
            final RaasException refused = assertThrows(RaasException.class, () -> operation.accept(connection));
            assertTrue(refused.getMessage().contains("REM_ACCESS_ERR"), refused.getMessage());
        }
    }

    private static int countOf(final MemorySegment memory, final byte value)
    {
        int count = 0;
        for (long i = 0; i < memory.byteSize(); i++)
        {
            count += memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) == value ? 1 : 0;
        }
        return count;
    }
}
