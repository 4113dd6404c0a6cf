package io.dkv.compute;

import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INFO memory of a compute node reports the pool's memory, as the memory nodes' heap headers tell it: used_memory what
 * their chunks hold handed out, used_memory_dataset the blocks their indexes name, total_system_memory their capacity,
 * a line per memory node; the figures follow what is written and deleted (each within a walk of the node's index).
 */
class InfoMemoryTest
{
    private static final int KEYS = 200;
    private static final int VALUE_BYTES = 4_000;
    private static final Pattern NODE_LINE = Pattern.compile(
        "dkv_memory_node_(\\d+):capacity=(\\d+),handed_out=(\\d+),live=(\\d+),reserve=(\\d+),room=(\\d+)," +
        "chunks_pinned=(\\d+),limit=(\\d+),walked_ms_ago=(\\d+)\r\n");
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(90);

    @Test
    void usedMemoryFollowsWhatThePoolsHeapsHoldAndEachMemoryNodeHasItsLine() throws Exception
    {
        try (TestStore store = new TestStore(new ComputeNodeContext(), SystemEpochClock.INSTANCE, 0,
            TestStore.HEAP_CHUNKS, 2); RawResp client = new RawResp(store.port()))
        {
            final Map<String, String> empty = awaitInfo(client, info -> "2".equals(info.get("dkv_memory_nodes_told")));
            assertEquals(2, nodeLines(client).size(), "a line per memory node");
            final long capacity = Long.parseLong(empty.get("total_system_memory"));
            assertTrue(capacity >= 2L * TestStore.HEAP_CHUNKS * (4 << 20) - 128, "capacity " + capacity);
            assertEquals("0", empty.get("maxmemory"));
            assertEquals("noeviction", empty.get("maxmemory_policy"));
            final long before = Long.parseLong(empty.get("used_memory_dataset"));

            final String value = "v".repeat(VALUE_BYTES);
            for (int i = 0; i < KEYS; i++)
            {
                assertEquals("+OK", client.call("SET", "memory-key-" + i, value));
            }
            final long written = (long)KEYS * VALUE_BYTES;
            final Map<String, String> filled = awaitInfo(client,
                info -> Long.parseLong(info.get("used_memory_dataset")) - before >= written);
            final long dataset = Long.parseLong(filled.get("used_memory_dataset"));
            final long used = Long.parseLong(filled.get("used_memory"));
            assertTrue(dataset - before <= written * 11 / 10, "each value a block a little longer: " + dataset);
            assertTrue(used >= dataset, "handed out " + used + " holds the live " + dataset);
            assertTrue(Long.parseLong(filled.get("used_memory_peak")) >= used, filled.toString());
            assertTrue(filled.get("used_memory_human").matches("\\d+\\.\\d{2}[KMG]"), filled.get("used_memory_human"));
            assertTrue(Double.parseDouble(filled.get("mem_fragmentation_ratio")) >= 1.0, filled.toString());
            long nodesLive = 0;
            for (final long[] node : nodeLines(client).values())
            {
                assertTrue(node[1] <= node[0] && node[2] <= node[1], "live <= handed out <= capacity");
                nodesLive += node[2];
            }
            assertTrue(nodesLive >= written, "the nodes' lines add up: " + nodesLive);

            for (int i = 0; i < KEYS; i++)
            {
                assertEquals(":1", client.call("DEL", "memory-key-" + i));
            }
            final Map<String, String> emptied = awaitInfo(client,
                info -> Long.parseLong(info.get("used_memory_dataset")) - before < written / 10);
            assertTrue(Long.parseLong(emptied.get("used_memory_peak")) >= used, "the peak stays: " + emptied);
        }
    }

    /** memory node id to capacity, handed out, live, as INFO memory's per-node lines tell them. */
    private static Map<String, long[]> nodeLines(final RawResp client) throws IOException
    {
        final Map<String, long[]> nodes = new HashMap<>();
        final Matcher line = NODE_LINE.matcher(client.call("INFO", "memory"));
        while (line.find())
        {
            nodes.put(line.group(1), new long[]{Long.parseLong(line.group(2)), Long.parseLong(line.group(3)),
                Long.parseLong(line.group(4))});
        }
        return nodes;
    }

    /** The memory nodes walk their indexes every few seconds at most, and the compute node reads them each second. */
    private static Map<String, String> awaitInfo(final RawResp client, final Predicate<Map<String, String>> until)
        throws Exception
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        Map<String, String> info = fields(client.call("INFO", "memory"));
        while (!until.test(info))
        {
            assertTrue(System.nanoTime() < deadline, "INFO memory never told it; last " + info);
            Thread.sleep(100);
            info = fields(client.call("INFO", "memory"));
        }
        return info;
    }

    static Map<String, String> fields(final String info)
    {
        final Map<String, String> fields = new HashMap<>();
        for (final String line : info.split("\r\n"))
        {
            final int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#"))
            {
                fields.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return fields;
    }
}
