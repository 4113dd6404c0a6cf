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
 * that name them. Closed, an attached node leaves the MetaServer's list.
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
