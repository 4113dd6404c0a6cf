package io.dkv.verbs;

/**
 * Shared receive queue, as {@code ibv_srq}: receive requests consumed by any queue pair or DC
 * target attached to it. Receive requests in an SRQ are not flushed when one of those errors.
 */
public interface SharedReceiveQueue extends AutoCloseable
{
    void postRecv(RecvWorkRequest wr);

    void close();
}
