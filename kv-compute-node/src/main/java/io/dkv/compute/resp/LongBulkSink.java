package io.dkv.compute.resp;

import io.netty.buffer.ByteBuf;

/**
 * Where the decoder hands a bulk longer than it holds (past its bulk bound, up to redis's 512 MB) as its bytes arrive,
 * so that no array of its length is made: the store's pieces, written as they fill. One bulk at a time, on the
 * connection's event loop; what it does with them may go on elsewhere.
 */
public interface LongBulkSink
{
    /** A bulk of {@code length} bytes begins. */
    void begin(long length);

    /** Take {@code length} of the bulk's bytes from {@code in}'s reader index on. */
    void write(ByteBuf in, int length);

    /** @return what stands for the whole bulk in its request ({@link LongRequest#staged}), all its bytes taken. */
    Object finish();

    /** The bulk under way will not be finished (the connection closed, the request broke the protocol). */
    void abandon();

    /** A bulk finished earlier will not be used: its request was never handed on. */
    void abandon(Object staged);

    /** @return true while the sink holds more of the bytes handed on than it takes: the connection should not read. */
    default boolean backlogged()
    {
        return false;
    }

    /** @param drained run, on any thread, when a sink that said it was backlogged takes bytes again. */
    default void onDrained(final Runnable drained)
    {
    }
}
