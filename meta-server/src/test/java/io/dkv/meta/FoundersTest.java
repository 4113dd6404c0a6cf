package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static io.dkv.raas.Membership.CLEANUP;
import static io.dkv.raas.Membership.HANDOVER;
import static io.dkv.raas.Membership.FILL;
import static io.dkv.raas.Membership.LIVE;
import static io.dkv.raas.Membership.PLACED;
import static io.dkv.raas.Membership.PLACED_AFTER;
import static io.dkv.raas.Membership.SWITCH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store knows its founders: a memory node that is no member and registers without asking to join founds the
 * store only while it is not founded yet, and only as one of the founders named; once founded, such a registration
 * is refused with CONFLICT, naming the node, the founders and how to join, and the node is not registered. The fact
 * that the store is founded survives a restart and reaches the peer MetaServer.
 */
class FoundersTest
{
    private static final long[] FOUNDERS = {201, 202, 203};
    private static final String REFUSAL_204 = "memory node 204 is no member of this store (founded by 201, 202, " +
        "203): start it with --join to add it by moving keys to it";

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    private static MetaServer start(final Path dir, final long... founders)
    {
        return start(MetaTestSupport.fixedAddress("shm"), dir, founders);
    }

    private static MetaServer start(final VerbsContext address, final Path dir, final long... founders)
    {
        return MetaServer.start(MetaTestSupport.serverContext(address, 100, dir).founders(founders));
    }

    private static MetaRpcException refused(final Executable registration)
    {
        final MetaRpcException refused = assertThrows(MetaRpcException.class, registration);
        assertEquals(MetaRpcDescriptor.STATUS_CONFLICT, refused.status(), refused.getMessage());
        return refused;
    }

    /** The server's reason, as the refusal carries it after the client's own words. */
    private static void assertRefused(final String reason, final Executable registration)
    {
        final String message = refused(registration).getMessage();
        assertTrue(message.endsWith("CONFLICT: " + reason), message);
    }

    @Test
    void aMemoryNodeThatIsNoFounderIsRefusedOnAFoundedStoreNamingTheFoundersAndHowToJoin()
    {
        try (MetaServer server = start(dirA, FOUNDERS);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            for (final long founder : FOUNDERS)
            {
                rpc.register(founder, 1);
            }
            assertArrayEquals(FOUNDERS, server.foundedBy(), "founded once every founder registered");
            assertRefused(REFUSAL_204, () -> rpc.register(204, 1));
            assertNull(server.node(204), "a refused registration registers nothing");
            assertEquals(0, server.membership().state(204));
            // other roles register as before, and members come back as before
            rpc.register(205, NodeRecord.ROLE_CLIENT, 1);
            rpc.register(201, 2);
            assertEquals(Membership.JOINING, server.membership().state(201), "a founder restarted is refilled");
        }
    }

    @Test
    void theFoundersNamedFoundTheStoreAndNoOtherMeanwhile()
    {
        try (MetaServer server = start(dirA, FOUNDERS);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
            rpc.register(201, 1);
            assertNull(server.foundedBy(), "not founded until every founder registered");
            assertRefused("memory node 204 is no founder of this store (founders 201, 202, 203; 202, 203 not " +
                "registered yet): start it with --join to add it by moving keys to it once the store is founded",
                () -> rpc.register(204, 1));
            rpc.registerJoining(204, 1);
            assertRefused("node 204 cannot be added: the store is not founded yet (founders 201, 202, 203; 202, 203 " +
                "not registered yet); ask again once they are (membership epoch " + server.membership().epoch() + ")",
                () -> directory.beginAdd(204));

            rpc.register(202, 1);
            rpc.registerJoining(203, 1);
            directory.beginAdd(203);
            assertEquals(new MemberRecord(203, LIVE, 1, PLACED), server.membershipRecord().member(203),
                "a founder asking to join a store not founded founds it: no keys to move");
            assertArrayEquals(FOUNDERS, server.foundedBy());
            assertEquals(Membership.STEADY, server.membership().phase());
        }
    }

    @Test
    void withNoFoundersNamedTheFirstMemoryNodeFoundsAlone()
    {
        try (MetaServer server = start(dirA);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            rpc.register(201, 1);
            assertArrayEquals(new long[]{201}, server.foundedBy());
            assertRefused("memory node 202 is no member of this store (founded by 201): start it with --join to add " +
                "it by moving keys to it", () -> rpc.register(202, 1));
        }
    }

    @Test
    void aNodeRefusedWithoutJoinIsAddedByAChangeWhenItAsksToJoin()
    {
        try (MetaServer server = start(dirA, FOUNDERS);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
            for (final long founder : FOUNDERS)
            {
                rpc.register(founder, 1);
            }
            refused(() -> rpc.register(204, 1));
            rpc.registerJoining(204, 1);
            final Membership adding = directory.beginAdd(204);
            assertEquals(FILL, adding.phase());
            assertEquals(PLACED_AFTER, adding.placement(204));
        }
    }

    @Test
    void aDrainedFounderThatRegistersAgainIsRefusedRatherThanFoundingAgain()
    {
        try (MetaServer server = start(dirA, FOUNDERS);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
            for (final long founder : FOUNDERS)
            {
                rpc.register(founder, 1);
            }
            drain(directory, 201);
            rpc.deregister(201, 1);
            assertRefused("memory node 201 is no member of this store (founded by 201, 202, 203): start it with " +
                "--join to add it by moving keys to it", () -> rpc.register(201, 2));
        }
    }

    @Test
    void aRestartKeepsTheStoreFoundedWhateverFoundersItNamesAndOneNotFoundedYetWaitsForTheRest()
    {
        final VerbsContext address = MetaTestSupport.fixedAddress("shm");
        try (MetaServer server = start(address, dirA, FOUNDERS);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            rpc.register(201, 1);
            rpc.register(202, 1);
        }
        try (MetaServer server = start(address, dirA, FOUNDERS);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            assertNull(server.foundedBy(), "two founders of three registered before the restart");
            refused(() -> rpc.register(204, 1));
            rpc.register(203, 1);
            assertArrayEquals(FOUNDERS, server.foundedBy());
        }
        try (MetaServer server = start(address, dirA, 204);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            assertArrayEquals(FOUNDERS, server.foundedBy(), "kept in the store: founders named later change nothing");
            assertRefused(REFUSAL_204, () -> rpc.register(204, 1));
        }
    }

    @Test
    void thePeerLearnsTheStoreIsFoundedEvenWhereItsMembershipAloneWouldNotSaySo()
    {
        try (MetaTestSupport.Pair pair = MetaTestSupport.startPair("shm", dirA, dirB, FOUNDERS))
        {
            try (Raas caller = MetaTestSupport.node("shm", 1, pair.a().endpoint(), pair.b().endpoint());
                MemberRpc rpc = new MemberRpc(caller, pair.a().endpoint().nodeId(), SystemEpochClock.INSTANCE))
            {
                final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
                for (final long founder : FOUNDERS)
                {
                    rpc.register(founder, 1);
                }
                assertArrayEquals(FOUNDERS, pair.b().foundedBy(), "the founding reached B with the last founder");
                drain(directory, 201);
                rpc.deregister(201, 1);
            }
            // A restarts with no store at all: the members it takes from B (202, 203) do not show the store
            // founded, since founder 201 left; B's state transfer says so
            final io.dkv.raas.meta.MetaEndpoint endpointA = pair.a().endpoint();
            pair.a().close();
            deleteRecursively(dirA);
            try (MetaServer a = MetaServer.start(MetaTestSupport.serverContext(pair.addressA(), 101, dirA)
                    .peer(pair.b().endpoint()).founders(FOUNDERS).dcKey(endpointA.dcKey()));
                Raas caller = MetaTestSupport.node("shm", 2, a.endpoint());
                MemberRpc rpc = new MemberRpc(caller, a.endpoint().nodeId(), SystemEpochClock.INSTANCE))
            {
                MetaTestSupport.await("A to take B's state", Duration.ofSeconds(5),
                    () -> a.membershipRecord().member(202) != null);
                assertArrayEquals(FOUNDERS, a.foundedBy());
                refused(() -> rpc.register(201, 2));
                assertNull(pair.b().node(201), "refused at A: nothing reached B");
            }
        }
    }

    private static void drain(final MetaDirectory directory, final long nodeId)
    {
        directory.beginDrain(nodeId);
        directory.advanceMembership(FILL);
        directory.advanceMembership(SWITCH);
        directory.advanceMembership(HANDOVER);
        assertEquals(0, directory.advanceMembership(CLEANUP).state(nodeId), "drained");
    }

    private static void deleteRecursively(final Path dir)
    {
        try (var paths = java.nio.file.Files.walk(dir))
        {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
