package io.dkv.compute;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node runs its RESP path on each event loop before it accepts: the commands succeed, leave no key behind and are
 * not counted as the node's; a node told to skip it serves all the same.
 */
class WarmUpTest
{
    @Test
    void theWarmUpRunsEveryCommandLeavesNoKeyAndCountsApart() throws Exception
    {
        try (TestStore store = new TestStore(new ComputeNodeContext().warmupRounds(3)))
        {
            final ComputeNode node = store.computeNode();
            assertNull(node.warmUpFailure(), () -> "the warm-up failed: " + node.warmUpFailure());
            try (RawResp client = new RawResp(store.port()))
            {
                final String info = client.call("INFO", "stats");
                // this INFO alone: the warm-up's 27 commands count elsewhere
                assertTrue(info.contains("total_commands_processed:1\r\n"), info);
                // a node without a RaaS handle names its warm-up key by its port
                assertEquals(":0", client.call("EXISTS", "dkv:compute:warmup:port-" + store.port() + ":0",
                    "dkv:compute:warmup:port-" + store.port() + ":0:n"), "the warm-up's keys were deleted");
                assertEquals("+OK", client.call("SET", "after", "warm-up"));
                assertEquals("$warm-up", client.call("GET", "after"));
            }
        }
    }

    @Test
    void aNodeToldToSkipItServesAllTheSame() throws Exception
    {
        try (TestStore store = new TestStore(new ComputeNodeContext().warmupRounds(0));
            RawResp client = new RawResp(store.port()))
        {
            assertNull(store.computeNode().warmUpFailure());
            assertEquals("+OK", client.call("SET", "cold", "start"));
            assertEquals("$start", client.call("GET", "cold"));
        }
    }
}
