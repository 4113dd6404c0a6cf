package io.dkv.load.bench.ycsb;

import io.dkv.memory.MemoryNodeContext;

import java.util.ArrayList;
import java.util.List;

/**
 * A dkv store per replica count, all up at once, so that their runs can alternate: a store's keys
 * are placed for its count, so counts cannot share one, and runs of one count after all those of
 * another would compare a JVM still compiling, or a machine busier, with another.
 */
final class ReplicaStores implements AutoCloseable
{
    private final List<InProcessStore> stores = new ArrayList<>();

    /**
     * @param replicas    the counts, each a store.
     * @param memoryNode  each memory node's index and heap.
     * @param lanes       client drivers of each store's client.
     * @param memoryNodes memory nodes of each store: at least the largest count.
     */
    ReplicaStores(final List<Integer> replicas, final MemoryNodeContext memoryNode, final int lanes,
        final int memoryNodes)
    {
        try
        {
            for (final int count : replicas)
            {
                stores.add(InProcessStore.start(memoryNode, lanes, memoryNodes, count));
            }
        }
        catch (final RuntimeException ex)
        {
            try
            {
                close();
            }
            catch (final RuntimeException closing)
            {
                ex.addSuppressed(closing);
            }
            throw ex;
        }
    }

    /** @return the stores, in the order of the counts given. */
    List<InProcessStore> stores()
    {
        return stores;
    }

    public void close()
    {
        RuntimeException failure = null;
        for (final InProcessStore store : stores)
        {
            try
            {
                store.close();
            }
            catch (final RuntimeException ex)
            {
                if (failure == null)
                {
                    failure = ex;
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }
}
