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
 * The string commands' changes of strings longer than a value takes (client/README.md, "Strings in pieces"): SET and
 * its older forms of a long argument publish the pieces the decoder wrote as it arrived ({@link StagedStrings}), or a
 * plain value over a string in pieces with GET or IFEQ; APPEND, SETRANGE, SETBIT and BITFIELD write the pieces they
 * touch anew; EXPIRE and its kind, PERSIST, GETEX and COPY copy them. Each is one transaction that swaps the header and
 * removes the pieces it replaces; pieces written for a run that did not commit are removed.
 */
final class LongStringWrites
{
    private final KvClient client;
    private final PiecedStrings strings;
    private final LongStrings longStrings;

    LongStringWrites(final KvClient client, final LongStrings longStrings)
    {
        this.client = client;
        this.strings = new PiecedStrings(client);
        this.longStrings = longStrings;
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
        final Runnable after = outcome[0] == Outcome.SET ? () -> strings.abandon(string, null) : null;
        longStrings.reply(session, key, string, 0, string.length(), out, after);
    }

    private Versioned readAny(final byte[] key)
    {
        final LogicalValue read = client.transact(tx -> tx.read(key));
        return read == null ? null : new Versioned(read.value(), read.expiryWord(), 0, 0, 0, 0, 0, 0);
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
        LongStrings.refuseInMulti(session, "its bytes");
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
        LongStrings.refuseInMulti(session, "its expiry");
        final PiecedString[] written = new PiecedString[1];
        try
        {
            return client.transact(tx ->
            {
                abandonWritten(written);
                final LogicalValue current = tx.read(key);
                if (current == null || current.kind() != ValueKind.PIECES)
                {
                    throw new LongStrings.Retry();
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
        LongStrings.refuseInMulti(session, "a copy");
        final PiecedString[] written = new PiecedString[1];
        try
        {
            return client.transact(tx ->
            {
                abandonWritten(written);
                final LogicalValue from = tx.read(source);
                if (from == null || from.kind() != ValueKind.PIECES)
                {
                    throw new LongStrings.Retry();
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
            LongStrings.refuseInMulti(session, "its bytes");
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
