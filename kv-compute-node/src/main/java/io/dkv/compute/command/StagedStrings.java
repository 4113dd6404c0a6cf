package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.pieces.PieceWriter;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.compute.resp.LongBulkSink;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection's long bulks written into pieces as they arrive (client/README.md, "Strings in pieces"): a bulk
 * becomes a {@link PiecedString} nobody reads until a command publishes it ({@link LongStringWrites}), or abandons it.
 * The pieces carry no expiry: a SET with one writes them again with it.
 *
 * <p>The connection's event loop copies the bytes into chunks of {@link #CHUNK} bytes and hands each to the store
 * threads, where the pieces are written one chunk after another (each bulk's chunks in order, on whichever thread is
 * free), so that the loop never waits on a WRITE of a piece. What a bulk becomes ({@link #finish}) is a future of its
 * {@link PiecedString}, which the request waits for before it runs. At most {@link #CHUNKS_OUT_MAX} chunks are out at
 * once: past that {@link #backlogged()} says so and the connection stops reading until they drain to half of it.
 * Called on the connection's event loop, but for the drained callback.
 */
public final class StagedStrings implements LongBulkSink
{
    /** Bytes the loop copies before handing them on: a store thread's task each. */
    static final int CHUNK = 64 * 1024;
    /** Chunks written by no store thread yet, at most, before the connection stops reading: 1 MiB. */
    static final int CHUNKS_OUT_MAX = 16;

    private final PiecedStrings strings;
    private final Executor writes;
    private final AtomicInteger chunksOut = new AtomicInteger();
    private final AtomicBoolean paused = new AtomicBoolean();
    private volatile Runnable drained = () ->
    {
    };
    private Bulk bulk;

    /**
     * @param client the client whose pieces the bulks become.
     * @param writes where the pieces are written, one chunk at a time per bulk (the store threads).
     */
    public StagedStrings(final KvClient client, final Executor writes)
    {
        this.strings = new PiecedStrings(client);
        this.writes = writes;
    }

    /** @param drained run on a store thread once a connection that stopped reading may read again. */
    public void onDrained(final Runnable drained)
    {
        this.drained = drained;
    }

    public void begin(final long length)
    {
        bulk = new Bulk();
    }

    public void write(final ByteBuf in, final int length)
    {
        int left = length;
        while (left > 0)
        {
            left -= bulk.take(in, left);
        }
    }

    /** @return a future of the bulk's {@link PiecedString}: complete once its last piece is written. */
    public Object finish()
    {
        final CompletableFuture<PiecedString> staged = bulk.finish();
        bulk = null;
        return staged;
    }

    public void abandon()
    {
        if (bulk != null)
        {
            bulk.abandon();
            bulk = null;
        }
    }

    public void abandon(final Object staged)
    {
        whenWritten(staged, string -> strings.abandon(string, null), writes);
    }

    /**
     * @return true while more chunks are out than {@link #CHUNKS_OUT_MAX}: the connection reads nothing until
     * {@link #onDrained} says they drained to half of it.
     */
    public boolean backlogged()
    {
        if (chunksOut.get() < CHUNKS_OUT_MAX)
        {
            // every turn of every connection asks: one read, no write, where no long bulk is out
            return false;
        }
        // marked before the count is read again: a chunk that drains the count after that read sees the mark
        paused.set(true);
        return chunksOut.get() >= CHUNKS_OUT_MAX;
    }

    /** @return a long argument the decoder staged, once written: its string, or its failure thrown. */
    @SuppressWarnings("unchecked")
    static PiecedString written(final Object staged)
    {
        return ((CompletableFuture<PiecedString>)staged).join();
    }

    /** @return true once the staged argument's pieces are all written, or their writing failed. */
    static boolean arrived(final Object staged)
    {
        return ((CompletableFuture<?>)staged).isDone();
    }

    /** Run {@code then} on {@code executor} with the staged argument's string once written; nothing if it failed. */
    @SuppressWarnings("unchecked")
    static void whenWritten(final Object staged, final java.util.function.Consumer<PiecedString> then,
        final Executor executor)
    {
        ((CompletableFuture<PiecedString>)staged).thenAcceptAsync(then, executor);
    }

    /** Wake {@code then} once the staged argument's pieces are all written, or their writing failed. */
    static void whenArrived(final Object staged, final Runnable then)
    {
        ((CompletableFuture<?>)staged).whenComplete((string, failure) -> then.run());
    }

    private void chunkWritten()
    {
        if (chunksOut.decrementAndGet() <= CHUNKS_OUT_MAX / 2 && paused.compareAndSet(true, false))
        {
            drained.run();
        }
    }

    /**
     * One bulk under way: the chunk the loop fills, and the chain of its chunks' writes, each after the one before.
     * Its {@link PieceWriter} is made by the first write and touched by the chain only.
     */
    private final class Bulk
    {
        private CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        private PieceWriter writer;
        private byte[] chunk;
        private int filled;

        /** @return bytes taken from {@code in}, at most {@code left}: up to the chunk's end, which then goes out. */
        int take(final ByteBuf in, final int left)
        {
            if (chunk == null)
            {
                chunk = new byte[CHUNK];
            }
            final int n = Math.min(left, chunk.length - filled);
            in.readBytes(chunk, filled, n);
            filled += n;
            if (filled == chunk.length)
            {
                send();
            }
            return n;
        }

        private void send()
        {
            if (filled == 0)
            {
                return;
            }
            final byte[] bytes = chunk;
            final int n = filled;
            chunk = null;
            filled = 0;
            chunksOut.incrementAndGet();
            chain = chain.handleAsync((ignored, failure) ->
            {
                try
                {
                    if (failure == null)
                    {
                        writer().write(bytes, 0, n);
                    }
                }
                finally
                {
                    chunkWritten();
                }
                if (failure != null)
                {
                    // a chunk before failed: this one is not written, and the bulk fails with that chunk's failure
                    throw failure instanceof CompletionException passed ? passed : new CompletionException(failure);
                }
                return null;
            }, writes);
        }

        private PieceWriter writer()
        {
            if (writer == null)
            {
                writer = strings.writer(KvClient.NO_EXPIRY);
            }
            return writer;
        }

        CompletableFuture<PiecedString> finish()
        {
            send();
            return chain.thenApplyAsync(ignored -> writer().finish(), writes).whenComplete((string, failure) ->
            {
                if (failure != null && writer != null)
                {
                    // the pieces written before the failure are nobody's
                    writer.abandon();
                }
            });
        }

        void abandon()
        {
            chunk = null;
            chain.whenCompleteAsync((ignored, failure) ->
            {
                if (writer != null)
                {
                    writer.abandon();
                }
            }, writes);
        }
    }
}
