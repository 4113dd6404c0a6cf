package io.dkv.client.pieces;

import io.dkv.client.KvClient;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a string's bytes as they come into pieces under a fresh generation, one piece at a time, so that no more than
 * one piece of it is held here; {@link #finish} names them in a {@link PiecedString} for a transaction to publish.
 * Until then nobody reads them: a writer that gives up {@link #abandon}s them. A piece of zeros only is not written
 * (its generation is 0). One thread uses a writer; {@link PiecedStrings#writer} makes one.
 */
public final class PieceWriter
{
    private final KvClient client;
    private final PiecedStrings owner;
    private final int pieceBytes;
    private final long pieceWord;
    private final long generation;
    private final byte[] buffer;
    private long[] generations = new long[16];
    private int pieces;
    private int fill;
    private long written;
    private boolean journaled;
    private boolean done;

    /**
     * @param pieceBytes bytes of each piece but the last.
     * @param expireAt   the string's expiry, which its pieces carry ({@link KvClient#NO_EXPIRY}: none).
     */
    PieceWriter(final KvClient client, final PiecedStrings owner, final int pieceBytes, final long expireAt)
    {
        this.client = client;
        this.owner = owner;
        this.pieceBytes = pieceBytes;
        this.pieceWord = ValueKind.word(ValueKind.SEGMENT, expireAt);
        this.generation = drawGeneration();
        this.buffer = new byte[pieceBytes];
    }

    /** @return a generation for new pieces: random, never 0 (the zeros' mark). */
    static long drawGeneration()
    {
        long generation;
        do
        {
            generation = ThreadLocalRandom.current().nextLong();
        }
        while (generation == 0);
        return generation;
    }

    /** @return bytes taken so far. */
    public long written()
    {
        return written;
    }

    /** Take {@code length} bytes of {@code source} from {@code offset}, writing each piece they complete. */
    public void write(final byte[] source, final int offset, final int length)
    {
        requireOpen();
        requireAligned();
        int at = offset;
        int left = length;
        while (left > 0)
        {
            final int n = Math.min(left, pieceBytes - fill);
            System.arraycopy(source, at, buffer, fill, n);
            fill += n;
            at += n;
            left -= n;
            written += n;
            if (fill == pieceBytes)
            {
                flush();
            }
        }
    }

    /** Take {@code count} zeros: whole pieces of them are not written. */
    public void writeZeros(final long count)
    {
        requireOpen();
        requireAligned();
        long left = count;
        while (left > 0)
        {
            if (fill == 0 && left >= pieceBytes)
            {
                add(0);
                left -= pieceBytes;
                written += pieceBytes;
                continue;
            }
            final int n = (int)Math.min(left, pieceBytes - fill);
            Arrays.fill(buffer, fill, fill + n, (byte)0);
            fill += n;
            left -= n;
            written += n;
            if (fill == pieceBytes)
            {
                flush();
            }
        }
    }

    /**
     * Take a piece already written (its generation), for a change that keeps it: only at a piece's start, and a piece
     * shorter than the others only as the last.
     */
    void keep(final long pieceGeneration, final int length)
    {
        requireOpen();
        if (fill != 0 || length > pieceBytes || written % pieceBytes != 0)
        {
            throw new IllegalStateException("a piece is kept whole, at a piece's start: " + fill + " bytes are " +
                "pending, " + written + " taken, and the piece has " + length + " of " + pieceBytes);
        }
        add(pieceGeneration);
        written += length;
    }

    /** @return the string written: every piece is in place; a transaction publishes it. */
    public PiecedString finish()
    {
        requireOpen();
        if (fill > 0)
        {
            flush();
        }
        done = true;
        return new PiecedString(written, pieceBytes, Arrays.copyOf(generations, pieces), journaled ? generation : 0);
    }

    /** Give up: the pieces written are removed; nobody has read them. */
    public void abandon()
    {
        if (!done)
        {
            done = true;
            final long[] own = Arrays.copyOf(generations, pieces);
            for (int i = 0; i < own.length; i++)
            {
                // a piece kept from the string this one changes is that string's still
                own[i] = own[i] == generation ? own[i] : 0;
            }
            owner.removePieces(own, journaled ? generation : 0);
        }
    }

    private void flush()
    {
        final int index = pieces;
        if (isZeros(buffer, fill))
        {
            add(0);
        }
        else
        {
            if (!journaled)
            {
                // before the first piece: a sweep finds the pieces of a writer that never ended by it
                owner.writeJournal(generation, pieceBytes);
                journaled = true;
            }
            final byte[] key = ReservedKeys.segmentKey(generation, index);
            final byte[] piece = fill == buffer.length ? buffer : Arrays.copyOf(buffer, fill);
            client.transact(tx ->
            {
                tx.write(key, piece, pieceWord);
                return null;
            });
            add(generation);
        }
        fill = 0;
    }

    private void add(final long pieceGeneration)
    {
        if (pieces == generations.length)
        {
            generations = Arrays.copyOf(generations, pieces * 2);
        }
        generations[pieces++] = pieceGeneration;
    }

    private static boolean isZeros(final byte[] bytes, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (bytes[i] != 0)
            {
                return false;
            }
        }
        return true;
    }

    private void requireAligned()
    {
        if (fill == 0 && written % pieceBytes != 0)
        {
            throw new IllegalStateException("a short piece was kept as the last; nothing follows it");
        }
    }

    private void requireOpen()
    {
        if (done)
        {
            throw new IllegalStateException("the pieces' writer has finished or been abandoned");
        }
    }
}
