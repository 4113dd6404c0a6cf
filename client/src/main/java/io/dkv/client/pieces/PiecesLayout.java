package io.dkv.client.pieces;

import io.dkv.client.KvErrors;
import io.dkv.client.KvException;

import java.nio.ByteBuffer;

/**
 * A string in pieces: the value at its key (kind {@code ValueKind.PIECES}), which names the pieces that hold its
 * bytes. Piece {@code i} holds bytes {@code i * pieceBytes} onwards, {@code pieceBytes} of them but for the last, at
 * reserved key {@code ReservedKeys.segmentKey(generation[i], i)}; a generation of 0 names no piece: its bytes are
 * zeros (redis's SETRANGE and SETBIT far past the end make such values).
 *
 * <pre>
 *   0  length       long    bytes of the string
 *   8  pieceBytes   int     bytes of every piece but the last
 *  12  pieces       int     n = ceil(length / pieceBytes)
 *  16  generation   long[n] each piece's, drawn at random when it was written; 0: zeros
 *  16 + 8n
 * </pre>
 *
 * A piece, once written, never changes: a change writes new pieces under new generations and a transaction swaps the
 * header and removes the pieces it no longer names, so a header read names the bytes of one instant for as long as
 * its pieces are there.
 */
public final class PiecesLayout
{
    public static final int LENGTH_OFFSET = 0;
    public static final int PIECE_BYTES_OFFSET = LENGTH_OFFSET + Long.BYTES;
    public static final int PIECES_OFFSET = PIECE_BYTES_OFFSET + Integer.BYTES;
    public static final int GENERATIONS_OFFSET = PIECES_OFFSET + Integer.BYTES;

    private PiecesLayout()
    {
    }

    /** @return the header's bytes for a string of {@code pieces} pieces. */
    public static int headerLength(final int pieces)
    {
        return GENERATIONS_OFFSET + Long.BYTES * pieces;
    }

    /** @return the header of that string. */
    public static byte[] encode(final long length, final int pieceBytes, final long[] generations)
    {
        final ByteBuffer header = ByteBuffer.allocate(headerLength(generations.length));
        header.putLong(LENGTH_OFFSET, length).putInt(PIECE_BYTES_OFFSET, pieceBytes)
            .putInt(PIECES_OFFSET, generations.length);
        for (int i = 0; i < generations.length; i++)
        {
            header.putLong(GENERATIONS_OFFSET + Long.BYTES * i, generations[i]);
        }
        return header.array();
    }

    /**
     * @param key    whose header it is, for the error.
     * @param header the value at the key.
     * @return the string it describes.
     * @throws KvException when the bytes are no such header.
     */
    public static PiecedString decode(final byte[] key, final byte[] header)
    {
        if (header.length < GENERATIONS_OFFSET)
        {
            throw malformed(key, header, "shorter than " + GENERATIONS_OFFSET + " bytes");
        }
        final ByteBuffer buffer = ByteBuffer.wrap(header);
        final long length = buffer.getLong(LENGTH_OFFSET);
        final int pieceBytes = buffer.getInt(PIECE_BYTES_OFFSET);
        final int pieces = buffer.getInt(PIECES_OFFSET);
        if (pieceBytes <= 0 || length < 0 || pieces != PiecedString.piecesOf(length, pieceBytes) ||
            header.length != headerLength(pieces))
        {
            throw malformed(key, header, "length " + length + ", piece bytes " + pieceBytes + ", pieces " + pieces);
        }
        final long[] generations = new long[pieces];
        for (int i = 0; i < pieces; i++)
        {
            generations[i] = buffer.getLong(GENERATIONS_OFFSET + Long.BYTES * i);
        }
        return new PiecedString(length, pieceBytes, generations);
    }

    private static KvException malformed(final byte[] key, final byte[] header, final String what)
    {
        return new KvException("the string in pieces at key " + KvErrors.describe(key) + " has a header of " +
            header.length + " bytes that does not add up: " + what);
    }
}
