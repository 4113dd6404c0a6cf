package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.StandaloneDriver;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import static io.dkv.raas.Membership.CLEANUP;
import static io.dkv.raas.Membership.HANDOVER;
import static io.dkv.raas.Membership.FILL;
import static io.dkv.raas.Membership.LIVE;
import static io.dkv.raas.Membership.PLACED;
import static io.dkv.raas.Membership.PLACED_AFTER;
import static io.dkv.raas.Membership.PLACED_BEFORE;
import static io.dkv.raas.Membership.STEADY;
import static io.dkv.raas.Membership.SWITCH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A membership change driven through the MetaServers' RPCs, as a memory node or a tool drives it: a joining
 * registration starts FILL with the node placed after only, each advance is a phase on both servers, STEADY places
 * the added node and drops a drained one, an abort goes back, and an added node's lapsed lease aborts. Clients read
 * the phase and placements from the tables, embedded or attached to a standalone driver.
 */
class MembershipChangeTest
{
    private static final long FOUNDER = 201;
    private static final long SECOND = 202;
    private static final long JOINER = 203;

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    @Test
    void aJoiningNodeIsFilledSwitchedAndPlacedOnBothServersAndADrainedOneLeaves()
    {
        try (MetaTestSupport.Pair pair = MetaTestSupport.startPair("shm", dirA, dirB, FOUNDER, SECOND);
            Raas caller = MetaTestSupport.node("shm", 1, pair.a().endpoint(), pair.b().endpoint());
            MemberRpc rpc = new MemberRpc(caller, pair.a().endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final MetaServer a = pair.a();
            final MetaServer b = pair.b();
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
            rpc.register(FOUNDER, 1);
            rpc.register(SECOND, 1);
            rpc.registerJoining(JOINER, 7);
            assertEquals(0, a.membership().state(JOINER), "registered to join: no member until it asks, serving");
            directory.beginAdd(JOINER);
            assertEquals(FILL, a.membership().phase());
            assertEquals(new MemberRecord(JOINER, LIVE, 7, PLACED_AFTER), a.membershipRecord().member(JOINER));
            assertEquals(a.membershipRecord(), b.membershipRecord(), "the peer holds the change as it was answered");
            assertEquals(a.membership(), directory.membership(), "clients read the phase and placements");

            final long epoch = a.membership().epoch();
            assertEquals(SWITCH, directory.advanceMembership(FILL).phase());
            assertEquals(SWITCH, directory.advanceMembership(FILL).phase(), "asked again: answered, nothing moved");
            assertEquals(epoch + 1, a.membership().epoch());
            assertEquals(HANDOVER, directory.advanceMembership(SWITCH).phase());
            assertEquals(CLEANUP, directory.advanceMembership(HANDOVER).phase());
            final Membership steady = directory.advanceMembership(CLEANUP);
            assertEquals(STEADY, steady.phase());
            assertEquals(PLACED, steady.placement(JOINER));
            assertEquals(steady, b.membership());

            final Membership draining = directory.beginDrain(FOUNDER);
            assertEquals(FILL, draining.phase());
            assertEquals(PLACED_BEFORE, draining.placement(FOUNDER));
            final MetaRpcException busy = assertThrows(MetaRpcException.class, () -> directory.beginDrain(SECOND));
            assertEquals(MetaRpcDescriptor.STATUS_CONFLICT, busy.status());
            assertTrue(busy.getMessage().contains("draining " + FOUNDER), busy.getMessage());
            directory.advanceMembership(FILL);
            directory.advanceMembership(SWITCH);
            directory.advanceMembership(HANDOVER);
            final Membership drained = directory.advanceMembership(CLEANUP);
            assertEquals(0, drained.state(FOUNDER), "the drained member left");
            assertEquals(drained, b.membership());
            assertNull(b.membershipRecord().member(FOUNDER));
            assertEquals(drained, a.membership());
        }
    }

    @Test
    void anAbortRestoresTheBeforePlacementAndARefusedJoinCanAskAgain()
    {
        try (MetaTestSupport.Pair pair = MetaTestSupport.startPair("shm", dirA, dirB, FOUNDER, SECOND);
            Raas caller = MetaTestSupport.node("shm", 1, pair.a().endpoint(), pair.b().endpoint());
            MemberRpc rpc = new MemberRpc(caller, pair.a().endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
            rpc.register(FOUNDER, 1);
            rpc.register(SECOND, 1);
            final Membership before = directory.membership();
            directory.beginDrain(SECOND);
            rpc.registerJoining(JOINER, 7);
            assertTrue(pair.a().node(JOINER) != null, "registered while a change runs, so it stays reachable");
            final MetaRpcException refused = assertThrows(MetaRpcException.class, () -> directory.beginAdd(JOINER));
            assertEquals(MetaRpcDescriptor.STATUS_CONFLICT, refused.status());
            assertEquals(0, pair.a().membership().state(JOINER), "but not added");

            final Membership aborted = directory.abortMembershipChange();
            assertEquals(STEADY, aborted.phase());
            assertEquals(before.epoch() + 2, aborted.epoch());
            assertEquals(PLACED, aborted.placement(SECOND));
            assertEquals(aborted, pair.b().membership());

            final Membership adding = directory.beginAdd(JOINER);
            assertEquals(FILL, adding.phase());
            assertEquals(PLACED_AFTER, adding.placement(JOINER));
            directory.advanceMembership(FILL);
            final Membership back = directory.abortMembershipChange();
            assertEquals(0, back.state(JOINER), "an aborted add forgets the node");
            assertEquals(back, pair.b().membership());
            final MetaRpcException nothing = assertThrows(MetaRpcException.class, directory::abortMembershipChange);
            assertTrue(nothing.getMessage().contains("no change to abort: the membership is in steady"),
                nothing.getMessage());
        }
    }

    @Test
    void anAddedNodeWhoseLeaseLapsesAbortsTheChange()
    {
        final MetaServerContext context =
            MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dirA).leaseMs(1_000)
                .leaseCheckMs(50);
        try (MetaServer server = MetaServer.start(context);
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            rpc.register(FOUNDER, 1);
            rpc.registerJoining(JOINER, 7);
            ((MetaDirectory)MetaTestSupport.directoryOf(caller)).beginAdd(JOINER);
            assertEquals(FILL, server.membership().phase());
            // neither renews: the founder goes down and stays a member, the joiner's loss aborts the add
            MetaTestSupport.await("the add's abort", Duration.ofSeconds(10),
                () -> server.membership().phase() == STEADY && server.membership().state(JOINER) == 0);
            assertEquals(PLACED, server.membership().placement(FOUNDER));
        }
    }

    @Test
    void anAttachedClientReadsThePhaseAndPlacements()
    {
        try (MetaServer server = MetaServer.start(
            MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 100, dirA));
            Raas caller = MetaTestSupport.node("shm", 1, server.endpoint());
            MemberRpc rpc = new MemberRpc(caller, server.endpoint().nodeId(), SystemEpochClock.INSTANCE))
        {
            rpc.register(FOUNDER, 1);
            rpc.registerJoining(JOINER, 7);
            ((MetaDirectory)MetaTestSupport.directoryOf(caller)).beginAdd(JOINER);
            final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
            final RaasContext driverContext = MetaTestSupport.nodeContext("shm", 2).driverName(name);
            try (StandaloneDriver driver = StandaloneDriver.launch(driverContext,
                new MetaDirectory(MetaTestSupport.directoryContext(server.endpoint())));
                Raas attached = AttachedRaas.attach(new RaasContext().driverName(name).clientDataBytes(1 << 20)
                    .timeoutMs(10_000)))
            {
                final Membership read = attached.membership();
                assertEquals(server.membership(), read);
                assertEquals(FILL, read.phase());
                assertEquals(PLACED_AFTER, read.placement(JOINER));
            }
        }
    }
}
