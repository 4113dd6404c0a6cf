package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.dkv.raas.Membership.PLACED;
import static io.dkv.raas.Membership.DOWN;
import static io.dkv.raas.Membership.JOINING;
import static io.dkv.raas.Membership.LIVE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MetaServer keeps the memory tier's membership: a memory node that registers joins it, one
 * that goes (deregistering, or silent past its lease) is down and stays a member, one that comes back
 * or restarts is joining when other members hold its copies and live when none do, and a joining
 * member becomes live when told so for the incarnation it joined as. Clients read it one-sided.
 */
class MembershipTest
{
    private static final long MEMORY = 301;
    private static final long COMPUTE = 401;
    /** Far ahead of the real clock: nothing granted by that one could pass for a grant by the test's. */
    private static final long YEAR_2100_MILLIS = 4_102_444_800_000L;

    @TempDir
    Path dir;

    private static MemberRecord member(final MetaServer server, final long nodeId)
    {
        return server.membershipRecord().member(nodeId);
    }

    private MetaServerContext context(final int replicas)
    {
        return MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dir).replicas(replicas)
            .founders(MEMORY, MEMORY + 1, MEMORY + 2);
    }

    @Test
    void withOneCopyAMemoryNodeJoinsLiveGoesDownOnDeregisteringAndComesBackLive()
    {
        try (MetaServer server = MetaServer.start(context(1));
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final long before = server.membershipRecord().epoch();
            rpc.register(MEMORY, 5);
            rpc.register(COMPUTE, NodeRecord.ROLE_COMPUTE, 1);
            assertEquals(new MemberRecord(MEMORY, LIVE, 5), member(server, MEMORY), "never a member: it joins live");
            assertNull(member(server, COMPUTE), "only memory nodes are members");
            assertNull(member(server, caller.self().id()));
            assertEquals(before + 1, server.membershipRecord().epoch());

            final long tableEpoch = server.epoch();
            rpc.deregister(MEMORY, 5);
            assertNull(server.node(MEMORY), "its record left the node table");
            assertEquals(new MemberRecord(MEMORY, DOWN, 5, PLACED, 3), member(server, MEMORY),
                "but it is still a member");
            assertArrayEquals(new long[]{MEMORY}, server.membership().memberIds());
            assertTrue(server.epoch() > tableEpoch, "cached readers see the tables move");

            rpc.register(MEMORY, 5);
            assertEquals(new MemberRecord(MEMORY, LIVE, 5), member(server, MEMORY),
                "its keys have no other copy: its data directory brings them back, live");
            rpc.register(MEMORY, 6);
            assertEquals(new MemberRecord(MEMORY, LIVE, 6), member(server, MEMORY), "restarted within its lease");
            assertEquals(1, server.membership().replicas());
        }
    }

    @Test
    void withTwoCopiesAMemberBackOrRestartedIsJoiningUntilMarkedLiveAsThatIncarnation()
    {
        try (MetaServer server = MetaServer.start(context(2));
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
            rpc.register(MEMORY, 5);
            assertEquals(new MemberRecord(MEMORY, LIVE, 5), member(server, MEMORY),
                "a new member has nothing to refill");

            rpc.register(MEMORY, 6);
            assertEquals(new MemberRecord(MEMORY, JOINING, 6, PLACED, 3 | Membership.MEMORY_LOST),
                member(server, MEMORY), "restarted within its lease: its memory lost, its copies refilled first");
            assertEquals(6, server.node(MEMORY).epoch());

            final long epoch = server.membershipRecord().epoch();
            final MetaRpcException stale = assertThrows(MetaRpcException.class, () -> directory.markLive(MEMORY, 5));
            assertEquals(MetaRpcDescriptor.STATUS_CONFLICT, stale.status());
            assertTrue(stale.getMessage().contains("node 301 is joining as incarnation 6") &&
                stale.getMessage().contains("not 5"), stale.getMessage());
            assertEquals(JOINING, member(server, MEMORY).state(), "a refused request changes nothing");
            assertEquals(epoch, server.membershipRecord().epoch());

            directory.markLive(MEMORY, 6);
            assertEquals(new MemberRecord(MEMORY, LIVE, 6), member(server, MEMORY));
            assertEquals(epoch + 1, server.membershipRecord().epoch());

            rpc.deregister(MEMORY, 6);
            assertEquals(DOWN, member(server, MEMORY).state());
            rpc.register(MEMORY, 6);
            assertEquals(new MemberRecord(MEMORY, JOINING, 6, PLACED, epoch + 2), member(server, MEMORY),
                "back from down: joining, its memory kept since it left live");
        }
    }

    @Test
    void aMemberWhoseLeaseRunsOutIsDownAndStaysAMember()
    {
        final int leaseMs = 3_600_000;
        final int leaseCheckMs = 60_000;
        final CachedEpochClock epochClock = new CachedEpochClock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        epochClock.update(YEAR_2100_MILLIS);
        final MetaServerContext context =
            context(2).leaseMs(leaseMs).leaseCheckMs(leaseCheckMs).epochClock(epochClock).nanoClock(nanoClock);
        final MetaDirectoryContext directoryContext =
            MetaTestSupport.directoryContext().heartbeatMs(3_600_000).epochClock(epochClock);
        try (MetaServer server = MetaServer.start(context);
            Raas caller = RaasDriver.start(MetaTestSupport.nodeContext("shm", 1),
                new MetaDirectory(directoryContext.endpoints(server.endpoint())));
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), epochClock))
        {
            rpc.register(MEMORY, 5);
            assertEquals(LIVE, member(server, MEMORY).state());

            // in steps the server checks one by one: a single jump of a lease would be its own stall
            for (int step = 0; step < 7; step++)
            {
                epochClock.advance(leaseMs / 6);
                MetaTestSupport.advanceAndAwaitLeaseCheck(server, nanoClock,
                    TimeUnit.MILLISECONDS.toNanos(leaseMs) / 6);
            }
            MetaTestSupport.await("the silent member's lease to run out", Duration.ofSeconds(5),
                () -> server.node(MEMORY) == null);
            assertEquals(new MemberRecord(MEMORY, DOWN, 5, PLACED, 3), member(server, MEMORY));
        }
    }

    @Test
    void aClientReadsTheMembershipOneSidedAndSeesItsEpochMove()
    {
        try (MetaServer server = MetaServer.start(context(2));
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
            final Membership empty = caller.membership();
            assertEquals(server.membership(), empty);
            assertEquals(2, empty.replicas());
            assertEquals(0, empty.memberIds().length);

            rpc.register(MEMORY, 5);
            rpc.register(MEMORY + 1, 3);
            rpc.register(MEMORY, 6);
            final Membership read = caller.membership();
            assertEquals(server.membership(), read, "what the server holds, read from its tables");
            assertTrue(read.epoch() > empty.epoch(), "the epoch moved with each change");
            assertEquals(JOINING, read.state(MEMORY));
            assertEquals(LIVE, read.state(MEMORY + 1));
            assertEquals(server.membershipRecord(), directory.membershipRecord(), "incarnations included");
            assertEquals(server.membership(), server.raas().membership(), "the server's own directory says the same");

            directory.markLive(MEMORY, 6);
            final Membership after = caller.membership();
            assertEquals(read.epoch() + 1, after.epoch());
            assertTrue(after.serves(MEMORY));
        }
    }

    @Test
    void theMembershipAndTheReplicaCountSurviveARestartAndANamedCountChangesTheKeptOne()
    {
        final MembershipRecord kept;
        try (MetaServer server = MetaServer.start(context(2));
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            rpc.register(MEMORY, 5);
            rpc.register(MEMORY + 1, 3);
            rpc.register(MEMORY + 2, 4);
            rpc.register(MEMORY + 1, 7);
            rpc.deregister(MEMORY + 2, 4);
            kept = server.membershipRecord();
        }
        assertEquals(2, kept.replicas());

        final MetaServerContext unnamed = MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dir);
        assertTrue(!unnamed.replicasNamed() && unnamed.replicas() == MetaServerConfiguration.REPLICAS_DEFAULT);
        try (MetaServer restarted = MetaServer.start(unnamed))
        {
            assertEquals(kept, restarted.membershipRecord(), "none named: the kept count, members and states");
            try (Raas reader = MetaTestSupport.node("shm", 2, restarted.endpoint()))
            {
                assertEquals(kept.toMembership(), reader.membership(), "published one-sided from the new tables");
            }
        }
        try (MetaServer changed = MetaServer.start(context(3)))
        {
            assertEquals(new MembershipRecord(kept.epoch() + 1, 3, kept.members()), changed.membershipRecord(),
                "a named count changes the kept one, and the epoch with it");
        }
        try (MetaServer again = MetaServer.start(
            MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dir)))
        {
            assertEquals(3, again.membershipRecord().replicas(), "kept from then on");
            assertNotNull(again.membershipRecord().member(MEMORY + 2));
        }
    }

    @Test
    void theFirstStartOfAStoreKeepsTheCountItIsGiven()
    {
        try (MetaServer server = MetaServer.start(context(4)))
        {
            assertEquals(4, server.membership().replicas());
            assertEquals(0, server.membership().memberIds().length);
        }
    }
}
