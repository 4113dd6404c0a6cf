package io.dkv.load.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * The heap live after the last collection: what each heap pool held right after it (its collection
 * usage), not what was allocated since. After a full {@link System#gc()}, the live set.
 */
public final class LiveHeap
{
    private LiveHeap()
    {
    }

    /** @return bytes the heap pools held after their last collection. */
    public static long afterLastCollection()
    {
        long total = 0;
        for (final MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans())
        {
            final MemoryUsage afterCollection = pool.getCollectionUsage();
            if (pool.getType() == MemoryType.HEAP && afterCollection != null)
            {
                total += afterCollection.getUsed();
            }
        }
        return total;
    }
}
