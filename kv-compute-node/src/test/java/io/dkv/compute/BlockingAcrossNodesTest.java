package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking commands across compute nodes: a connection blocked through one node is woken by a write through the
 * other, the longest waiter of a node first, and every element pushed is taken once, by one waiter, or stays. Waits
 * are on what the nodes report (INFO's blocked_clients), never on time.
 */
class BlockingAcrossNodesTest
{
    @RegisterExtension
    static final TwoComputeNodesExtension NODES = new TwoComputeNodesExtension();

    @Test
    void aPushThroughOneNodeWakesAWaiterOfTheOther() throws Exception
    {
        try (RawResp waiter = new RawResp(NODES.first().port());
            RawResp writer = new RawResp(NODES.second().port()))
        {
            waiter.send("BLPOP", "jobs.1", "0");
            awaitBlocked(NODES.first(), 1);
            assertEquals(":1", writer.call("RPUSH", "jobs.1", "job"));
            assertEquals("*2[$jobs.1, $job]", waiter.read());
            assertEquals(":0", writer.call("EXISTS", "jobs.1"));
            waiter.send("BZPOPMAX", "ranks", "0");
            awaitBlocked(NODES.first(), 1);
            writer.call("ZADD", "ranks", "1", "low", "2", "high");
            assertEquals("*3[$ranks, $high, $2]", waiter.read());
            waiter.send("BLMOVE", "from", "to", "LEFT", "RIGHT", "0");
            awaitBlocked(NODES.first(), 1);
            writer.call("LPUSH", "from", "moved");
            assertEquals("$moved", waiter.read());
            assertEquals("*1[$moved]", writer.call("LRANGE", "to", "0", "-1"));
            waiter.send("BLPOP", "by.transaction", "0");
            awaitBlocked(NODES.first(), 1);
            writer.call("MULTI");
            writer.call("RPUSH", "by.transaction", "committed");
            assertEquals("*1[:1]", writer.call("EXEC"));
            assertEquals("*2[$by.transaction, $committed]", waiter.read());
        }
    }

    @Test
    void waitersOfOneNodeAreServedOldestFirst() throws Exception
    {
        try (RawResp older = new RawResp(NODES.first().port());
            RawResp younger = new RawResp(NODES.first().port());
            RawResp writer = new RawResp(NODES.second().port()))
        {
            older.send("BLPOP", "queue.fifo", "0");
            awaitBlocked(NODES.first(), 1);
            younger.send("BLPOP", "queue.fifo", "0");
            awaitBlocked(NODES.first(), 2);
            writer.call("RPUSH", "queue.fifo", "first");
            assertEquals("*2[$queue.fifo, $first]", older.read());
            writer.call("RPUSH", "queue.fifo", "second");
            assertEquals("*2[$queue.fifo, $second]", younger.read());
        }
    }

    @Test
    void theLongestWaiterOfThePoolIsServedFirstWhicheverNodeItWaitsOn() throws Exception
    {
        try (RawResp b1 = new RawResp(NODES.second().port());
            RawResp a1 = new RawResp(NODES.first().port());
            RawResp b2 = new RawResp(NODES.second().port());
            RawResp a2 = new RawResp(NODES.first().port());
            RawResp writer = new RawResp(NODES.first().port()))
        {
            // blocked in turn across the nodes; the writer's node has waiters of its own, which are younger
            b1.send("BLPOP", "queue.pool", "0");
            awaitBlocked(NODES.second(), 1);
            a1.send("BLPOP", "queue.pool", "0");
            awaitBlocked(NODES.first(), 1);
            b2.send("BLPOP", "queue.pool", "0");
            awaitBlocked(NODES.second(), 2);
            a2.send("BLPOP", "queue.pool", "0");
            awaitBlocked(NODES.first(), 2);
            writer.call("RPUSH", "queue.pool", "x1");
            assertEquals("*2[$queue.pool, $x1]", b1.read());
            writer.call("RPUSH", "queue.pool", "x2");
            assertEquals("*2[$queue.pool, $x2]", a1.read());
            // one push for the two left: each in its turn, handed from node to node
            writer.call("RPUSH", "queue.pool", "x3", "x4", "x5");
            assertEquals("*2[$queue.pool, $x3]", b2.read());
            assertEquals("*2[$queue.pool, $x4]", a2.read());
            assertEquals("*1[$x5]", writer.call("LRANGE", "queue.pool", "0", "-1"));
            awaitBlocked(NODES.first(), 0);
            awaitBlocked(NODES.second(), 0);
        }
    }

    @Test
    void waitersSpreadAtRandomAreServedInTheOrderTheyBlocked() throws Exception
    {
        // one key for every round: what each node heard of the other's waiters is stale from the round before
        final Random random = new Random(38_260);
        for (int round = 0; round < 6; round++)
        {
            final int count = 2 + random.nextInt(5);
            final List<RawResp> waiters = new ArrayList<>();
            final int[] blocked = new int[2];
            try (RawResp writer = new RawResp(node(random.nextInt(2)).port()))
            {
                for (int i = 0; i < count; i++)
                {
                    final int on = random.nextInt(2);
                    final RawResp waiter = new RawResp(node(on).port());
                    waiters.add(waiter);
                    waiter.send("BLPOP", "queue.order", "0");
                    awaitBlocked(node(on), ++blocked[on]);
                }
                // the elements in one push or a few, each element the number of the waiter it is for
                int pushed = 0;
                while (pushed < count)
                {
                    final int many = 1 + random.nextInt(count - pushed);
                    final String[] push = new String[2 + many];
                    push[0] = "RPUSH";
                    push[1] = "queue.order";
                    for (int i = 0; i < many; i++)
                    {
                        push[2 + i] = Integer.toString(pushed++);
                    }
                    writer.call(push);
                }
                for (int i = 0; i < count; i++)
                {
                    assertEquals("*2[$queue.order, $" + i + "]", waiters.get(i).read(), "round " + round);
                }
                assertEquals(":0", writer.call("EXISTS", "queue.order"));
            }
            finally
            {
                for (final RawResp waiter : waiters)
                {
                    waiter.close();
                }
            }
        }
    }

    private static ComputeNode node(final int index)
    {
        return index == 0 ? NODES.first() : NODES.second();
    }

    @Test
    void everyElementPushedIsTakenOnceByWaitersOfBothNodes() throws Exception
    {
        final int perNode = 6;
        final List<RawResp> waiters = new ArrayList<>();
        try (RawResp one = new RawResp(NODES.first().port());
            RawResp two = new RawResp(NODES.second().port()))
        {
            for (int i = 0; i < perNode; i++)
            {
                final RawResp first = new RawResp(NODES.first().port());
                final RawResp second = new RawResp(NODES.second().port());
                waiters.add(first);
                waiters.add(second);
                first.send("BLPOP", "queue.shared", "0");
                second.send("BLPOP", "queue.shared", "0");
            }
            awaitBlocked(NODES.first(), perNode);
            awaitBlocked(NODES.second(), perNode);
            final Set<String> pushed = new HashSet<>();
            for (int i = 0; i < perNode; i++)
            {
                // through both nodes, one element a push, then several in one
                one.call("RPUSH", "queue.shared", "a" + i);
                pushed.add("a" + i);
            }
            final String[] many = new String[perNode + 3];
            many[0] = "RPUSH";
            many[1] = "queue.shared";
            for (int i = 0; i < perNode + 1; i++)
            {
                many[i + 2] = "b" + i;
                pushed.add("b" + i);
            }
            two.call(many);
            final Set<String> taken = new HashSet<>();
            for (final RawResp waiter : waiters)
            {
                final String reply = waiter.read();
                assertTrue(reply.startsWith("*2[$queue.shared, $"), reply);
                assertTrue(taken.add(reply.substring("*2[$queue.shared, $".length(), reply.length() - 1)),
                    "taken twice: " + reply);
            }
            // one element more than waiters: it stays
            final String left = one.call("LRANGE", "queue.shared", "0", "-1");
            taken.add(left.substring("*1[$".length(), left.length() - 1));
            assertEquals(pushed, taken);
        }
        finally
        {
            for (final RawResp waiter : waiters)
            {
                waiter.close();
            }
        }
    }

    @Test
    void clientUnblockThroughAnyNodeEndsTheWait() throws Exception
    {
        try (RawResp waiter = new RawResp(NODES.first().port());
            RawResp admin = new RawResp(NODES.second().port()))
        {
            final String id = waiter.call("CLIENT", "ID").substring(1);
            // ids are the pool's: the other node's connection has another
            assertTrue(!id.equals(admin.call("CLIENT", "ID").substring(1)), id);
            waiter.send("BLPOP", "queue.unblocked", "0");
            awaitBlocked(NODES.first(), 1);
            assertEquals(":1", admin.call("CLIENT", "UNBLOCK", id));
            assertEquals("*nil", waiter.read());
            waiter.send("BZPOPMIN", "zset.unblocked", "0");
            awaitBlocked(NODES.first(), 1);
            assertEquals(":1", admin.call("CLIENT", "UNBLOCK", id, "ERROR"));
            assertEquals("-UNBLOCKED client unblocked via CLIENT UNBLOCK", waiter.read());
            // not blocked now, anywhere
            assertEquals(":0", admin.call("CLIENT", "UNBLOCK", id));
            assertEquals("+PONG", waiter.call("PING"));
        }
    }

    /**
     * With asynchronous commands on, a CLIENT UNBLOCK of a connection blocked on no connection of its node asks the
     * peers on a store thread, a step, so that the loop waits on no peer's answer; one of its own node's waiter ends
     * it there, on no store thread.
     */
    @Test
    void clientUnblockThatAsksPeersIsAStepOnAStoreThread() throws Exception
    {
        try (ComputeNode third = NODES.nodes().another(NODES.nodes().secondId() + 30, "on");
            RawResp waiter = new RawResp(NODES.first().port());
            RawResp admin = new RawResp(third.port());
            RawResp local = new RawResp(third.port()))
        {
            final String id = waiter.call("CLIENT", "ID").substring(1);
            waiter.send("BLPOP", "queue.stepped", "0");
            awaitBlocked(NODES.first(), 1);
            final long before = admin.storeThreadSteps();
            assertEquals(":1", admin.call("CLIENT", "UNBLOCK", id));
            assertEquals("*nil", waiter.read());
            assertEquals(":0", admin.call("CLIENT", "UNBLOCK", "999999999"));
            assertEquals(2, admin.storeThreadSteps() - before, "each asked the peers there");

            final String localId = local.call("CLIENT", "ID").substring(1);
            local.send("BLPOP", "queue.stepped", "0");
            awaitBlocked(third, 1);
            final long beforeLocal = admin.storeThreadSteps();
            assertEquals(":1", admin.call("CLIENT", "UNBLOCK", localId));
            assertEquals("*nil", local.read());
            assertEquals(0, admin.storeThreadSteps() - beforeLocal, "its own node's waiter, ended on the loop");
        }
    }

    @Test
    void aWaiterThatDisconnectedTakesNothing() throws Exception
    {
        try (RawResp writer = new RawResp(NODES.second().port()))
        {
            try (RawResp waiter = new RawResp(NODES.first().port()))
            {
                waiter.send("BLPOP", "queue.gone", "0");
                awaitBlocked(NODES.first(), 1);
            }
            awaitBlocked(NODES.first(), 0);
            writer.call("RPUSH", "queue.gone", "kept");
            assertEquals("*1[$kept]", writer.call("LRANGE", "queue.gone", "0", "-1"));
        }
    }

    private static void awaitBlocked(final ComputeNode node, final int count) throws Exception
    {
        DifferentialScenario.awaitBlocked(node.port(), count);
    }
}
