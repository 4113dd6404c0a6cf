package io.dkv.raas.stream;

import io.dkv.raas.RaasException;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A stream's writes as an {@link OutputStream}. Each write goes out before it returns (nothing is held back,
 * so {@link #flush} has nothing to do): wrap it in a {@link java.io.BufferedOutputStream} for many tiny writes.
 */
final class StreamOutput extends OutputStream
{
    private final RaasStream stream;
    private final byte[] one = new byte[1];

    StreamOutput(final RaasStream stream)
    {
        this.stream = stream;
    }

    public void write(final int b) throws IOException
    {
        one[0] = (byte)b;
        write(one, 0, 1);
    }

    public void write(final byte[] bytes, final int offset, final int length) throws IOException
    {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        try
        {
            stream.write(MemorySegment.ofArray(bytes), offset, length);
        }
        catch (final RaasException ex)
        {
            throw new IOException(ex.getMessage(), ex);
        }
    }

    /** Shut this end's output: the peer reads to here, then the end of the stream. */
    public void close() throws IOException
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
}
