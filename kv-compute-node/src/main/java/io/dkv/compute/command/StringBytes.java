package io.dkv.compute.command;

import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;

/**
 * A string's bytes by index, for the bit commands: a plain value's, or a string in pieces' read a piece at a time as
 * the indexes reach it (the last piece read kept), so that BITCOUNT of 512 MB holds one piece.
 */
final class StringBytes
{
    private final byte[] value;
    private final PiecedStrings strings;
    private final byte[] key;
    private final PiecedString string;
    private byte[] piece;
    private int pieceIndex = -1;

    private StringBytes(final byte[] value, final PiecedStrings strings, final byte[] key, final PiecedString string)
    {
        this.value = value;
        this.strings = strings;
        this.key = key;
        this.string = string;
    }

    /** @return a plain value's bytes. */
    static StringBytes of(final byte[] value)
    {
        return new StringBytes(value, null, null, null);
    }

    /** @return a string in pieces' bytes, read as they are asked for. */
    static StringBytes of(final PiecedStrings strings, final byte[] key, final PiecedString string)
    {
        return new StringBytes(null, strings, key, string);
    }

    long length()
    {
        return value != null ? value.length : string.length();
    }

    /** @return byte {@code index} (0 to 255); below {@link #length}. */
    int at(final long index)
    {
        if (value != null)
        {
            return value[(int)index] & 0xff;
        }
        final int i = (int)(index / string.pieceBytes());
        if (i != pieceIndex)
        {
            piece = strings.readPiece(key, string, i);
            pieceIndex = i;
        }
        return piece[(int)(index - (long)i * string.pieceBytes())] & 0xff;
    }
}
