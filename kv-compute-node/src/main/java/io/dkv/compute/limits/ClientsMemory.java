package io.dkv.compute.limits;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node's bound on replies pending across all its connections (redis's maxmemory-clients, in bytes): what they
 * hold is direct memory, of which a compute node has its heap's size by default, and one that runs out fails writes to
 * every connection, those that read their replies included. Every {@link #SCAN_MS} the pending bytes of every
 * connection are summed and, past the bound, the connections holding most are closed until the rest fit, as redis
 * evicts its clients by memory. One thread scans; connections come and go on any.
 */
public final class ClientsMemory
{
    /** How often the connections are summed. */
    public static final long SCAN_MS = 100;

    private final ClientLimits limits;
    private final Set<OutputBufferWatch> watches = ConcurrentHashMap.newKeySet();
    private final List<OutputBufferWatch> scanned = new ArrayList<>();
    private long[] bytes = new long[64];
    private volatile long lastTotal;

    public ClientsMemory(final ClientLimits limits)
    {
        this.limits = limits;
    }

    public void add(final OutputBufferWatch watch)
    {
        watches.add(watch);
    }

    public void remove(final OutputBufferWatch watch)
    {
        watches.remove(watch);
    }

    /** @return the replies pending across connections at the last scan. */
    public long lastTotal()
    {
        return lastTotal;
    }

    /**
     * Sum the connections' pending replies and close the largest while the sum is past the bound.
     *
     * @return connections closed.
     */
    public int scan()
    {
        scanned.clear();
        long total = 0;
        for (final OutputBufferWatch watch : watches)
        {
            if (watch.closed())
            {
                continue;
            }
            if (scanned.size() == bytes.length)
            {
                bytes = Arrays.copyOf(bytes, 2 * bytes.length);
            }
            final long pending = watch.pendingBytes();
            bytes[scanned.size()] = pending;
            scanned.add(watch);
            total += pending;
        }
        lastTotal = total;
        final long bound = limits.clientsMemory();
        int evicted = 0;
        while (bound > 0 && total > bound)
        {
            int largest = -1;
            for (int i = 0; i < scanned.size(); i++)
            {
                if (bytes[i] > 0 && (largest < 0 || bytes[i] > bytes[largest]))
                {
                    largest = i;
                }
            }
            if (largest < 0)
            {
                break;
            }
            scanned.get(largest).evict(bytes[largest]);
            total -= bytes[largest];
            bytes[largest] = 0;
            evicted++;
        }
        return evicted;
    }
}
