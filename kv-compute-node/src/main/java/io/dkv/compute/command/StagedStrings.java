package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.pieces.PieceWriter;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.compute.resp.LongBulkSink;
import io.netty.buffer.ByteBuf;

/**
 * A connection's long bulks written into pieces as they arrive (client/README.md, "Strings in pieces"): a bulk
 * becomes a {@link PiecedString} nobody reads until a command publishes it ({@link LongStringWrites}), or abandons it.
 * The pieces carry no expiry: a SET with one writes them again with it. Touched by the connection's event loop only.
 */
public final class StagedStrings implements LongBulkSink
{
    private static final int CHUNK = 64 * 1024;

    private final PiecedStrings strings;
    private final byte[] chunk = new byte[CHUNK];
    private PieceWriter writer;

    public StagedStrings(final KvClient client)
    {
        this.strings = new PiecedStrings(client);
    }

    public void begin(final long length)
    {
        writer = strings.writer(KvClient.NO_EXPIRY);
    }

    public void write(final ByteBuf in, final int length)
    {
        int left = length;
        while (left > 0)
        {
            final int n = Math.min(left, chunk.length);
            in.readBytes(chunk, 0, n);
            writer.write(chunk, 0, n);
            left -= n;
        }
    }

    public Object finish()
    {
        final PiecedString staged = writer.finish();
        writer = null;
        return staged;
    }

    public void abandon()
    {
        if (writer != null)
        {
            writer.abandon();
            writer = null;
        }
    }

    public void abandon(final Object staged)
    {
        strings.abandon((PiecedString)staged, null);
    }
}
