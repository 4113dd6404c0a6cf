package io.dkv.client.pieces;

import io.dkv.client.KvClient;
import io.dkv.client.KvErrors;
import io.dkv.client.collection.Composites;
import io.dkv.client.txn.DroppedGenerations;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.JournalLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Strings of up to {@link #MAX_LENGTH} bytes, longer than one block takes, as pieces at reserved keys
 * (client/README.md, "Strings in pieces"): written piece by piece under a fresh generation that nobody reads, then
 * published by one transaction that writes the header at the key and removes whatever the key held; read by reading
 * the header, then the pieces it names one after another. A string of at most {@link KvBlockLayout#MAX_VALUE_LENGTH}
 * bytes is a plain value, as {@code KvClient.put} writes it.
 *
 * <p>The instance methods do the pieces' I/O (outside any transaction: pieces not yet published, or immutable ones);
 * the static ones are a transaction's part: publishing a header, removing the pieces it replaces.
 */
public final class PiecedStrings
{
    /** redis's proto-max-bulk-len: the longest string. */
    public static final long MAX_LENGTH = 512L * 1024 * 1024;
    /**
     * Bytes of a piece by default: 512 KiB less the block's header and key, so that a piece's block is 512 KiB and
     * four fill a memory node's 2 MiB chunk (whole 512 KiB pieces left a quarter of each chunk unused).
     */
    public static final int DEFAULT_PIECE_BYTES = 512 * 1024 - 64;
    private static final int STREAM_CHUNK = 64 * 1024;
    private static final int SWEEP_STEP = 256;

    private final KvClient client;
    private final int pieceBytes;
    private final Queue<LeftOver> leftOvers = new ConcurrentLinkedQueue<>();

    public PiecedStrings(final KvClient client)
    {
        this(client, DEFAULT_PIECE_BYTES);
    }

    /** @param pieceBytes bytes of each new string's pieces (a test's small pieces make many). */
    public PiecedStrings(final KvClient client, final int pieceBytes)
    {
        if (pieceBytes < 1 || pieceBytes > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("a piece holds 1 to " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes; " +
                "asked for " + pieceBytes);
        }
        this.client = client;
        this.pieceBytes = pieceBytes;
    }

    /** @return bytes of each new string's pieces. */
    public int pieceBytes()
    {
        return pieceBytes;
    }

    /** @return a writer of a new string's pieces, which carry {@code expireAt} ({@link KvClient#NO_EXPIRY}: none). */
    public PieceWriter writer(final long expireAt)
    {
        removeLeftOvers();
        return new PieceWriter(client, this, pieceBytes, expireAt);
    }

    /**
     * @param read the value a transaction read at {@code key}.
     * @return the string in pieces it describes, or null when it is none (no value, a plain string, a collection).
     */
    public static PiecedString header(final byte[] key, final LogicalValue read)
    {
        return read == null || read.kind() != ValueKind.PIECES ? null : PiecesLayout.decode(key, read.value());
    }

    /**
     * Write the header of {@code string} at {@code key} in {@code tx}, and remove the journal of the pieces written for
     * it; what the key held must be gone in it too.
     *
     * @throws io.dkv.client.KvException when a sweep removed those pieces (they were older than its bound).
     */
    public static void publish(final Transaction tx, final byte[] key, final PiecedString string, final long expireAt)
    {
        if (string.journaled() != 0)
        {
            final byte[] journal = ReservedKeys.journalKey(string.journaled());
            // read: a sweep that claims the pieces meanwhile conflicts with this transaction, and it with the sweep
            final LogicalValue read = tx.read(journal);
            if (read == null || JournalLayout.isJournal(read.value()) && JournalLayout.claimed(read.value()))
            {
                throw new io.dkv.client.KvException("the pieces written for key " + KvErrors.describe(key) + " were " +
                    "swept before they were published: written longer ago than a sweep waits");
            }
            tx.remove(journal);
        }
        tx.write(key, string.encode(), ValueKind.word(ValueKind.PIECES, expireAt));
    }

    /** Write the journal of a generation of pieces about to be written: its time and the pieces it may have. */
    void writeJournal(final long generation, final int writerPieceBytes)
    {
        final byte[] journal = JournalLayout.encode(client.epochClock().time(),
            PiecedString.piecesOf(MAX_LENGTH, writerPieceBytes), 0);
        client.transact(tx ->
        {
            tx.write(ReservedKeys.journalKey(generation), journal, ValueKind.word(ValueKind.SEGMENT,
                KvClient.NO_EXPIRY));
            return null;
        });
    }

    /**
     * Remove in {@code tx} whatever {@code key} holds beyond its own block: a collection's segments, a string's
     * pieces (and the key's block, which a write in {@code tx} may then replace).
     *
     * @param read what {@code tx} read at the key.
     */
    public static void dropAny(final Transaction tx, final byte[] key, final LogicalValue read, final int segmentBytes)
    {
        if (read == null)
        {
            return;
        }
        if (read.kind() == ValueKind.PIECES)
        {
            dropAfterCommit(tx, PiecesLayout.decode(key, read.value()));
        }
        else if (read.kind() != ValueKind.STRING)
        {
            Composites.open(tx, key, read.kind(), segmentBytes).drop();
            return;
        }
        tx.remove(key);
    }

    /**
     * Remove a string's pieces once {@code tx} commits, each in a transaction of its own
     * ({@link Transaction#dropAfterCommit}, a journal per generation): in {@code tx} itself every piece's intent would
     * carry the piece as its prior value, a delete of a 100 MB string 100 MB of intents, more than a full node keeps
     * for deletes.
     */
    private static void dropAfterCommit(final Transaction tx, final PiecedString string)
    {
        final Map<Long, Integer> counts = new HashMap<>();
        for (int i = 0; i < string.pieces(); i++)
        {
            if (string.generation(i) != 0)
            {
                counts.merge(string.generation(i), i + 1, Math::max);
            }
        }
        counts.forEach(tx::dropAfterCommit);
    }

    /** Remove in {@code tx} the pieces of {@code old} that {@code now} (null: nothing) does not name. */
    public static void removeReplaced(final Transaction tx, final PiecedString old, final PiecedString now)
    {
        for (int i = 0; i < old.pieces(); i++)
        {
            final long generation = old.generation(i);
            if (generation != 0 && (now == null || i >= now.pieces() || now.generation(i) != generation))
            {
                tx.remove(ReservedKeys.segmentKey(generation, i));
            }
        }
    }

    /**
     * Remove pieces nobody reads (written, never published, or replaced and streamed), one transaction a piece, then
     * the journal; a generation of 0 is no piece. Each removal is a tombstone, which a full node's reserve takes: one
     * transaction of them all would write intents carrying every piece, more than the reserve holds for a string of
     * megabytes, and so failed for good at full. A removal that fails (a node unreachable) is kept and tried again
     * before this instance next writes pieces ({@link #removeLeftOvers}), rather than leave them for ever.
     */
    void removePieces(final long[] generations, final long journaled)
    {
        if (journaled == 0 && Arrays.stream(generations).allMatch(generation -> generation == 0))
        {
            return;
        }
        try
        {
            for (int i = 0; i < generations.length; i++)
            {
                if (generations[i] != 0)
                {
                    DroppedGenerations.removeSegment(client, generations[i], i);
                }
            }
            // last: until it is gone a sweep can still find what a failure left
            if (journaled != 0)
            {
                DroppedGenerations.removeJournal(client, journaled);
            }
        }
        catch (final RuntimeException ex)
        {
            // (the caller goes on with what it was doing: its own error, if any, is the one to tell); removed pieces
            // are not there when this is tried again, which finds them gone
            leftOvers.add(new LeftOver(generations, journaled));
        }
    }

    /** A removal that failed, to try again. */
    private record LeftOver(long[] generations, long journaled)
    {
    }

    /** Try again the removals that failed; those that fail again stay for the next time. */
    public void removeLeftOvers()
    {
        for (int left = leftOvers.size(); left > 0; left--)
        {
            final LeftOver leftOver = leftOvers.poll();
            if (leftOver == null)
            {
                return;
            }
            // kept again when it fails again: the node still full, or unreachable
            removePieces(leftOver.generations(), leftOver.journaled());
        }
    }

    /** @return removals of pieces that failed and wait to be tried again. */
    public int leftOvers()
    {
        return leftOvers.size();
    }

    /** Remove the pieces of a string that was never published (a change that lost its race, say). */
    public void abandon(final PiecedString string, final PiecedString keptFrom)
    {
        final long[] generations = string.generations();
        for (int i = 0; i < generations.length; i++)
        {
            if (keptFrom != null && i < keptFrom.pieces() && keptFrom.generation(i) == generations[i])
            {
                generations[i] = 0;
            }
        }
        removePieces(generations, string.journaled());
    }

    /**
     * @return the bytes of piece {@code i} of {@code string} (zeros for a piece of generation 0).
     * @throws PiecesGoneException when the piece is gone: the string changed after its header was read.
     */
    public byte[] readPiece(final byte[] key, final PiecedString string, final int i)
    {
        final int length = string.pieceLength(i);
        final long generation = string.generation(i);
        if (generation == 0)
        {
            return new byte[length];
        }
        final Transaction tx = client.begin();
        final LogicalValue piece;
        try
        {
            piece = tx.peek(string.pieceKey(i));
        }
        finally
        {
            tx.abort();
        }
        if (piece == null)
        {
            throw new PiecesGoneException(key, i, generation);
        }
        if (piece.value().length != length || piece.kind() != ValueKind.SEGMENT)
        {
            throw new io.dkv.client.KvException("piece " + i + " of the string at key " + KvErrors.describe(key) +
                " holds " + piece.value().length + " bytes of kind " + piece.kind() + ", not " + length);
        }
        return piece.value();
    }

    /** Receives a string's bytes as they are read, in order. */
    @FunctionalInterface
    public interface Sink
    {
        void accept(byte[] bytes, int offset, int length);
    }

    /**
     * Hand bytes {@code from} (inclusive) to {@code to} (exclusive) of {@code string} to {@code sink}, a piece at a
     * time.
     *
     * @throws PiecesGoneException when a piece is gone: the string changed while it was read.
     */
    public void read(final byte[] key, final PiecedString string, final long from, final long to, final Sink sink)
    {
        final int size = string.pieceBytes();
        for (long at = from; at < to; )
        {
            final int i = (int)(at / size);
            final byte[] piece = readPiece(key, string, i);
            final int offset = (int)(at - (long)i * size);
            final int n = (int)Math.min(piece.length - offset, to - at);
            sink.accept(piece, offset, n);
            at += n;
        }
    }

    /** @return a copy of {@code string} in new pieces that carry {@code expireAt} (for a change of its expiry). */
    public PiecedString copy(final byte[] key, final PiecedString string, final long expireAt)
    {
        removeLeftOvers();
        final PieceWriter writer = new PieceWriter(client, this, string.pieceBytes(), expireAt);
        try
        {
            for (int i = 0; i < string.pieces(); i++)
            {
                if (string.generation(i) == 0)
                {
                    writer.writeZeros(string.pieceLength(i));
                }
                else
                {
                    final byte[] piece = readPiece(key, string, i);
                    writer.write(piece, 0, piece.length);
                }
            }
            return writer.finish();
        }
        catch (final RuntimeException ex)
        {
            writer.abandon();
            throw ex;
        }
    }

    /** @return {@code value} in new pieces that carry {@code expireAt}. */
    public PiecedString fromBytes(final byte[] value, final long expireAt)
    {
        final PieceWriter writer = writer(expireAt);
        try
        {
            writer.write(value, 0, value.length);
            return writer.finish();
        }
        catch (final RuntimeException ex)
        {
            writer.abandon();
            throw ex;
        }
    }

    /**
     * Redis's SETRANGE on a string in pieces: a string of {@code max(length, offset + patch.length)} bytes, the patch
     * at {@code offset}, zeros between the old end and the offset. Only the pieces the change touches are written
     * (new ones, under a new generation); the others are kept. Nothing is published: a transaction swaps the header
     * and removes what it replaces ({@link #removeReplaced}), or {@link #abandon} removes the new pieces.
     *
     * @param string the string now, or null for none (all zeros before the offset).
     */
    public PiecedString setRange(final byte[] key, final PiecedString string, final long expireAt, final long offset,
        final byte[] patch)
    {
        final long oldLength = string == null ? 0 : string.length();
        final long length = Math.max(oldLength, offset + patch.length);
        if (length > MAX_LENGTH)
        {
            throw new IllegalArgumentException("a string holds at most " + MAX_LENGTH + " bytes; this change of key " +
                KvErrors.describe(key) + " makes " + length);
        }
        final int size = string == null ? pieceBytes : string.pieceBytes();
        removeLeftOvers();
        final PieceWriter writer = new PieceWriter(client, this, size, expireAt);
        try
        {
            final int pieces = PiecedString.piecesOf(length, size);
            for (int i = 0; i < pieces; i++)
            {
                final long start = (long)i * size;
                final int pieceLength = (int)Math.min(size, length - start);
                final boolean touched = patch.length > 0 && offset < start + pieceLength &&
                    offset + patch.length > start;
                final boolean whole = string != null && i < string.pieces() && string.pieceLength(i) == pieceLength;
                if (!touched && whole)
                {
                    writer.keep(string.generation(i), pieceLength);
                    continue;
                }
                if (!touched && (string == null || i >= string.pieces() || string.generation(i) == 0))
                {
                    writer.writeZeros(pieceLength);
                    continue;
                }
                final byte[] piece = new byte[pieceLength];
                if (string != null && i < string.pieces())
                {
                    final byte[] old = readPiece(key, string, i);
                    System.arraycopy(old, 0, piece, 0, old.length);
                }
                if (touched)
                {
                    final long from = Math.max(offset, start);
                    final long to = Math.min(offset + patch.length, start + pieceLength);
                    System.arraycopy(patch, (int)(from - offset), piece, (int)(from - start), (int)(to - from));
                }
                writer.write(piece, 0, piece.length);
            }
            return writer.finish();
        }
        catch (final RuntimeException ex)
        {
            writer.abandon();
            throw ex;
        }
    }

    /**
     * Redis's APPEND of a long argument: a string of {@code head} (a plain value, or a string in pieces whose whole
     * pieces are kept) and then the bytes of {@code tail} (read a piece at a time and written anew). Nothing is
     * published, as for {@link #setRange}.
     *
     * @param plainHead the plain value before, or null.
     * @param head      the string in pieces before, or null.
     * @param tail      the pieces of what is appended (staged: they stay theirs).
     */
    public PiecedString append(final byte[] key, final byte[] plainHead, final PiecedString head,
        final PiecedString tail, final long expireAt)
    {
        removeLeftOvers();
        final int size = head != null ? head.pieceBytes() : pieceBytes;
        final PieceWriter writer = new PieceWriter(client, this, size, expireAt);
        try
        {
            if (head != null)
            {
                for (int i = 0; i < head.pieces(); i++)
                {
                    if (head.pieceLength(i) == size)
                    {
                        writer.keep(head.generation(i), size);
                    }
                    else
                    {
                        final byte[] piece = readPiece(key, head, i);
                        writer.write(piece, 0, piece.length);
                    }
                }
            }
            else if (plainHead != null)
            {
                writer.write(plainHead, 0, plainHead.length);
            }
            read(key, tail, 0, tail.length(), writer::write);
            return writer.finish();
        }
        catch (final RuntimeException ex)
        {
            writer.abandon();
            throw ex;
        }
    }

    /**
     * Set {@code key} to the bytes {@code in} gives until its end, whatever the key held, expiring at
     * {@code expireAt}: in pieces when they are more than a value takes, never holding more than a piece here.
     *
     * @return the bytes written.
     */
    public long write(final byte[] key, final InputStream in, final long expireAt)
    {
        final byte[] first = readUpTo(in, KvBlockLayout.MAX_VALUE_LENGTH + 1);
        if (first.length <= KvBlockLayout.MAX_VALUE_LENGTH)
        {
            client.transact(tx ->
            {
                dropAny(tx, key, tx.read(key), client.collectionSegmentBytes());
                tx.put(key, first, expireAt);
                return null;
            });
            return first.length;
        }
        final PieceWriter writer = writer(expireAt);
        final PiecedString string;
        try
        {
            writer.write(first, 0, first.length);
            final byte[] chunk = new byte[STREAM_CHUNK];
            for (int n = read(in, chunk); n > 0; n = read(in, chunk))
            {
                if (writer.written() + n > MAX_LENGTH)
                {
                    throw new IllegalArgumentException("a string holds at most " + MAX_LENGTH + " bytes; the " +
                        "stream for key " + KvErrors.describe(key) + " gave more");
                }
                writer.write(chunk, 0, n);
            }
            string = writer.finish();
        }
        catch (final RuntimeException ex)
        {
            writer.abandon();
            throw ex;
        }
        publishReplacing(key, string, expireAt);
        return string.length();
    }

    /** Publish {@code string} at {@code key}, replacing whatever it held; its pieces are removed if that fails. */
    public void publishReplacing(final byte[] key, final PiecedString string, final long expireAt)
    {
        try
        {
            client.transact(tx ->
            {
                dropAny(tx, key, tx.read(key), client.collectionSegmentBytes());
                publish(tx, key, string, expireAt);
                return null;
            });
        }
        catch (final RuntimeException ex)
        {
            abandon(string, null);
            throw ex;
        }
    }

    /**
     * Write the string at {@code key} (plain or in pieces) to {@code out}.
     *
     * @return its bytes, or -1 when the key has no value (nothing written).
     * @throws io.dkv.client.WrongKindException when it holds a hash or a set.
     * @throws PiecesGoneException when it changed while it was read (part of it may have been written).
     */
    public long read(final byte[] key, final OutputStream out)
    {
        final LogicalValue read = client.transact(tx -> tx.read(key));
        if (read == null)
        {
            return -1;
        }
        if (!ValueKind.isString(read.kind()))
        {
            throw new io.dkv.client.WrongKindException(key, read.kind(), ValueKind.STRING);
        }
        try
        {
            if (read.kind() == ValueKind.STRING)
            {
                out.write(read.value());
                return read.value().length;
            }
            final PiecedString string = PiecesLayout.decode(key, read.value());
            read(key, string, 0, string.length(), (bytes, offset, length) ->
            {
                try
                {
                    out.write(bytes, offset, length);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
            return string.length();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the bytes of the string at {@code key} (plain or in pieces), -1 when it has no value. */
    public long length(final byte[] key)
    {
        final LogicalValue read = client.transact(tx -> tx.read(key));
        if (read == null)
        {
            return -1;
        }
        if (!ValueKind.isString(read.kind()))
        {
            throw new io.dkv.client.WrongKindException(key, read.kind(), ValueKind.STRING);
        }
        return read.kind() == ValueKind.STRING ? read.value().length : PiecesLayout.decode(key, read.value()).length();
    }

    private static byte[] readUpTo(final InputStream in, final int limit)
    {
        try
        {
            return in.readNBytes(limit);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static int read(final InputStream in, final byte[] chunk)
    {
        try
        {
            return in.readNBytes(chunk, 0, chunk.length);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Remove the pieces of every generation whose writer began more than {@code olderThanMillis} ago and never
     * published nor abandoned them (it stopped: a process killed between writing a string's pieces and publishing
     * it): a scan of the store's own keys for journals. A writer still at work past that bound finds its pieces gone
     * when it publishes, and says so.
     *
     * @return generations swept.
     */
    public long sweep(final long olderThanMillis)
    {
        removeLeftOvers();
        final long before = client.epochClock().time() - olderThanMillis;
        long swept = 0;
        long cursor = io.dkv.client.keyspace.ScanCursor.START;
        do
        {
            final io.dkv.client.keyspace.ScanPage page = client.scanAll(cursor, SWEEP_STEP);
            for (final byte[] key : page.keys())
            {
                if (ReservedKeys.isJournal(key) && sweepJournal(ReservedKeys.generationOf(key), before))
                {
                    swept++;
                }
            }
            cursor = page.cursor();
        }
        while (cursor != io.dkv.client.keyspace.ScanCursor.START);
        return swept;
    }

    /**
     * Claim an old journal (a writer's publish then fails: it reads the journal), then remove its pieces one
     * transaction each and the journal last ({@link DroppedGenerations}): removed in one transaction, every piece's
     * intent carried the piece as its prior value, more than a full node keeps for deletes. A sweep that stops between
     * leaves the journal claimed, and the next sweep goes on.
     */
    private boolean sweepJournal(final long generation, final long before)
    {
        final byte[] journalKey = ReservedKeys.journalKey(generation);
        final int pieces = client.transact(tx ->
        {
            final LogicalValue journal = tx.read(journalKey);
            if (journal == null || !JournalLayout.isJournal(journal.value()) ||
                JournalLayout.time(journal.value()) > before)
            {
                return -1;
            }
            if (!JournalLayout.claimed(journal.value()))
            {
                tx.writeFreeing(journalKey, JournalLayout.claim(journal.value()), journal.expiryWord());
            }
            return JournalLayout.count(journal.value());
        });
        if (pieces < 0)
        {
            return false;
        }
        DroppedGenerations.remove(client, generation, pieces);
        return true;
    }
}
