package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static io.dkv.raas.Membership.PLACED;
import static io.dkv.raas.Membership.DOWN;
import static io.dkv.raas.Membership.JOINING;
import static io.dkv.raas.Membership.LIVE;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The membership is on both MetaServers as node records are: each change is forwarded with the write
 * that made it, a member marked live and a replica count named at start too; clients read it from the
 * other server when one fails, and a server that returns takes it with the other's state.
 */
class MembershipReplicationTest
{
    private static final long MEMORY = 301;

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    /** A, naming both memory nodes of the test founders: the second registers once the first founded. */
    private MetaServerContext contextA(final VerbsContext addressA)
    {
        return MetaTestSupport.serverContext(addressA, 101, dirA).founders(MEMORY, MEMORY + 1);
    }

    @Test
    void bothServersHoldEveryMembershipChangeAndAFailoverKeepsIt()
    {
        final VerbsContext addressA = MetaTestSupport.fixedAddress("shm");
        final MetaEndpoint endpointA;
        try (MetaServer alone = MetaServer.start(contextA(addressA).replicas(2)))
        {
            endpointA = alone.endpoint();
        }
        MetaServer a = null;
        try (MetaServer b = MetaServer.start(
            MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"), 102, dirB).peer(endpointA).replicas(2)
                .founders(MEMORY, MEMORY + 1)))
        {
            a = MetaServer.start(contextA(addressA).peer(b.endpoint()));
            try (Raas caller = MetaTestSupport.node("shm", 1, a.endpoint(), b.endpoint());
                MemberRpc rpc = new MemberRpc(caller, a.endpoint().nodeId(), SystemEpochClock.INSTANCE))
            {
                final MetaDirectory directory = (MetaDirectory)MetaTestSupport.directoryOf(caller);
                rpc.register(MEMORY, 5);
                assertEquals(new MemberRecord(MEMORY, LIVE, 5), b.membershipRecord().member(MEMORY),
                    "the join reached B before it was acknowledged");
                rpc.register(MEMORY, 6);
                assertEquals(new MemberRecord(MEMORY, JOINING, 6, PLACED, 4 | Membership.MEMORY_LOST),
                    b.membershipRecord().member(MEMORY));
                directory.markLive(MEMORY, 6);
                assertEquals(new MemberRecord(MEMORY, LIVE, 6), b.membershipRecord().member(MEMORY));
                rpc.deregister(MEMORY, 6);
                // it left live as it deregistered, in epoch 6, having served as the incarnation it is
                assertEquals(new MemberRecord(MEMORY, DOWN, 6, PLACED, 6), b.membershipRecord().member(MEMORY));
                assertEquals(a.membershipRecord().members(), b.membershipRecord().members());
                assertEquals(2, b.membershipRecord().replicas());

                a.close();
                assertEquals(b.membership(), caller.membership(), "read from B once A is gone");
                assertEquals(b.endpoint().nodeId(), directory.currentServer());
            }
            try (Raas caller = MetaTestSupport.node("shm", 2, b.endpoint());
                MemberRpc rpc = new MemberRpc(caller, b.endpoint().nodeId(), SystemEpochClock.INSTANCE))
            {
                rpc.register(MEMORY + 1, 1);
            }
            a = MetaServer.start(contextA(addressA).peer(b.endpoint()).replicas(3));
            assertEquals(new MemberRecord(MEMORY + 1, LIVE, 1), a.membershipRecord().member(MEMORY + 1),
                "A took B's membership with its state");
            assertEquals(DOWN, a.membershipRecord().member(MEMORY).state());
            assertEquals(3, a.membershipRecord().replicas(), "the count A was started with wins over B's");
            final MetaServer restarted = a;
            MetaTestSupport.await("B to take the count A was started with", Duration.ofSeconds(5),
                () -> b.membershipRecord().replicas() == 3);
            assertEquals(restarted.membershipRecord().members(), b.membershipRecord().members());
        }
        finally
        {
            if (a != null)
            {
                a.close();
            }
        }
    }
}
