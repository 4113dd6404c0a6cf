package io.dkv.client.async;

/**
 * What an {@link AsyncPool} keeps of each of its operations: its place in the pool, the number that tells its
 * requests' completions from those of the pool's earlier operations in the same place, and how many it finished by
 * completions alone.
 */
abstract class AsyncOperation
{
    final int index;
    /** Of the operation in progress: set by the owner as it starts one, read by the completing threads. */
    volatile int sequence;
    /** Operations this object finished from completions alone; written by the thread finishing one, each in turn. */
    long answered;

    AsyncOperation(final int index)
    {
        this.index = index;
    }

    /** @return true when a completion's token belongs to the operation in progress (its low 32 bits). */
    final boolean isToken(final long token)
    {
        return (int)token == sequence;
    }
}
