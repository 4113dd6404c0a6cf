package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two compute nodes over one store answer CLUSTER as one cluster of both, the slots split between them: a cluster
 * client (JedisCluster) seeded with one finds both and spreads its keys over them, and what it sets is read through
 * either node, which serves every slot (never MOVED). A node closed leaves the others' replies.
 */
class JedisClusterTest
{
    @TempDir
    Path dir;

    @Test
    void jedisClusterSetsAndGetsThroughTwoComputeNodesThatListEachOther() throws Exception
    {
        try (TwoComputeNodes nodes = new TwoComputeNodes(dir, null))
        {
            final ComputeNode first = nodes.first();
            final ComputeNode second = nodes.second();
            try (RawResp resp = new RawResp(first.port()))
            {
                final String slots = resp.call("CLUSTER", "SLOTS");
                assertEquals("*2[*3[:0, :8191, *4[$127.0.0.1, :" + first.port() + ", $" + String.format("%040x",
                    nodes.firstId()) + ", *0[]]], *3[:8192, :16383, *4[$127.0.0.1, :" + second.port() + ", $" +
                    String.format("%040x", nodes.secondId()) + ", *0[]]]]", slots,
                    "the slots split between the nodes in the order of their ids");
                assertTrue(resp.call("CLUSTER", "SHARDS").startsWith("*2["), "one shard per node");
                assertTrue(resp.call("CLUSTER", "INFO").contains("cluster_known_nodes:2"));
            }
            try (JedisCluster cluster = new JedisCluster(new HostAndPort("127.0.0.1", first.port())))
            {
                assertEquals(Set.of("127.0.0.1:" + first.port(), "127.0.0.1:" + second.port()),
                    cluster.getClusterNodes().keySet());
                for (int i = 0; i < 50; i++)
                {
                    assertEquals("OK", cluster.set("cluster-key-" + i, "v" + i));
                }
                for (int i = 0; i < 50; i++)
                {
                    assertEquals("v" + i, cluster.get("cluster-key-" + i));
                }
            }
            try (RawResp resp = new RawResp(second.port()))
            {
                assertEquals("$v7", resp.call("GET", "cluster-key-7"), "a key set through the cluster client is " +
                    "read through either node");
            }
            second.close();
            MetaCluster.await("the node closed leaves the other's reply", () -> nodes.slotsListed(first.port()) == 1);
        }
    }
}
