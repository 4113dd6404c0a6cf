package io.dkv.compute;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.StandaloneDriver;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compute nodes attached to their host's standalone driver ({@code ./dkv compute-node --driver NAME}), each a node of
 * its own: registered with the MetaServer as role compute while they serve, listing each other and a node with a
 * driver of its own in CLUSTER SLOTS (each endpoint read one-sided from the region its node published), serving the
 * store, and reaching each other and that node for pub/sub, two nodes behind one driver told apart by the CONNECTs
 * that name them. Closed, an attached node leaves the MetaServer's list. A restart of their driver they outlive: once a
 * driver runs under the name again they serve, are listed and meet again without being started again.
 */
class AttachedComputeNodesTest
{
    @TempDir
    Path dir;

    @Test
    void computeNodesAttachedToOneDriverServeAndMeetAsNodesOfTheirOwn() throws Exception
    {
        final String driverName = "test-" + UUID.randomUUID().toString().substring(0, 8);
        try (MetaCluster cluster = new MetaCluster(dir);
            StandaloneDriver driver = cluster.driver(cluster.base + 2, driverName);
            Raas observer = cluster.node(cluster.base + 3, NodeRecord.ROLE_CLIENT))
        {
            final long oneId = cluster.base + 10;
            final long twoId = cluster.base + 11;
            final long embeddedId = cluster.base + 12;
            ComputeNode one = null;
            ComputeNode two = null;
            ComputeNode embedded = null;
            try
            {
                one = attached(driverName, oneId);
                two = attached(driverName, twoId);
                embedded = ComputeNode.start(new ComputeNodeContext().port(0).bindAddress("127.0.0.1").ioThreads(1)
                    .raas(cluster.node(embeddedId, NodeRecord.ROLE_COMPUTE), true));
                MetaCluster.await("the three listed as compute",
                    () -> computeIds(observer).containsAll(Set.of(oneId, twoId, embeddedId)));
                assertEquals(driver.driver().self().address(), observer.nodes(NodeRecord.ROLE_COMPUTE).stream()
                    .filter(node -> node.id() == oneId).findFirst().orElseThrow().address(), "reached at its driver");
                final ComputeNode[] nodes = {one, two, embedded};
                MetaCluster.await("each lists the three", () -> slotsListed(nodes[0].port()) == 3 &&
                    slotsListed(nodes[1].port()) == 3 && slotsListed(nodes[2].port()) == 3);

                try (RawResp toOne = new RawResp(one.port());
                    RawResp toTwo = new RawResp(two.port());
                    RawResp toEmbedded = new RawResp(embedded.port());
                    RawResp subscriberOfTwo = new RawResp(two.port());
                    RawResp subscriberOfEmbedded = new RawResp(embedded.port()))
                {
                    assertEquals("+OK", toOne.call("SET", "attached", "yes"));
                    assertEquals("$yes", toTwo.call("GET", "attached"));
                    assertEquals("$yes", toEmbedded.call("GET", "attached"));

                    assertEquals("*3[$subscribe, $news, :1]", subscriberOfTwo.call("SUBSCRIBE", "news"));
                    assertEquals("*3[$subscribe, $news, :1]", subscriberOfEmbedded.call("SUBSCRIBE", "news"));
                    assertEquals(":2", toOne.call("PUBLISH", "news", "from one"), "behind the same driver and not");
                    assertEquals("*3[$message, $news, $from one]", subscriberOfTwo.read());
                    assertEquals("*3[$message, $news, $from one]", subscriberOfEmbedded.read());
                    assertEquals(":2", toEmbedded.call("PUBLISH", "news", "from the embedded"));
                    assertEquals("*3[$message, $news, $from the embedded]", subscriberOfTwo.read());
                    assertEquals("*3[$message, $news, $from the embedded]", subscriberOfEmbedded.read());
                }
                one.close();
                one = null;
                MetaCluster.await("the closed one gone from the list", () -> !computeIds(observer).contains(oneId));
                assertTrue(computeIds(observer).contains(twoId), "the other behind its driver stays");
            }
            finally
            {
                CloseHelper.closeAll(embedded, two, one);
            }
        }
    }

    @Test
    void computeNodesBehindADriverServeListAndMeetAgainOnceItRestarts() throws Exception
    {
        final String driverName = "test-" + UUID.randomUUID().toString().substring(0, 8);
        try (MetaCluster cluster = new MetaCluster(dir);
            Raas observer = cluster.node(cluster.base + 3, NodeRecord.ROLE_CLIENT))
        {
            final long oneId = cluster.base + 10;
            final long twoId = cluster.base + 11;
            final long embeddedId = cluster.base + 12;
            final long lateId = cluster.base + 13;
            StandaloneDriver driver = cluster.driver(cluster.base + 2, driverName);
            ComputeNode one = null;
            ComputeNode two = null;
            ComputeNode embedded = null;
            ComputeNode late = null;
            try
            {
                one = attached(driverName, oneId);
                two = attached(driverName, twoId);
                embedded = embedded(cluster, embeddedId);
                MetaCluster.await("the three listed as compute",
                    () -> computeIds(observer).containsAll(Set.of(oneId, twoId, embeddedId)));
                try (RawResp toOne = new RawResp(one.port()))
                {
                    assertEquals("+OK", toOne.call("SET", "restart", "before"));
                }

                driver.close();
                driver = cluster.driver(cluster.base + 2, driverName);

                final int onePort = one.port();
                MetaCluster.await("the node behind the driver serves the store again",
                    () -> "$before".equals(callQuietly(onePort, "GET", "restart")));
                MetaCluster.await("both listed as compute again, registered by the new driver",
                    () -> computeIds(observer).containsAll(Set.of(oneId, twoId, embeddedId)));
                // a node started now has read nothing before: it lists the two behind the driver only if they
                // published their endpoints again in the new driver
                late = embedded(cluster, lateId);
                final int latePort = late.port();
                MetaCluster.await("a node started after the restart lists the four", () -> slotsListed(latePort) == 4);

                try (RawResp toOne = new RawResp(one.port());
                    RawResp toEmbedded = new RawResp(embedded.port());
                    RawResp subscriberOfOne = new RawResp(one.port());
                    RawResp subscriberOfTwo = new RawResp(two.port());
                    RawResp subscriberOfEmbedded = new RawResp(embedded.port()))
                {
                    assertEquals("*3[$subscribe, $news, :1]", subscriberOfTwo.call("SUBSCRIBE", "news"));
                    assertEquals("*3[$subscribe, $news, :1]", subscriberOfEmbedded.call("SUBSCRIBE", "news"));
                    final String fromOne = publishUntilHeard(toOne, "news", ":2");
                    assertEquals(fromOne, lastMessage(subscriberOfTwo, fromOne), "one reaches two, behind the driver");
                    assertEquals(fromOne, lastMessage(subscriberOfEmbedded, fromOne), "one reaches the embedded");

                    // one listens on the mesh again: a node with a driver of its own reaches it
                    assertEquals("*3[$subscribe, $back, :1]", subscriberOfOne.call("SUBSCRIBE", "back"));
                    final String fromEmbedded = publishUntilHeard(toEmbedded, "back", ":1");
                    assertEquals(fromEmbedded, lastMessage(subscriberOfOne, fromEmbedded), "the embedded reaches one");
                }
            }
            finally
            {
                CloseHelper.closeAll(late, embedded, two, one, driver);
            }
        }
    }

    /**
     * PUBLISH until as many subscribers as expected hear it: peers met through the old driver find their calls failed
     * and meet again, which takes a refresh or two.
     *
     * @return the message heard.
     */
    private static String publishUntilHeard(final RawResp publisher, final String channel, final String heard)
        throws Exception
    {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        for (int attempt = 0; ; attempt++)
        {
            final String message = "after the restart " + attempt;
            if (heard.equals(publisher.call("PUBLISH", channel, message)))
            {
                return message;
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no PUBLISH to " + channel + " was heard by " + heard + " within 60 s");
            }
            Thread.sleep(50);
        }
    }

    /** @return the message {@code expected} once read, reading past earlier attempts a subscriber heard. */
    private static String lastMessage(final RawResp subscriber, final String expected) throws Exception
    {
        while (true)
        {
            final String pushed = subscriber.read();
            final String message = pushed.substring(pushed.lastIndexOf(", $") + 3, pushed.length() - 1);
            if (message.equals(expected))
            {
                return message;
            }
        }
    }

    private static String callQuietly(final int port, final String... args)
    {
        try (RawResp resp = new RawResp(port))
        {
            return resp.call(args);
        }
        catch (final Exception ex)
        {
            return ex.toString();
        }
    }

    private static ComputeNode embedded(final MetaCluster cluster, final long nodeId)
    {
        return ComputeNode.start(new ComputeNodeContext().port(0).bindAddress("127.0.0.1").ioThreads(1)
            .raas(cluster.node(nodeId, NodeRecord.ROLE_COMPUTE), true));
    }

    private static ComputeNode attached(final String driverName, final long nodeId)
    {
        final Raas raas = AttachedRaas.attach(new RaasContext().driverName(driverName).attachAs(nodeId)
            .role(NodeRecord.ROLE_COMPUTE).timeoutMs(3_000));
        return ComputeNode.start(new ComputeNodeContext().port(0).bindAddress("127.0.0.1").ioThreads(1)
            .raas(raas, true));
    }

    private static Set<Long> computeIds(final Raas observer)
    {
        return observer.nodes(NodeRecord.ROLE_COMPUTE).stream().map(NodeRecord::id).collect(Collectors.toSet());
    }

    /** @return how many nodes the node on {@code port} lists in CLUSTER SLOTS. */
    private static int slotsListed(final int port)
    {
        try (RawResp resp = new RawResp(port))
        {
            final String slots = resp.call("CLUSTER", "SLOTS");
            return Integer.parseInt(slots.substring(1, slots.indexOf('[')));
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("CLUSTER SLOTS of port " + port, ex);
        }
    }
}
