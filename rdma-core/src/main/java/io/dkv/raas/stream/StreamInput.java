package io.dkv.raas.stream;

import io.dkv.raas.RaasException;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** A stream's reads as an {@link InputStream}: bytes copied out of the stream buffer into the caller's array. */
final class StreamInput extends InputStream
{
    private final RaasStream stream;
    private final byte[] one = new byte[1];

    StreamInput(final RaasStream stream)
    {
        this.stream = stream;
    }

    public int read() throws IOException
    {
        final int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    public int read(final byte[] bytes, final int offset, final int length) throws IOException
    {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        try
        {
            return stream.read(MemorySegment.ofArray(bytes), offset, length);
        }
        catch (final RaasException ex)
        {
            throw new IOException(ex.getMessage(), ex);
        }
    }

    public void close()
    {
        stream.close();
    }
}
