package io.dkv.raas.stream;

import io.dkv.raas.RaasException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;

/** A stream as a {@link ByteChannel} ({@link java.nio.channels.ReadableByteChannel} and writable): blocking. */
public final class StreamChannel implements ByteChannel
{
    private final RaasStream stream;

    StreamChannel(final RaasStream stream)
    {
        this.stream = stream;
    }

    /** @return bytes read (at least one when {@code dst} has room), or -1 at the end of the stream. */
    public int read(final ByteBuffer dst) throws IOException
    {
        requireOpen();
        if (!dst.hasRemaining())
        {
            return 0;
        }
        try
        {
            final int n = stream.read(MemorySegment.ofBuffer(dst), 0, dst.remaining());
            if (n > 0)
            {
                dst.position(dst.position() + n);
            }
            return n;
        }
        catch (final RaasException ex)
        {
            throw new IOException(ex.getMessage(), ex);
        }
    }

    /** @return bytes written: all that remained in {@code src}. */
    public int write(final ByteBuffer src) throws IOException
    {
        requireOpen();
        final int n = src.remaining();
        try
        {
            stream.write(MemorySegment.ofBuffer(src), 0, n);
        }
        catch (final RaasException ex)
        {
            throw new IOException(ex.getMessage(), ex);
        }
        src.position(src.position() + n);
        return n;
    }

    /** Shut this end's output; reading goes on. */
    public void shutdownOutput() throws IOException
    {
        try
        {
            stream.shutdownOutput();
        }
        catch (final RaasException ex)
        {
            throw new IOException(ex.getMessage(), ex);
        }
    }

    public boolean isOpen()
    {
        return !stream.isClosed();
    }

    public void close()
    {
        stream.close();
    }

    private void requireOpen() throws ClosedChannelException
    {
        if (stream.isClosed())
        {
            throw new ClosedChannelException();
        }
    }
}
