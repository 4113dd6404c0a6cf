package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.client.pieces.PieceWriter;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.pieces.PiecesLayout;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.util.Arrays;

import static io.dkv.compute.command.StringOptions.GET;
import static io.dkv.compute.command.StringOptions.IFEQ;
import static io.dkv.compute.command.StringOptions.KEEPTTL;
import static io.dkv.compute.command.StringOptions.NX;
import static io.dkv.compute.command.StringOptions.XX;

/**
 * The string commands over strings longer than a value takes (client/README.md, "Strings in pieces"): a SET of a long
 * argument publishes the pieces the decoder wrote as it arrived ({@link StagedStrings}); GET, GETRANGE, GETDEL and
 * SET GET answer through {@link StreamedReplies}, a piece at a time; APPEND and SETRANGE write the pieces they touch
 * anew. Each change is one transaction that swaps the header and removes the pieces it replaces; a string of at most
 * {@link KvBlockLayout#MAX_VALUE_LENGTH} bytes stays a plain value.
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
        final Versioned read = store.readAny(key);
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
     * SET (and its older forms) of a long argument the decoder staged: one transaction replaces whatever the key held
     * by it; the staged pieces are removed when it is not set.
     *
     * @param given        the argument's pieces (carrying no expiry), or a plain value (a SET over a string in pieces).
     * @param options      SET's options, parsed and resolved.
     * @param integerReply true for SETNX: 1 or 0 rather than OK or nil.
     */
    void set(final Session session, final byte[] key, final Object given, final StringOptions options,
        final ByteBuf out, final String name, final boolean integerReply)
    {
        final PiecedString staged = given instanceof PiecedString pieces ? pieces : null;
        if (staged != null && (session.inMulti() || session.executing()))
        {
            strings.abandon(staged, null);
            RespReplies.error(out, "ERR " + name + " of a value longer than " + KvBlockLayout.MAX_VALUE_LENGTH +
                " bytes inside MULTI is not served (dkv)");
            return;
        }
        PiecedString published = null;
        try
        {
            long expireAt = KeyStore.storable(options.expireAtMillis());
            final boolean get = options.has(GET);
            while (true)
            {
                if (options.has(KEEPTTL))
                {
                    final Versioned now = readAny(key);
                    expireAt = now == null ? KvClient.NO_EXPIRY : now.expireAtMillis();
                }
                if (staged != null && expireAt != KvClient.NO_EXPIRY && published == null)
                {
                    published = strings.copy(key, staged, expireAt);
                }
                final Object value = staged == null ? given : published == null ? staged : published;
                final long expiry = expireAt;
                final Object[] outcome = client.transact(tx -> setIn(tx, key, value, expiry, options));
                if (outcome[0] == Outcome.KEEPTTL_MOVED)
                {
                    if (published != null)
                    {
                        strings.abandon(published, null);
                        published = null;
                    }
                    continue;
                }
                if (outcome[0] != Outcome.SET && value instanceof PiecedString pieces)
                {
                    strings.abandon(pieces, null);
                }
                if (staged != null && value != staged)
                {
                    strings.abandon(staged, null);
                }
                published = null;
                answer(session, key, outcome, get, integerReply, out);
                return;
            }
        }
        catch (final RuntimeException ex)
        {
            if (staged != null)
            {
                strings.abandon(staged, null);
            }
            if (published != null)
            {
                strings.abandon(published, null);
            }
            throw ex;
        }
    }

    private enum Outcome
    {
        SET, NOT_SET, KEEPTTL_MOVED
    }

    /** @return {outcome, old value read (LogicalValue or null)}. */
    private Object[] setIn(final Transaction tx, final byte[] key, final Object value, final long expireAt,
        final StringOptions options)
    {
        final LogicalValue current = tx.read(key);
        if (options.has(GET) && current != null && !ValueKind.isString(current.kind()))
        {
            throw new WrongKindException(key, current.kind(), ValueKind.STRING);
        }
        if (options.has(NX) && current != null || options.has(XX) && current == null ||
            options.has(IFEQ) && (current == null || current.kind() != ValueKind.STRING ||
                !Arrays.equals(current.value(), options.comparison())))
        {
            return new Object[] {Outcome.NOT_SET, current};
        }
        if (options.has(KEEPTTL) && current != null && current.expireAtMillis() != expireAt ||
            options.has(KEEPTTL) && current == null && expireAt != KvClient.NO_EXPIRY)
        {
            return new Object[] {Outcome.KEEPTTL_MOVED, null};
        }
        if (options.has(GET) && current != null && current.kind() == ValueKind.PIECES)
        {
            // the old pieces stay until the reply that streams them is out ({@link #answer})
            tx.remove(key);
        }
        else
        {
            PiecedStrings.dropAny(tx, key, current, client.collectionSegmentBytes());
        }
        if (value instanceof PiecedString pieces)
        {
            PiecedStrings.publish(tx, key, pieces, expireAt);
        }
        else
        {
            tx.put(key, (byte[])value, expireAt);
        }
        return new Object[] {Outcome.SET, current};
    }

    private void answer(final Session session, final byte[] key, final Object[] outcome, final boolean get,
        final boolean integerReply, final ByteBuf out)
    {
        final LogicalValue old = (LogicalValue)outcome[1];
        if (integerReply)
        {
            RespReplies.integer(out, outcome[0] == Outcome.SET ? 1 : 0);
            return;
        }
        if (!get)
        {
            if (outcome[0] == Outcome.SET)
            {
                RespReplies.ok(out);
            }
            else
            {
                RespReplies.nullReply(out, session.protocol());
            }
            return;
        }
        if (old == null)
        {
            RespReplies.nullReply(out, session.protocol());
            return;
        }
        if (old.kind() != ValueKind.PIECES)
        {
            RespReplies.bulk(out, old.value());
            return;
        }
        final PiecedString string = PiecesLayout.decode(key, old.value());
        // replaced (SET): its pieces go once streamed; not replaced: they are the key's still
        reply(session, key, string, 0, string.length(), out, outcome[0] == Outcome.SET ? () -> strings.abandon(string,
            null) : null);
    }

    private Versioned readAny(final byte[] key)
    {
        final LogicalValue read = client.transact(tx -> tx.read(key));
        return read == null ? null : new Versioned(read.value(), read.expiryWord(), 0, 0, 0, 0, 0, 0);
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

    /** Makes a change's patch from the string as its transaction reads it. */
    @FunctionalInterface
    interface Patch
    {
        /** @return the bytes that go at the change's offset. */
        byte[] of(StringBytes current);
    }

    /**
     * SETRANGE (and APPEND: at the end) where the string is, or becomes, longer than a value takes: the pieces the
     * patch touches are written anew and one transaction swaps the header, keeping the key's expiry.
     *
     * @param offset where the patch goes; -1: at the end (APPEND).
     * @return the string's length after.
     */
    long setRange(final Session session, final byte[] key, final long offset, final byte[] patch)
    {
        return change(session, key, offset, current -> patch);
    }

    /**
     * SETBIT where the string is, or becomes, longer than a value takes.
     *
     * @return the bit before.
     */
    int setBit(final Session session, final byte[] key, final long bit, final boolean on)
    {
        final long index = bit >>> 3;
        final int mask = 1 << (7 - (int)(bit & 7));
        final int[] was = new int[1];
        change(session, key, index, current ->
        {
            final int old = index < current.length() ? current.at(index) : 0;
            was[0] = (old & mask) != 0 ? 1 : 0;
            return new byte[] {(byte)(on ? old | mask : old & ~mask)};
        });
        return was[0];
    }

    /** One transaction that writes {@code patch}'s bytes at {@code offset} (-1: the end) into the key's string. */
    long change(final Session session, final byte[] key, final long offset, final Patch patch)
    {
        refuseInMulti(session, "its bytes");
        final PiecedString[] written = new PiecedString[1];
        final PiecedString[] before = new PiecedString[1];
        try
        {
            return client.transact(tx ->
            {
                if (written[0] != null)
                {
                    // the run before lost its race: what it wrote is nobody's
                    strings.abandon(written[0], before[0]);
                    written[0] = null;
                }
                final LogicalValue current = tx.read(key);
                if (current != null && !ValueKind.isString(current.kind()))
                {
                    throw new WrongKindException(key, current.kind(), ValueKind.STRING);
                }
                final long expireAt = current == null ? KvClient.NO_EXPIRY : current.expireAtMillis();
                final PiecedString old = current == null ? null : PiecedStrings.header(key, current);
                final byte[] plain = current == null ? new byte[0] : old == null ? current.value() : null;
                final long at = offset >= 0 ? offset : old != null ? old.length() : plain.length;
                final byte[] bytes = patch.of(old != null ? StringBytes.of(strings, key, old) : StringBytes.of(plain));
                final PiecedString now = old != null ? strings.setRange(key, old, expireAt, at, bytes) :
                    plainPatched(plain, at, bytes, expireAt);
                before[0] = old;
                written[0] = now;
                if (old != null)
                {
                    PiecedStrings.removeReplaced(tx, old, now);
                }
                PiecedStrings.publish(tx, key, now, expireAt);
                return now.length();
            });
        }
        catch (final RuntimeException ex)
        {
            if (written[0] != null)
            {
                strings.abandon(written[0], before[0]);
            }
            throw ex;
        }
    }

    /** @return a reader of the bytes of the string in pieces {@code read} describes. */
    StringBytes bytes(final byte[] key, final PiecedString string)
    {
        return StringBytes.of(strings, key, string);
    }

    /** @return a plain value patched at {@code offset}, in new pieces (it is longer than a value takes). */
    private PiecedString plainPatched(final byte[] old, final long offset, final byte[] patch, final long expireAt)
    {
        final PieceWriter writer = strings.writer(expireAt);
        try
        {
            if (offset <= old.length)
            {
                final byte[] merged = Arrays.copyOf(old, (int)Math.max(old.length, offset + patch.length));
                System.arraycopy(patch, 0, merged, (int)offset, patch.length);
                writer.write(merged, 0, merged.length);
            }
            else
            {
                writer.write(old, 0, old.length);
                writer.writeZeros(offset - old.length);
                writer.write(patch, 0, patch.length);
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
     * A change of the expiry of a string in pieces (EXPIRE and its forms, PERSIST, GETEX): its pieces carry its
     * expiry, so they are copied with the new one and one transaction swaps the header and removes the old pieces; a
     * time past removes the string.
     *
     * @param holds    whether the key's expiry now allows the change (EXPIRE's NX, XX, GT, LT; PERSIST: it has one).
     * @param expireAt the new expiry, {@link KvClient#NO_EXPIRY} for none.
     * @param remove   true when the time is past: the string goes.
     * @return the string after (null when removed), or {@link #UNCHANGED} when {@code holds} refused.
     * @throws Retry when the key holds no string in pieces now.
     */
    PiecedString expire(final Session session, final byte[] key, final java.util.function.LongPredicate holds,
        final long expireAt, final boolean remove)
    {
        refuseInMulti(session, "its expiry");
        final PiecedString[] written = new PiecedString[1];
        try
        {
            return client.transact(tx ->
            {
                abandonWritten(written);
                final LogicalValue current = tx.read(key);
                if (current == null || current.kind() != ValueKind.PIECES)
                {
                    throw new Retry();
                }
                if (!holds.test(current.expireAtMillis()))
                {
                    return UNCHANGED;
                }
                final PiecedString old = PiecesLayout.decode(key, current.value());
                PiecedStrings.removeReplaced(tx, old, null);
                if (remove)
                {
                    tx.remove(key);
                    return null;
                }
                final long at = KeyStore.storable(expireAt);
                written[0] = strings.copy(key, old, at);
                PiecedStrings.publish(tx, key, written[0], at);
                return written[0];
            });
        }
        catch (final RuntimeException ex)
        {
            abandonWritten(written);
            throw ex;
        }
    }

    /** What {@link #expire} answers when the key's expiry refused the change. */
    static final PiecedString UNCHANGED = new PiecedString(0, 1, new long[0]);

    /**
     * COPY of a string in pieces: every piece copied (under a new generation, with the source's expiry), then one
     * transaction publishes the copy at {@code target}, the source checked unchanged.
     *
     * @return false when the target has a value and {@code replace} is not given.
     * @throws Retry when the source holds no string in pieces now.
     */
    boolean copy(final Session session, final byte[] source, final byte[] target, final boolean replace)
    {
        refuseInMulti(session, "a copy");
        final PiecedString[] written = new PiecedString[1];
        try
        {
            return client.transact(tx ->
            {
                abandonWritten(written);
                final LogicalValue from = tx.read(source);
                if (from == null || from.kind() != ValueKind.PIECES)
                {
                    throw new Retry();
                }
                final LogicalValue to = tx.read(target);
                if (to != null && !replace)
                {
                    return false;
                }
                written[0] = strings.copy(source, PiecesLayout.decode(source, from.value()), from.expireAtMillis());
                PiecedStrings.dropAny(tx, target, to, client.collectionSegmentBytes());
                PiecedStrings.publish(tx, target, written[0], from.expireAtMillis());
                return true;
            });
        }
        catch (final RuntimeException ex)
        {
            abandonWritten(written);
            throw ex;
        }
    }

    private void abandonWritten(final PiecedString[] written)
    {
        if (written[0] != null)
        {
            // written for a run that did not commit: nobody's
            strings.abandon(written[0], null);
            written[0] = null;
        }
    }

    private static void refuseInMulti(final Session session, final String what)
    {
        if (session.executing())
        {
            throw new IllegalArgumentException("a string longer than " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes " +
                "does not change " + what + " inside MULTI (dkv)");
        }
    }

    /**
     * BITOP outside MULTI, whatever its sources' lengths: one transaction reads the sources (strings in pieces a piece
     * at a time) and writes the result, in pieces when it is longer than a value takes, at the destination (with no
     * expiry, as SET), or removes the destination when every source is empty or missing.
     *
     * @param op 0 AND, 1 OR, 2 XOR, 3 NOT.
     * @return the result's length.
     */
    long bitOp(final int op, final byte[] destination, final java.util.List<byte[]> sources)
    {
        final PiecedString[] written = new PiecedString[1];
        try
        {
            return client.transact(tx ->
            {
                abandonWritten(written);
                final StringBytes[] inputs = new StringBytes[sources.size()];
                long longest = 0;
                for (int i = 0; i < inputs.length; i++)
                {
                    final byte[] key = sources.get(i);
                    final LogicalValue read = tx.read(key);
                    if (read != null && !ValueKind.isString(read.kind()))
                    {
                        throw new WrongKindException(key, read.kind(), ValueKind.STRING);
                    }
                    final PiecedString string = PiecedStrings.header(key, read);
                    inputs[i] = read == null ? null :
                        string != null ? bytes(key, string) : StringBytes.of(read.value());
                    longest = Math.max(longest, inputs[i] == null ? 0 : inputs[i].length());
                }
                final LogicalValue target = tx.read(destination);
                PiecedStrings.dropAny(tx, destination, target, client.collectionSegmentBytes());
                if (longest == 0)
                {
                    return 0L;
                }
                if (longest <= KvBlockLayout.MAX_VALUE_LENGTH)
                {
                    final byte[] result = new byte[(int)longest];
                    fill(op, inputs, 0, result, result.length);
                    tx.put(destination, result, KvClient.NO_EXPIRY);
                    return longest;
                }
                final PieceWriter writer = strings.writer(KvClient.NO_EXPIRY);
                try
                {
                    final byte[] chunk = new byte[64 * 1024];
                    for (long at = 0; at < longest; at += chunk.length)
                    {
                        final int n = (int)Math.min(chunk.length, longest - at);
                        fill(op, inputs, at, chunk, n);
                        writer.write(chunk, 0, n);
                    }
                    written[0] = writer.finish();
                }
                catch (final RuntimeException ex)
                {
                    writer.abandon();
                    throw ex;
                }
                PiecedStrings.publish(tx, destination, written[0], KvClient.NO_EXPIRY);
                return longest;
            });
        }
        catch (final RuntimeException ex)
        {
            abandonWritten(written);
            throw ex;
        }
    }

    /** Bytes {@code from} to {@code from + n} of BITOP's result, a missing source or past a source's end zeros. */
    private static void fill(final int op, final StringBytes[] inputs, final long from, final byte[] into, final int n)
    {
        for (int j = 0; j < n; j++)
        {
            final long at = from + j;
            int output = byteAt(inputs[0], at);
            output = op == 3 ? ~output : output;
            for (int i = 1; i < inputs.length; i++)
            {
                final int next = byteAt(inputs[i], at);
                output = op == 0 ? output & next : op == 1 ? output | next : output ^ next;
            }
            into[j] = (byte)output;
        }
    }

    private static int byteAt(final StringBytes bytes, final long index)
    {
        return bytes == null || index >= bytes.length() ? 0 : bytes.at(index);
    }

    /**
     * The bytes {@code from} to {@code to} (inclusive) of a string as {@code current} holds it, zeros past its end: the
     * window of a BITFIELD over a long string.
     */
    static byte[] window(final StringBytes current, final long from, final long to)
    {
        final byte[] window = new byte[(int)(to - from + 1)];
        for (long at = from; at <= to && at < current.length(); at++)
        {
            window[(int)(at - from)] = (byte)current.at(at);
        }
        return window;
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
     * APPEND of an argument longer than a value takes (staged by the decoder): one transaction publishes the string
     * before and the argument's bytes after it (the whole pieces before kept, the argument's copied after them).
     *
     * @return the string's length after.
     */
    long append(final Session session, final byte[] key, final PiecedString tail)
    {
        final PiecedString[] written = new PiecedString[1];
        final PiecedString[] kept = new PiecedString[1];
        try
        {
            refuseInMulti(session, "its bytes");
            final long length = client.transact(tx ->
            {
                if (written[0] != null)
                {
                    strings.abandon(written[0], kept[0]);
                    written[0] = null;
                }
                final LogicalValue current = tx.read(key);
                if (current != null && !ValueKind.isString(current.kind()))
                {
                    throw new WrongKindException(key, current.kind(), ValueKind.STRING);
                }
                final PiecedString old = PiecedStrings.header(key, current);
                final byte[] plain = current == null || old != null ? null : current.value();
                final long before = old != null ? old.length() : plain == null ? 0 : plain.length;
                if (before + tail.length() > PiecedStrings.MAX_LENGTH)
                {
                    throw new IllegalArgumentException(Errors.TOO_LONG.substring("ERR ".length()));
                }
                final long expireAt = current == null ? KvClient.NO_EXPIRY : current.expireAtMillis();
                kept[0] = old;
                written[0] = strings.append(key, plain, old, tail, expireAt);
                if (old != null)
                {
                    PiecedStrings.removeReplaced(tx, old, written[0]);
                }
                PiecedStrings.publish(tx, key, written[0], expireAt);
                return written[0].length();
            });
            written[0] = null;
            return length;
        }
        finally
        {
            if (written[0] != null)
            {
                strings.abandon(written[0], kept[0]);
            }
            // its bytes are copied, or the append failed: the argument's pieces are nobody's
            strings.abandon(tail, null);
        }
    }
}
