package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.CommandRun;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table {@code dkv up} prints says, for every role, how to read its figures while it runs: a compute node's
 * metrics endpoint, the autoscaler's nodes' endpoints, and for the roles that serve no HTTP (MetaServer, memory node,
 * driver) the {@code --counters} command that reads their counters files.
 */
class UpTableTest
{
    private final CommandRun dkv = new CommandRun(DkvMain::commandLine);

    @Test
    void everyRoleHasALineSayingHowToReadItsFigures()
    {
        final List<String> lines = UpTable.lines(List.of(
            new UpTable.Row("MetaServer", 11, "meta:shm:dkv-meta-1", "meta.log", UpTable.metaCounters("1")),
            new UpTable.Row("memory node", 12, "node 101 at shm:101", "memory-node-101.log",
                UpTable.memoryNodeCounters("101")),
            new UpTable.Row("driver", 13, "attach as 'dkv-up', node 1001", "driver.log",
                UpTable.driverCounters("dkv-up")),
            new UpTable.Row("compute node", 14, "node 201, RESP on 127.0.0.1:6379", "compute-node-201.log",
                UpTable.computeMetrics("http://127.0.0.1:40001/metrics"))));
        assertEquals(List.of(
            "role           pid      where                                    log",
            "MetaServer     11       meta:shm:dkv-meta-1                      meta.log",
            "memory node    12       node 101 at shm:101                      memory-node-101.log",
            "driver         13       attach as 'dkv-up', node 1001            driver.log",
            "compute node   14       node 201, RESP on 127.0.0.1:6379         compute-node-201.log",
            "",
            "metrics (compute nodes: Prometheus text) and counters, read while the cluster runs:",
            "  MetaServer     11       ./dkv meta --counters --node-id 1",
            "  memory node    12       ./dkv memory-node --counters --node-id 101",
            "  driver         13       ./dkv driver --counters --name dkv-up",
            "  compute node   14       curl -s http://127.0.0.1:40001/metrics"), lines);
    }

    @Test
    void theAutoscalersNodesEndpointsAreThoseItsReadyLineListed()
    {
        assertEquals("curl -s http://127.0.0.1:40001/metrics; curl -s http://127.0.0.1:40002/metrics (its nodes; " +
                "one it adds names its own as it serves)",
            UpTable.autoscalerMetrics("http://127.0.0.1:40001/metrics, http://127.0.0.1:40002/metrics"));
        assertEquals("(its nodes; one it adds names its own as it serves)", UpTable.autoscalerMetrics(null),
            "an autoscaler of an older build lists none");
    }

    @Test
    void aLongWhereRunsOnAndOnlyTheMetaServersEndpointIsShortened()
    {
        final String line = UpTable.lines(List.of(new UpTable.Row("autoscaler", 1,
            "1 compute node(s), RESP on 127.0.0.1:43957", "autoscale.log", ""))).get(1);
        assertTrue(line.endsWith("1 compute node(s), RESP on 127.0.0.1:43957 autoscale.log"), line);
        assertEquals("meta:" + "x".repeat(32) + "...", UpTable.shorten("meta:" + "x".repeat(60)));
    }

    @Test
    void theCountersLinesAreCommandsDkvTakes()
    {
        for (final String line : List.of(UpTable.metaCounters("1"), UpTable.memoryNodeCounters("101"),
            UpTable.driverCounters("dkv-up-none")))
        {
            dkv.run(line.substring("./dkv ".length()).split(" "));
            assertFalse(dkv.err().contains("Unknown option") || dkv.err().contains("Usage:") ||
                dkv.err().contains("Missing required"), () -> line + ": " + dkv.err());
        }
    }
}
