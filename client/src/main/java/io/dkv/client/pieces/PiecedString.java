package io.dkv.client.pieces;

import io.dkv.format.ReservedKeys;

import java.util.Arrays;

/**
 * What a string's header says ({@link PiecesLayout}): its length and the generation of each piece. Immutable; a
 * change makes another.
 */
public final class PiecedString
{
    private final long length;
    private final int pieceBytes;
    private final long[] generations;
    private final long journaled;

    public PiecedString(final long length, final int pieceBytes, final long[] generations)
    {
        this(length, pieceBytes, generations, 0);
    }

    /**
     * @param journaled the generation a writer wrote pieces of, under a journal its publishing removes; 0: none (a
     *                  header read, or a writer that wrote no piece).
     */
    PiecedString(final long length, final int pieceBytes, final long[] generations, final long journaled)
    {
        if (generations.length != piecesOf(length, pieceBytes))
        {
            throw new IllegalArgumentException("a string of " + length + " bytes in pieces of " + pieceBytes +
                " has " + piecesOf(length, pieceBytes) + " pieces, not " + generations.length);
        }
        this.length = length;
        this.pieceBytes = pieceBytes;
        this.generations = generations.clone();
        this.journaled = journaled;
    }

    /** @return the generation whose journal publishing this string removes, 0 when none. */
    public long journaled()
    {
        return journaled;
    }

    /** @return pieces of {@code pieceBytes} that hold {@code length} bytes. */
    public static int piecesOf(final long length, final int pieceBytes)
    {
        return (int)((length + pieceBytes - 1) / pieceBytes);
    }

    /** @return the string's bytes. */
    public long length()
    {
        return length;
    }

    /** @return bytes of every piece but the last. */
    public int pieceBytes()
    {
        return pieceBytes;
    }

    /** @return its pieces. */
    public int pieces()
    {
        return generations.length;
    }

    /** @return piece {@code i}'s generation, 0 when its bytes are zeros and no piece holds them. */
    public long generation(final int i)
    {
        return generations[i];
    }

    /** @return the bytes piece {@code i} holds. */
    public int pieceLength(final int i)
    {
        return (int)Math.min(pieceBytes, length - (long)i * pieceBytes);
    }

    /** @return the reserved key of piece {@code i}. */
    public byte[] pieceKey(final int i)
    {
        return ReservedKeys.segmentKey(generations[i], i);
    }

    /** @return the header at the string's key. */
    public byte[] encode()
    {
        return PiecesLayout.encode(length, pieceBytes, generations);
    }

    /** @return a copy of the pieces' generations. */
    long[] generations()
    {
        return generations.clone();
    }

    public boolean equals(final Object other)
    {
        return other instanceof PiecedString that && length == that.length && pieceBytes == that.pieceBytes &&
            Arrays.equals(generations, that.generations);
    }

    public int hashCode()
    {
        return Long.hashCode(length) * 31 + Arrays.hashCode(generations);
    }

    public String toString()
    {
        return "PiecedString{length=" + length + ", pieceBytes=" + pieceBytes + ", pieces=" + generations.length + "}";
    }
}
