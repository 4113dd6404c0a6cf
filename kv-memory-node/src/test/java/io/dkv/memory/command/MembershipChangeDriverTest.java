package io.dkv.memory.command;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Directory;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver of a membership change takes it to its end through a MetaServer that fails to answer for a moment (its
 * calls are tried again: each is idempotent), and stops at once on a refusal the MetaServer answered. Here a memory
 * node joins two that hold keys, the directory standing in for the MetaServer.
 */
class MembershipChangeDriverTest
{
    private static final long[] BEFORE = {1, 2};
    private static final long ADDED = 3;
    private static final int KEYS = 60;

    private final ChangingDirectory directory = new ChangingDirectory();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    @AfterEach
    void close() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
    }

    @Test
    @Timeout(120)
    void advancesThatGetNoAnswerAreTriedAgainAndTheChangeEnds()
    {
        startAddingANodeToKeys();
        directory.unanswered.set(2);

        assertTrue(driver().run(), printed::toString);

        assertEquals(Membership.STEADY, directory.membership().phase(), printed::toString);
        assertEquals(Membership.PLACED, directory.membership().placement(ADDED));
        assertEquals(0, directory.aborts.get(), "nothing aborted");
        assertTrue(printed.toString().contains("could not advance the membership from fill: the MetaServer did " +
            "not answer within 3,000 ms; trying again in 500 ms"), printed::toString);
        final KvClient fresh = connect(101);
        for (int k = 0; k < KEYS; k++)
        {
            assertArrayEquals(value(k), fresh.get(key(k)), "key " + k + " after the change");
        }
    }

    @Test
    @Timeout(120)
    void aRefusalTheMetaServerAnswersEndsTheDriverAtOnce()
    {
        startAddingANodeToKeys();
        directory.refuse = true;

        assertFalse(driver().run(), printed::toString);

        assertEquals(1, directory.advances.get(), "a refusal is not asked again");
        assertTrue(printed.toString().contains("membership change failed in phase fill: CONFLICT"), printed::toString);
    }

    /**
     * An abort the MetaServer applied whose answer was lost: asked again, it is refused (no change runs any more), as
     * the MetaServer refuses it. The membership read back is the abort's: the change is reported aborted, not failed.
     */
    @Test
    @Timeout(120)
    void anAbortWhoseAnswerWasLostEndsAborted()
    {
        startAddingANodeThatNeverServes();
        directory.abortsUnanswered.set(1);

        assertFalse(driver().run(), printed::toString);

        assertEquals(2, directory.aborts.get(), "asked again once: " + printed);
        assertEquals(Membership.STEADY, directory.membership().phase(), printed::toString);
        assertEquals(0, directory.membership().state(ADDED), "the added node left the membership");
        assertTrue(printed.toString().contains("membership change aborted: keys were still unsettled"),
            printed::toString);
        assertFalse(printed.toString().contains("membership change failed"), printed::toString);
    }

    /** A refusal after a lost answer, the membership not the abort's outcome (the change completed): a failure. */
    @Test
    @Timeout(120)
    void anAbortRefusedAfterTheChangeCompletedIsAFailure()
    {
        startAddingANodeThatNeverServes();
        directory.abortsUnanswered.set(1);
        directory.completeInsteadOfAbort = true;

        assertFalse(driver().run(), printed::toString);

        assertTrue(printed.toString().contains("membership change failed in phase fill: CONFLICT"), printed::toString);
    }

    /** Keys on two nodes, a third being added that is not there: no pass settles them, and the driver aborts. */
    private void startAddingANodeThatNeverServes()
    {
        for (final long id : BEFORE)
        {
            startNode(id);
        }
        directory.membership(new Membership(1, 1, BEFORE, new int[]{Membership.LIVE, Membership.LIVE}));
        final KvClient client = connect(100);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k));
        }
        final long[] all = {1, 2, ADDED};
        directory.membership(new Membership(2, 1, all, new int[]{Membership.LIVE, Membership.LIVE, Membership.LIVE},
            new long[all.length], new int[]{Membership.PLACED, Membership.PLACED, Membership.PLACED_AFTER},
            Membership.FILL));
    }

    private void startAddingANodeToKeys()
    {
        for (final long id : BEFORE)
        {
            startNode(id);
        }
        directory.membership(new Membership(1, 1, BEFORE, new int[]{Membership.LIVE, Membership.LIVE}));
        final KvClient client = connect(100);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k));
        }
        startNode(ADDED);
        final long[] all = {1, 2, ADDED};
        directory.membership(new Membership(2, 1, all, new int[]{Membership.LIVE, Membership.LIVE, Membership.LIVE},
            new long[all.length], new int[]{Membership.PLACED, Membership.PLACED, Membership.PLACED_AFTER},
            Membership.FILL));
    }

    private MembershipChangeDriver driver()
    {
        final Raas raas = open(RaasDriver.start(driverContext(ADDED + 100), directory));
        return new MembershipChangeDriver(raas, directory, clientContext(),
            new PrintStream(printed, true, StandardCharsets.UTF_8));
    }

    private void startNode(final long id)
    {
        final Raas raas = open(RaasDriver.start(driverContext(id).role(NodeRecord.ROLE_MEMORY), directory));
        open(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20).heapChunks(16)));
    }

    private KvClient connect(final long nodeId)
    {
        final Raas raas = open(RaasDriver.start(driverContext(nodeId), directory));
        return open(KvClient.connect(raas, clientContext()));
    }

    private static KvClientContext clientContext()
    {
        return new KvClientContext().timeoutMs(1_500).unavailableRetryMs(0).membershipRefreshMs(50)
            .membershipLeaseMs(400);
    }

    private static RaasContext driverContext(final long nodeId)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider("shm"))
            .nodeId(nodeId)
            .receiveBuffers(64)
            .requestSlots(256)
            .timeoutMs(10_000);
    }

    private <T extends AutoCloseable> T open(final T resource)
    {
        open.add(resource);
        return resource;
    }

    private static byte[] key(final int k)
    {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k)
    {
        return ("value-" + k).getBytes(StandardCharsets.UTF_8);
    }

    /** The MetaServer's membership changes, kept in memory: FILL to CLEANUP, then STEADY with all placed. */
    private static final class ChangingDirectory implements Directory
    {
        private final StaticDirectory nodes = new StaticDirectory();
        final AtomicInteger unanswered = new AtomicInteger();
        final AtomicInteger advances = new AtomicInteger();
        final AtomicInteger aborts = new AtomicInteger();
        final AtomicInteger abortsUnanswered = new AtomicInteger();
        volatile boolean refuse;
        /** The abort's lost try leaves the change completed (as another driver advancing it would). */
        volatile boolean completeInsteadOfAbort;

        void membership(final Membership membership)
        {
            nodes.membership(membership);
        }

        public Membership membership()
        {
            return nodes.membership();
        }

        public synchronized Membership advanceMembership(final int expectedPhase)
        {
            advances.incrementAndGet();
            if (refuse)
            {
                throw new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT, "the membership is in phase " +
                    Membership.phaseName(membership().phase()) + ", another change runs");
            }
            if (unanswered.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
            {
                throw new RaasException("the MetaServer did not answer within 3,000 ms");
            }
            final Membership now = membership();
            final long[] ids = now.memberIds();
            final int[] live = new int[ids.length];
            Arrays.fill(live, Membership.LIVE);
            final int[] placements = new int[ids.length];
            for (int i = 0; i < ids.length; i++)
            {
                placements[i] = now.placement(ids[i]);
            }
            final int next = switch (expectedPhase)
            {
                case Membership.FILL -> Membership.SWITCH;
                case Membership.SWITCH -> Membership.HANDOVER;
                case Membership.HANDOVER -> Membership.CLEANUP;
                default -> Membership.STEADY;
            };
            nodes.membership(next == Membership.STEADY ? new Membership(now.epoch() + 1, now.replicas(), ids, live) :
                new Membership(now.epoch() + 1, now.replicas(), ids, live, new long[ids.length], placements, next));
            return membership();
        }

        /** As the MetaServer: FILL or SWITCH back to STEADY over the before placement, else CONFLICT. */
        public synchronized Membership abortMembershipChange()
        {
            aborts.incrementAndGet();
            final Membership now = membership();
            if (now.phase() != Membership.FILL && now.phase() != Membership.SWITCH)
            {
                throw new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT, "no change to abort: the membership " +
                    "is in " + Membership.phaseName(now.phase()));
            }
            final List<Long> kept = new ArrayList<>();
            for (final long id : now.memberIds())
            {
                final int placement = now.placement(id);
                if (completeInsteadOfAbort ? placement != Membership.PLACED_BEFORE :
                    placement != Membership.PLACED_AFTER)
                {
                    kept.add(id);
                }
            }
            final long[] ids = kept.stream().mapToLong(Long::longValue).toArray();
            final int[] live = new int[ids.length];
            Arrays.fill(live, Membership.LIVE);
            nodes.membership(new Membership(now.epoch() + 1, now.replicas(), ids, live));
            if (abortsUnanswered.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
            {
                throw new RaasException("the MetaServer did not answer within 3,000 ms");
            }
            return membership();
        }

        public NodeRecord node(final long nodeId)
        {
            return nodes.node(nodeId);
        }

        public RemoteRegion region(final String name)
        {
            return nodes.region(name);
        }

        public void register(final NodeRecord self)
        {
            nodes.register(self);
        }

        public void publish(final RemoteRegion region)
        {
            nodes.publish(region);
        }

        public List<NodeRecord> nodes(final int role)
        {
            return nodes.nodes(role);
        }

        public void withdraw(final String name)
        {
            nodes.withdraw(name);
        }

        public void invalidate(final long nodeId)
        {
        }
    }
}
