package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.pieces.PiecesLayout;
import io.dkv.client.txn.LogicalValue;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.compute.store.NotReplayable;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

/**
 * The string commands' reads of strings longer than a value takes (client/README.md, "Strings in pieces"): GET,
 * GETRANGE, GETDEL and SET GET answer through {@link StreamedReplies}, a piece at a time; STRLEN reads the header; the
 * bit commands read through {@link StringBytes}. The changes are {@link LongStringWrites}' and
 * {@link LongStringBits}'; a string of at most {@link KvBlockLayout#MAX_VALUE_LENGTH} bytes stays a plain value.
 */
final class LongStrings
{
    private final KvClient client;
    private final PiecedStrings strings;

    LongStrings(final KvClient client)
    {
        this.client = client;
        this.strings = new PiecedStrings(client);
    }

    /** @return true when {@code ex} says the key holds a string in pieces (which its command then reads so). */
    static boolean inPieces(final WrongKindException ex)
    {
        return ex.kind() == ValueKind.PIECES;
    }

    /**
     * @return the error of a string command that met a string in pieces it does not read so: a counter's as redis
     * answers for a value that is no number (no number is that long), else that it is not served.
     */
    static String refusal(final String command)
    {
        return switch (command)
        {
            case "incr", "decr", "incrby", "decrby" -> Errors.NOT_INTEGER;
            case "incrbyfloat" -> "ERR value is not a valid float";
            default -> "ERR " + command.toUpperCase(java.util.Locale.ROOT) + " of a string longer than " +
                KvBlockLayout.MAX_VALUE_LENGTH + " bytes is not served (dkv)";
        };
    }

    /** Refuse a command that reads strings whole when one of them is in pieces, before it changes anything. */
    static void refusePieces(final String command, final java.util.List<byte[]> values)
    {
        for (final byte[] value : values)
        {
            if (value == KvClient.PIECES)
            {
                throw new IllegalArgumentException(command + " of a string longer than " +
                    KvBlockLayout.MAX_VALUE_LENGTH + " bytes is not served (dkv)");
            }
        }
    }

    /** What {@link #versioned} answers, by identity, for a key that holds a string in pieces. */
    static final Versioned IN_PIECES = new Versioned(new byte[0], 0, 0, 0, 0, 0, 0, 0);

    /** @return {@code store.getVersioned(key)}, or {@link #IN_PIECES} when the key holds a string in pieces. */
    static Versioned versioned(final KeyStore store, final byte[] key)
    {
        try
        {
            return store.getVersioned(key);
        }
        catch (final WrongKindException ex)
        {
            if (!inPieces(ex))
            {
                throw ex;
            }
            return IN_PIECES;
        }
    }

    /** @return {@code store.get(key)}, or {@code KvClient.PIECES} (by identity) when it holds a string in pieces. */
    static byte[] value(final KeyStore store, final byte[] key)
    {
        try
        {
            return store.get(key);
        }
        catch (final WrongKindException ex)
        {
            if (!inPieces(ex))
            {
                throw ex;
            }
            return KvClient.PIECES;
        }
    }

    /** @return the string in pieces {@code read} describes, or null when it is none. */
    static PiecedString header(final byte[] key, final Versioned read)
    {
        return read == null || read.kind() != ValueKind.PIECES ? null : PiecesLayout.decode(key, read.value());
    }

    /** Answer bytes {@code from} to {@code to} of a string in pieces, a piece at a time when the connection can. */
    void reply(final Session session, final byte[] key, final PiecedString string, final long from, final long to,
        final ByteBuf out, final Runnable after)
    {
        if (session.streams() != null)
        {
            session.streams().value(key, string, from, to, out, after);
            return;
        }
        // no connection to stream to (the warm-up's): the bytes go into the reply whole
        out.writeByte('$').writeCharSequence(Long.toString(to - from), java.nio.charset.StandardCharsets.US_ASCII);
        out.writeByte('\r').writeByte('\n');
        strings.read(key, string, from, to, out::writeBytes);
        out.writeByte('\r').writeByte('\n');
        if (after != null)
        {
            after.run();
        }
    }

    /** GET of whatever string the key holds now: plain, in pieces, or none. */
    void get(final Session session, final KeyStore store, final byte[] key, final ByteBuf out)
    {
        answer(session, key, store.readAny(key), out);
    }

    /**
     * GET's reply from what {@link KeyStore#readAny} read of the key, off the loop where asynchronous: a string in
     * pieces is marked to stream, its pieces read as the reply goes out.
     */
    void answer(final Session session, final byte[] key, final Versioned read, final ByteBuf out)
    {
        if (read == null)
        {
            RespReplies.nullReply(out, session.protocol());
            return;
        }
        if (!ValueKind.isString(read.kind()))
        {
            throw new WrongKindException(key, read.kind(), ValueKind.STRING);
        }
        final PiecedString string = header(key, read);
        if (string == null)
        {
            RespReplies.bulk(out, read.value());
            return;
        }
        reply(session, key, string, 0, string.length(), out, null);
    }

    /** @return the length of the string at the key, 0 when it has none. */
    static long length(final KeyStore store, final byte[] key)
    {
        final Versioned read = store.readAny(key);
        if (read == null)
        {
            return 0;
        }
        if (!ValueKind.isString(read.kind()))
        {
            throw new WrongKindException(key, read.kind(), ValueKind.STRING);
        }
        final PiecedString string = header(key, read);
        return string == null ? read.value().length : string.length();
    }

    /** GETRANGE of a string in pieces, the range resolved as redis's. */
    void getRange(final Session session, final KeyStore store, final byte[] key, final long first, final long last,
        final ByteBuf out)
    {
        final Versioned read = store.readAny(key);
        final PiecedString string = header(key, read);
        if (string == null)
        {
            // changed kind meanwhile: answered as the plain value it is now
            RangeCommands.answerRange(out, read == null ? null : store.get(key), first, last);
            return;
        }
        final long length = string.length();
        if (first < 0 && last < 0 && first > last)
        {
            RespReplies.bulk(out, new byte[0]);
            return;
        }
        final long start = first < 0 ? Math.max(0, length + first) : first;
        final long end = Math.min(last < 0 ? Math.max(0, length + last) : last, length - 1);
        if (start > end)
        {
            RespReplies.bulk(out, new byte[0]);
            return;
        }
        reply(session, key, string, start, end + 1, out, null);
    }

    /**
     * GETDEL of a string in pieces: the key is removed at once, its pieces once the reply streamed them.
     */
    void getDel(final Session session, final byte[] key, final ByteBuf out)
    {
        final LogicalValue old = client.transact(tx ->
        {
            final LogicalValue read = tx.read(key);
            if (read != null && read.kind() == ValueKind.PIECES)
            {
                tx.remove(key);
            }
            else if (read != null)
            {
                throw new Retry();
            }
            return read;
        });
        if (old == null)
        {
            RespReplies.nullReply(out, session.protocol());
            return;
        }
        final PiecedString string = PiecesLayout.decode(key, old.value());
        reply(session, key, string, 0, string.length(), out, () -> strings.abandon(string, null));
    }

    /** The key no longer holds a string in pieces: its command runs again as for a plain value. */
    static final class Retry extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Retry()
        {
            super("the key holds a plain value now", null, false, false);
        }
    }

    /** @return a reader of the bytes of the string in pieces {@code read} describes. */
    StringBytes bytes(final byte[] key, final PiecedString string)
    {
        return StringBytes.of(strings, key, string);
    }

    /** @return a reader of the string at the key as {@code store} sees it, or null when it has none. */
    StringBytes bytesAt(final KeyStore store, final byte[] key)
    {
        final Versioned read = store.readAny(key);
        if (read == null)
        {
            return null;
        }
        if (!ValueKind.isString(read.kind()))
        {
            throw new WrongKindException(key, read.kind(), ValueKind.STRING);
        }
        final PiecedString string = header(key, read);
        return string == null ? StringBytes.of(read.value()) : bytes(key, string);
    }

    /**
     * Refuse a change of a string in pieces inside MULTI (EXEC's transaction cannot hold its pieces' writes); a
     * replayed run ends, for the command to run alone.
     */
    static void refuseInMulti(final Session session, final String what)
    {
        if (session.replaying())
        {
            throw NotReplayable.INSTANCE;
        }
        if (session.executing())
        {
            throw new IllegalArgumentException("a string longer than " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes " +
                "does not change " + what + " inside MULTI (dkv)");
        }
    }

}
