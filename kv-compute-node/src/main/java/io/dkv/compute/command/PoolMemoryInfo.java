package io.dkv.compute.command;

import io.dkv.client.node.MemoryNodeHeap;
import io.dkv.compute.store.PoolHeaders;

import java.util.Locale;

/**
 * INFO memory of a compute node: the pool's memory, as the memory nodes' heap headers last showed it (at most a second
 * ago), in redis's field names where one means the same. used_memory is what the pool's heaps hold handed out (chunks
 * being written, live, or retired and not yet reclaimed), used_memory_dataset what the blocks their indexes name take,
 * mem_fragmentation_ratio the one over the other: how much waits for the reclaimer. A node that cannot be read, or
 * whose build tells nothing, counts for nothing and says so on its own line. This process's own Java heap is
 * dkv_compute_jvm_used.
 */
final class PoolMemoryInfo
{
    private PoolMemoryInfo()
    {
    }

    /**
     * @param reading       the memory nodes' headers as last read.
     * @param peak          the most the pool held handed out at once, of the readings so far.
     * @param maxMemory     the pool's maxmemory as the reading's heap limits hold it; 0: none.
     * @param nowEpochMs    now, by the client's clock, which the readings' times count.
     * @param cachedScripts the scripts SCRIPT LOAD or EVAL cached on this node.
     * @return the section's lines, each ending CRLF.
     */
    static String render(final PoolHeaders.Reading reading, final long peak, final long maxMemory,
        final long nowEpochMs, final long cachedScripts)
    {
        long capacity = 0;
        long handedOut = 0;
        long live = 0;
        long reserve = 0;
        long room = 0;
        int pinned = 0;
        int told = 0;
        final StringBuilder nodes = new StringBuilder();
        for (final MemoryNodeHeap heap : reading.heaps())
        {
            final String id = Long.toUnsignedString(heap.nodeId());
            if (!heap.told())
            {
                nodes.append("dkv_memory_node_").append(id).append(heap.reachable() ? ":heap=untold\r\n" :
                    ":unreachable\r\n");
                continue;
            }
            told++;
            capacity += heap.capacity();
            handedOut += heap.handedOut();
            live += heap.live();
            reserve += heap.reserve();
            room += heap.room();
            pinned += heap.pinned();
            final long walked = heap.walkedAtEpochMs() == 0 ? -1 : Math.max(0, nowEpochMs - heap.walkedAtEpochMs());
            nodes.append("dkv_memory_node_").append(id).append(":capacity=").append(heap.capacity())
                .append(",handed_out=").append(heap.handedOut()).append(",live=").append(heap.live())
                .append(",reserve=").append(heap.reserve()).append(",room=").append(heap.room())
                .append(",chunks_pinned=").append(heap.pinned()).append(",limit=").append(Math.max(0, heap.limit()))
                .append(",walked_ms_ago=").append(walked)
                .append("\r\n");
        }
        final Runtime runtime = Runtime.getRuntime();
        final long peakNow = Math.max(peak, handedOut);
        return "used_memory:" + handedOut + "\r\n" +
            "used_memory_human:" + human(handedOut) + "\r\n" +
            "used_memory_peak:" + peakNow + "\r\n" +
            "used_memory_peak_human:" + human(peakNow) + "\r\n" +
            "used_memory_peak_perc:" + percent(handedOut, peakNow) + "\r\n" +
            "used_memory_dataset:" + live + "\r\n" +
            "used_memory_dataset_perc:" + percent(live, handedOut) + "\r\n" +
            "total_system_memory:" + capacity + "\r\n" +
            "total_system_memory_human:" + human(capacity) + "\r\n" +
            "maxmemory:" + maxMemory + "\r\n" +
            "maxmemory_human:" + human(maxMemory) + "\r\n" +
            "maxmemory_policy:noeviction\r\n" +
            "mem_fragmentation_ratio:" + ratio(handedOut, live) + "\r\n" +
            "mem_fragmentation_bytes:" + Math.max(0, handedOut - live) + "\r\n" +
            "number_of_cached_scripts:" + cachedScripts + "\r\n" +
            "mem_allocator:dkv-chunks\r\n" +
            "dkv_compute_jvm_used:" + (runtime.totalMemory() - runtime.freeMemory()) + "\r\n" +
            "dkv_memory_nodes_told:" + told + "\r\n" +
            "dkv_pool_room:" + room + "\r\n" +
            "dkv_pool_reserve:" + reserve + "\r\n" +
            "dkv_chunks_pinned:" + pinned + "\r\n" +
            "dkv_heaps_read_ms_ago:" + (reading.readAtEpochMs() == 0 ? -1 : nowEpochMs - reading.readAtEpochMs()) +
            "\r\n" +
            nodes;
    }

    /** Redis's bytesToHuman: B under a KiB, else two decimals of K, M, G, T or P. */
    static String human(final long bytes)
    {
        if (bytes < 1024)
        {
            return bytes + "B";
        }
        final String units = "KMGTP";
        double value = bytes / 1024.0;
        int unit = 0;
        while (value >= 1024 && unit < units.length() - 1)
        {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.2f%c", value, units.charAt(unit));
    }

    private static String ratio(final long handedOut, final long live)
    {
        return String.format(Locale.ROOT, "%.2f", live == 0 ? 1.0 : (double)handedOut / live);
    }

    private static String percent(final long part, final long whole)
    {
        return String.format(Locale.ROOT, "%.2f%%", whole == 0 ? 0.0 : part * 100.0 / whole);
    }
}
