package io.dkv.load.check.store;

/**
 * A store that serves blocking pops, as compute nodes serve redis's BLPOP: a client of the driver has no such form, so
 * only the RESP store is one. Pushes and reads of whole lists are {@link CheckedStore#listSteps}'s RPUSH and LRANGE.
 */
public interface QueueStore
{
    /**
     * Take the head of the list at the key, waiting for one to be pushed (through any compute node) if it is empty.
     *
     * @param timeoutMs how long to wait, more than 0: the pop's own timeout, under the store's reply timeout.
     * @return the element taken, or null when none came in time.
     */
    byte[] blockingPop(String key, long timeoutMs);

    /**
     * @return the store as one that serves blocking pops.
     * @throws IllegalArgumentException naming the store when it serves none.
     */
    static QueueStore of(final CheckedStore store)
    {
        if (store instanceof QueueStore queue)
        {
            return queue;
        }
        throw new IllegalArgumentException("blocking pops need a store that serves them (RESP to compute nodes): " +
            store.getClass().getSimpleName() + " does not");
    }
}
