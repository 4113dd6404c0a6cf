package io.dkv.compute;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A compute node joins the cluster as the real command does: its RaaS handle registers it with the MetaServer as role
 * compute, its client finds the memory nodes the MetaServer lists and runs on the node's clocks, and closing it drains
 * and deregisters it.
 */
class ComputeNodeRegistrationTest
{
    @TempDir
    Path dir;

    @Test
    void aComputeNodeAppearsInTheDirectoryWhileItServesAndLeavesOnClose() throws Exception
    {
        try (MetaCluster cluster = new MetaCluster(dir);
            Raas observer = cluster.node(cluster.base + 2, NodeRecord.ROLE_CLIENT))
        {
            final long computeId = cluster.base + 3;
            final Raas computeRaas = cluster.node(computeId, NodeRecord.ROLE_COMPUTE);
            final CachedEpochClock clock = new CachedEpochClock();
            clock.update(TestStore.YEAR_2100_MILLIS);
            final ComputeNode compute = ComputeNode.start(new ComputeNodeContext().port(0).ioThreads(1)
                .epochClock(clock).raas(computeRaas, true));
            try
            {
                MetaCluster.await("the compute node listed", () -> listed(observer, computeId));
                try (RawResp client = new RawResp(compute.port()))
                {
                    assertEquals("+OK", client.call("SET", "joined", "yes"));
                    assertEquals("$yes", client.call("GET", "joined"));
                    // an expiry set and judged by the node's clock: the client it made was handed that clock
                    assertEquals("+OK", client.call("SET", "brief", "v", "PX", "1000"));
                    assertEquals("$v", client.call("GET", "brief"));
                    clock.advance(1_000);
                    assertEquals("$nil", client.call("GET", "brief"));
                }
            }
            finally
            {
                compute.close();
            }
            MetaCluster.await("the compute node gone from the directory", () -> !listed(observer, computeId));
        }
    }

    private static boolean listed(final Raas observer, final long nodeId)
    {
        return observer.nodes(NodeRecord.ROLE_COMPUTE).stream().anyMatch(record -> record.id() == nodeId);
    }
}
