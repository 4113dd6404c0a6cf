package io.dkv.verbs.ibv;

import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.VerbsProvider;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Choosing and refusing the {@code verbs} provider: it is found by name beside shm and tcp; where it cannot run, asking
 * for it says exactly why and what to do, and {@code auto} takes the software provider instead; a memlock limit too
 * low for registration is refused with the limit and the {@code ulimit -l} to set; an RNIC port's address is a GID,
 * a LID and an MTU, written and read back as every other provider's.
 */
class IbvProviderTest
{
    private static final long MIB = 1024 * 1024;

    @Test
    void theProviderIsFoundByNameBesideTheSoftwareOnes()
    {
        final VerbsProvider provider = Verbs.provider("verbs");

        assertTrue(provider instanceof IbvProvider, provider.getClass().getName());
        assertEquals(3, Verbs.providers().size(), Verbs.providers().toString());
    }

    @Test
    void askedForWhereItCannotRunItSaysWhyAndAutoTakesTheSoftwareProvider()
    {
        final String reason = Verbs.provider("verbs").unavailableReason(new VerbsContext());
        if (reason == null)
        {
            assertEquals("verbs", Verbs.resolve("auto", new VerbsContext()), "an RNIC is usable here");
            return;
        }
        final String devices = IbvDevices.unavailableReason();
        assertTrue(devices != null ? reason.equals(devices) : reason.contains("ulimit -l"), reason);

        final VerbsException refused =
            assertThrows(VerbsException.class, () -> Verbs.open(new VerbsContext().provider("verbs")));
        assertEquals("verbs provider 'verbs' is not available: " + reason, refused.getMessage());

        assertEquals("shm", Verbs.resolve("auto", new VerbsContext()));
        assertEquals("tcp", Verbs.resolve("tcp", new VerbsContext()));
        final VerbsContext auto = new VerbsContext().provider("auto").conclude();
        assertEquals("shm", auto.provider(), "auto does not outlive conclude()");
    }

    @Test
    void aMemlockLimitTooLowForRegistrationIsRefusedWithTheLimitAndHowToRaiseIt()
    {
        final String shortfall = new MemlockLimit(8 * MIB, 8 * MIB, false).shortfall(256 * MIB);

        assertTrue(shortfall.contains("may lock 8388608 bytes"), shortfall);
        assertTrue(shortfall.contains("ulimit -l says 8192"), shortfall);
        assertTrue(shortfall.contains("268435456 bytes"), shortfall);
        assertTrue(shortfall.contains("'ulimit -l unlimited'"), shortfall);
        assertTrue(shortfall.contains("the hard limit is 8388608 bytes"), shortfall);
        assertTrue(shortfall.contains("LimitMEMLOCK=infinity"), shortfall);
    }

    @Test
    void enoughMemlockUnlimitedOrCapIpcLockIsAccepted()
    {
        assertNull(new MemlockLimit(256 * MIB, 256 * MIB, false).shortfall(256 * MIB));
        assertNull(new MemlockLimit(MemlockLimit.UNLIMITED, MemlockLimit.UNLIMITED, false).shortfall(256 * MIB));
        assertNull(new MemlockLimit(64 * 1024, 64 * 1024, true).shortfall(256 * MIB));
        assertTrue(new MemlockLimit(64 * 1024, MemlockLimit.UNLIMITED, false).shortfall(256 * MIB)
            .endsWith("or give the java binary CAP_IPC_LOCK"));
    }

    @Test
    void thisProcesssLimitIsRead()
    {
        final MemlockLimit limit = MemlockLimit.current();

        assertTrue(limit.soft() == MemlockLimit.UNLIMITED || limit.soft() >= 0, limit.toString());
        assertTrue(limit.describe().startsWith("RLIMIT_MEMLOCK "), limit.describe());
    }

    @Test
    void anRnicPortsAddressIsItsGidLidAndMtu()
    {
        final byte[] gid = HexFormat.of().parseHex("00000000000000000000ffff0a000002");

        final PortAddress address = PortAddress.verbs(gid, 0x1234, 5);

        assertEquals("verbs:00000000000000000000ffff0a00000212340" + "5", address.toString());
        assertEquals(address, PortAddress.parse(address.toString()));
        assertEquals(address, PortAddress.of("verbs", address.bytes()));
        assertArrayEquals(gid, address.verbsGid());
        assertEquals(0x1234, address.verbsLid());
        assertEquals(5, address.verbsMtu());
        final IllegalArgumentException badMtu = assertThrows(IllegalArgumentException.class,
            () -> PortAddress.parse("verbs:00000000000000000000ffff0a000002123409"));
        assertTrue(badMtu.getMessage().contains("verbs address"), badMtu.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PortAddress.verbs(new byte[4], 1, 5));

        final MetaEndpoint endpoint = new MetaEndpoint(1, address, 0x1a2b, 0x5eed);
        assertEquals(endpoint.toString(), MetaEndpoint.parse(endpoint.toString()).toString(),
            "a MetaServer on an RNIC is reached by the endpoint it prints");
    }

    @Test
    void anIpv4MappedGidIsTheOneRoceV2PeersReach()
    {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined())
        {
            final var gid = arena.allocate(16);
            gid.copyFrom(java.lang.foreign.MemorySegment.ofArray(
                HexFormat.of().parseHex("00000000000000000000ffff0a000002")));
            assertTrue(IbvDevice.isIpv4Mapped(gid));
            gid.copyFrom(java.lang.foreign.MemorySegment.ofArray(
                HexFormat.of().parseHex("fe800000000000000202c9fffe0a0b0c")));
            assertTrue(!IbvDevice.isIpv4Mapped(gid));
        }
    }
}
