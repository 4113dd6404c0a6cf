package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.pieces.PiecesGoneException;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Replies that hold a string in pieces, written a piece at a time as the peer takes them, so that a node never holds
 * a long string whole (client/README.md, "Strings in pieces"). A command that answers with one
 * {@link #value marks} where in its replies the string goes; the connection then {@link #settle}s what follows the
 * mark into parts that go after the string, and runs nothing more of its requests until every part is out
 * ({@link #next}).
 * Touched by the connection's event loop only.
 */
public final class StreamedReplies
{
    private final PiecedStrings strings;
    private final ArrayDeque<Object> parts = new ArrayDeque<>();
    private final List<Stream> marked = new ArrayList<>();
    private final List<Integer> marks = new ArrayList<>();
    private Executor readAhead;
    private Runnable arrived;

    public StreamedReplies(final KvClient client)
    {
        this.strings = new PiecedStrings(client);
    }

    /**
     * Read each piece ahead on another thread rather than on the connection's loop as the reply goes out: the loop
     * writes a piece while the next is read, and waits on no READ ({@link #waiting}).
     *
     * @param readAhead where the pieces are read (the node's store threads).
     * @param arrived   run on that thread once a piece was read: the connection's loop goes on with the reply.
     */
    public void readAhead(final Executor readAhead, final Runnable arrived)
    {
        this.readAhead = readAhead;
        this.arrived = arrived;
    }

    /** @return true when the string under way waits for a piece read ahead: its arrival resumes the connection. */
    public boolean waiting()
    {
        return parts.peek() instanceof Stream stream && stream.ahead != null && !stream.ahead.isDone();
    }

    /**
     * Answer bytes {@code from} to {@code to} (exclusive) of a string in pieces as a bulk string, after what
     * {@code out} holds now.
     *
     * @param after run once the string is out (or the connection gone): removes pieces kept for this reply; null for
     *              nothing.
     */
    public void value(final byte[] key, final PiecedString string, final long from, final long to, final ByteBuf out,
        final Runnable after)
    {
        marked.add(new Stream(key, string, from, to, after));
        marks.add(out.writerIndex());
    }

    /** @return true when a command marked a string since the last {@link #settle}. */
    public boolean marked()
    {
        return !marked.isEmpty();
    }

    /**
     * Put what must wait behind a string in the parts to come: with parts waiting already, everything {@code out}
     * holds from {@code from} on (replies of requests run after the string's); else what follows the first mark. Each
     * string marked goes in its place among them.
     *
     * @param from where in {@code out} the replies of the requests just run begin.
     */
    public void settle(final ByteBuf out, final int from)
    {
        if (parts.isEmpty() && marked.isEmpty())
        {
            return;
        }
        final int cut = parts.isEmpty() ? marks.getFirst() : Math.min(from, out.writerIndex());
        int at = cut;
        for (int i = 0; i < marked.size(); i++)
        {
            final int mark = marks.get(i);
            if (mark > at)
            {
                parts.add(out.copy(at, mark - at));
            }
            parts.add(marked.get(i));
            at = Math.max(at, mark);
        }
        if (out.writerIndex() > at)
        {
            parts.add(out.copy(at, out.writerIndex() - at));
        }
        out.writerIndex(cut);
        marked.clear();
        marks.clear();
    }

    /** @return true while parts wait to go out: the connection runs nothing else meanwhile. */
    public boolean active()
    {
        return !parts.isEmpty();
    }

    /**
     * Write the next part, or a piece of the string under way, to {@code out}.
     *
     * @return bytes written, or -1 when the string changed while it went out (part of it is gone to the peer: nothing
     * mends that reply; the connection closes).
     */
    public int next(final ByteBuf out)
    {
        final Object head = parts.peek();
        if (head instanceof ByteBuf bytes)
        {
            parts.poll();
            final int n = bytes.readableBytes();
            out.writeBytes(bytes);
            bytes.release();
            return n;
        }
        final Stream stream = (Stream)head;
        final int before = out.writerIndex();
        try
        {
            if (stream.next(out))
            {
                parts.poll();
                stream.done();
            }
        }
        catch (final PiecesGoneException ex)
        {
            abandon();
            return -1;
        }
        catch (final CompletionException ex)
        {
            if (!(ex.getCause() instanceof PiecesGoneException))
            {
                throw ex;
            }
            abandon();
            return -1;
        }
        return out.writerIndex() - before;
    }

    /** The connection is gone: nothing more goes out; pieces kept for a reply are removed. */
    public void abandon()
    {
        for (final Object part : parts)
        {
            if (part instanceof ByteBuf bytes)
            {
                bytes.release();
            }
            else
            {
                ((Stream)part).done();
            }
        }
        parts.clear();
        marked.forEach(Stream::done);
        marked.clear();
        marks.clear();
    }

    /** Bytes of a piece read ahead, as the pieces' reader handed them. */
    private record Piece(byte[] bytes, int offset, int length)
    {
    }

    private final class Stream
    {
        private final byte[] key;
        private final PiecedString string;
        private final long to;
        private final Runnable after;
        private long at;
        private boolean begun;
        private boolean finished;
        /** The piece from {@link #at} read ahead, where pieces are. */
        private CompletableFuture<Piece> ahead;

        Stream(final byte[] key, final PiecedString string, final long from, final long to, final Runnable after)
        {
            this.key = key;
            this.string = string;
            this.at = from;
            this.to = to;
            this.after = after;
        }

        /** @return true when the whole bulk is out. */
        boolean next(final ByteBuf out)
        {
            if (!begun)
            {
                begun = true;
                out.writeByte('$').writeCharSequence(Long.toString(to - at), StandardCharsets.US_ASCII);
                out.writeByte('\r').writeByte('\n');
            }
            if (at < to)
            {
                if (readAhead == null)
                {
                    final long pieceEnd = pieceEnd(at);
                    strings.read(key, string, at, pieceEnd, out::writeBytes);
                    at = pieceEnd;
                }
                else
                {
                    if (ahead == null)
                    {
                        ahead = readFrom(at);
                    }
                    if (!ahead.isDone())
                    {
                        return false;
                    }
                    final Piece piece = ahead.join();
                    at = pieceEnd(at);
                    // the next piece is read while this one goes out
                    ahead = at < to ? readFrom(at) : null;
                    out.writeBytes(piece.bytes, piece.offset, piece.length);
                }
            }
            if (at < to)
            {
                return false;
            }
            out.writeByte('\r').writeByte('\n');
            return true;
        }

        private long pieceEnd(final long from)
        {
            return Math.min(to, (from / string.pieceBytes() + 1) * string.pieceBytes());
        }

        private CompletableFuture<Piece> readFrom(final long from)
        {
            final long end = pieceEnd(from);
            final CompletableFuture<Piece> read = CompletableFuture.supplyAsync(() ->
            {
                final Piece[] piece = new Piece[1];
                strings.read(key, string, from, end, (bytes, offset, length) -> piece[0] = new Piece(bytes, offset,
                    length));
                return piece[0];
            }, readAhead);
            read.whenComplete((piece, failure) -> arrived.run());
            return read;
        }

        void done()
        {
            if (!finished && after != null)
            {
                finished = true;
                after.run();
            }
        }
    }
}
