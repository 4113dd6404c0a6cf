package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.collection.Composite;
import io.dkv.client.collection.Composites;
import io.dkv.client.pieces.PiecedString;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;
import org.agrona.concurrent.EpochClock;

import java.util.List;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * The commands that read or change a key's expiry: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (with NX, XX, GT and LT),
 * TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST and GETEX, answering as redis 7 does. Relative times are made absolute
 * with the client's clock, the one it judges expiry by, read once per command. Each change is a compare-and-set of
 * the version read, so the conditions it was checked against still hold when it lands; a time already past deletes
 * the key, as in redis. Each runs on the connection's store: its own operations, or EXEC's transaction.
 */
final class ExpireCommands
{
    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GT = 4;
    private static final int LT = 8;
    private static final int REFUSED = -1;

    private final KeyStore base;
    private final EpochClock clock;
    private final LongStrings longStrings;
    private final LongStringWrites longWrites;

    /** @param base the store outside EXEC. */
    ExpireCommands(final KeyStore base, final LongStrings longStrings, final LongStringWrites longWrites)
    {
        this.base = base;
        this.longStrings = longStrings;
        this.longWrites = longWrites;
        this.clock = base.epochClock();
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("expire", -3, (session, args, out) -> freeing(session, () ->
                expire(session, args, true, true, "expire", out))),
            spec("pexpire", -3, (session, args, out) -> freeing(session, () ->
                expire(session, args, false, true, "pexpire", out))),
            spec("expireat", -3, (session, args, out) -> freeing(session, () ->
                expire(session, args, true, false, "expireat", out))),
            spec("pexpireat", -3, (session, args, out) -> freeing(session, () ->
                expire(session, args, false, false, "pexpireat", out))),
            spec("ttl", 2, (session, args, out) -> ttl(session.store(base), args[1], false, out)),
            spec("pttl", 2, (session, args, out) -> ttl(session.store(base), args[1], true, out)),
            spec("expiretime", 2, (session, args, out) -> expireTime(session.store(base), args[1], false, out)),
            spec("pexpiretime", 2, (session, args, out) -> expireTime(session.store(base), args[1], true, out)),
            spec("persist", 2, (session, args, out) -> freeing(session, () -> persist(session, args, out))),
            spec("getex", -2, this::getEx));
    }

    /** EXPIRE and PERSIST are allowed at redis's memory limit: their new blocks may take a full node's reserve. */
    private void freeing(final Session session, final Runnable command)
    {
        session.store(base).freeingMemory(() ->
        {
            command.run();
            return null;
        });
    }

    private void expire(final Session session, final byte[][] args, final boolean seconds, final boolean relative,
        final String name, final ByteBuf out)
    {
        final int conditions = conditions(args, out);
        if (conditions == REFUSED)
        {
            return;
        }
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long now = clock.time();
        long when = RespNumbers.parseLong(args[2]);
        // negative times are allowed, as in redis; only what overflows is refused
        if (seconds && (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000))
        {
            RespReplies.error(out, Errors.invalidExpireTime(name));
            return;
        }
        when = seconds ? when * 1000 : when;
        if (relative && when > Long.MAX_VALUE - now)
        {
            RespReplies.error(out, Errors.invalidExpireTime(name));
            return;
        }
        when = relative ? when + now : when;
        final KeyStore store = session.store(base);
        while (true)
        {
            final Versioned current = store.readAny(args[1]);
            if (current == null || !conditionsHold(conditions, current.expireAtMillis(), when))
            {
                RespReplies.integer(out, 0);
                return;
            }
            if (current.kind() == ValueKind.PIECES)
            {
                final long at = when;
                try
                {
                    RespReplies.integer(out, longWrites.expire(session, args[1],
                        expiry -> conditionsHold(conditions, expiry, at), at, at <= now) != LongStringWrites.UNCHANGED ?
                        1 : 0);
                    return;
                }
                catch (final LongStrings.Retry retry)
                {
                    continue;
                }
            }
            if (current.kind() != ValueKind.STRING)
            {
                RespReplies.integer(out, expireCollection(store, args[1], conditions, when, now) ? 1 : 0);
                return;
            }
            if (when <= now ? store.deleteVersion(args[1], current) :
                store.compareAndSetVersion(args[1], current, current.value(), when))
            {
                RespReplies.integer(out, 1);
                return;
            }
        }
    }

    /**
     * A hash's or a set's expiry is its header's and every segment's (client/README.md, "Hashes and sets"): changed in
     * one transaction, the conditions checked again in it; a time past removes the collection.
     */
    private static boolean expireCollection(final KeyStore store, final byte[] key, final int conditions,
        final long when, final long now)
    {
        return store.atomically(tx ->
        {
            final Versioned current = tx.readAny(key);
            if (current == null || current.kind() == ValueKind.STRING ||
                !conditionsHold(conditions, current.expireAtMillis(), when))
            {
                // (a string written since is left as it is: the command saw a collection)
                return false;
            }
            final Composite collection = Composites.open(tx.transaction(), key, current.kind(), tx.segmentBytes());
            if (when <= now)
            {
                collection.drop();
            }
            else
            {
                collection.expireAt(KeyStore.storable(when));
                collection.write();
            }
            return true;
        });
    }

    private void persist(final Session session, final byte[][] args, final ByteBuf out)
    {
        final KeyStore store = session.store(base);
        while (true)
        {
            final Versioned current = store.readAny(args[1]);
            if (current == null || current.kind() != ValueKind.PIECES)
            {
                RespReplies.integer(out, store.persist(args[1]) ? 1 : 0);
                return;
            }
            try
            {
                RespReplies.integer(out, longWrites.expire(session, args[1], expiry -> expiry != KvClient.NO_EXPIRY,
                    KvClient.NO_EXPIRY, false) != LongStringWrites.UNCHANGED ? 1 : 0);
                return;
            }
            catch (final LongStrings.Retry retry)
            {
                // a plain value now: persisted as one
            }
        }
    }

    /** redis's parseExtendedExpireArgumentsOrReply: every option checked before any combination. */
    private static int conditions(final byte[][] args, final ByteBuf out)
    {
        int conditions = 0;
        for (int j = 3; j < args.length; j++)
        {
            final byte[] opt = args[j];
            if (is(opt, "nx"))
            {
                conditions |= NX;
            }
            else if (is(opt, "xx"))
            {
                conditions |= XX;
            }
            else if (is(opt, "gt"))
            {
                conditions |= GT;
            }
            else if (is(opt, "lt"))
            {
                conditions |= LT;
            }
            else
            {
                RespReplies.error(out, "ERR Unsupported option " + Errors.text(opt));
                return REFUSED;
            }
        }
        if ((conditions & NX) != 0 && (conditions & (XX | GT | LT)) != 0)
        {
            RespReplies.error(out, "ERR NX and XX, GT or LT options at the same time are not compatible");
            return REFUSED;
        }
        if ((conditions & (GT | LT)) == (GT | LT))
        {
            RespReplies.error(out, "ERR GT and LT options at the same time are not compatible");
            return REFUSED;
        }
        return conditions;
    }

    /** As redis: no expiry counts as an infinite one for GT and LT. */
    private static boolean conditionsHold(final int conditions, final long expireAtMillis, final long when)
    {
        final boolean expires = expireAtMillis != KvClient.NO_EXPIRY;
        return !((conditions & NX) != 0 && expires ||
            (conditions & XX) != 0 && !expires ||
            (conditions & GT) != 0 && (!expires || when <= expireAtMillis) ||
            (conditions & LT) != 0 && expires && when >= expireAtMillis);
    }

    private static void ttl(final KeyStore store, final byte[] key, final boolean millis, final ByteBuf out)
    {
        final long left = store.ttlMillis(key);
        RespReplies.integer(out, left < 0 || millis ? left : roundedSeconds(left));
    }

    private static void expireTime(final KeyStore store, final byte[] key, final boolean millis, final ByteBuf out)
    {
        final Versioned current = store.readAny(key);
        if (current == null)
        {
            RespReplies.integer(out, -2);
            return;
        }
        final long at = current.expireAtMillis();
        RespReplies.integer(out, at == KvClient.NO_EXPIRY ? -1 : millis ? at : roundedSeconds(at));
    }

    /** redis's (ms + 500) / 1000 without the overflow near Long.MAX_VALUE, where redis answers the rounded-up value. */
    private static long roundedSeconds(final long millis)
    {
        return millis / 1000 + (millis % 1000 + 500) / 1000;
    }

    /**
     * GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]: the value returned is the version whose expiry was changed. As in
     * redis, a key with no value answers nil before its time is checked.
     */
    private void getEx(final Session session, final byte[][] args, final ByteBuf out)
    {
        final StringOptions options = new StringOptions();
        if (!options.parse(args, 2, false))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        final long now = clock.time();
        final String invalid = options.resolveExpiry(now, "getex");
        final long when = options.expireAtMillis();
        final KeyStore store = session.store(base);
        while (true)
        {
            final Versioned current = LongStrings.versioned(store, args[1]);
            if (current == LongStrings.IN_PIECES)
            {
                if (invalid != null)
                {
                    RespReplies.error(out, invalid);
                    return;
                }
                try
                {
                    getExLong(session, args[1], options, when, now, out);
                    return;
                }
                catch (final LongStrings.Retry retry)
                {
                    continue;
                }
            }
            if (current == null)
            {
                RespReplies.nullReply(out, session.protocol());
                return;
            }
            if (invalid != null)
            {
                RespReplies.error(out, invalid);
                return;
            }
            final boolean done;
            if (options.hasExpiry())
            {
                done = when <= now ? store.deleteVersion(args[1], current) :
                    store.compareAndSetVersion(args[1], current, current.value(), when);
            }
            else if (options.has(StringOptions.PERSIST) && current.expireAtMillis() != KvClient.NO_EXPIRY)
            {
                done = store.compareAndSetVersion(args[1], current, current.value(), KvClient.NO_EXPIRY);
            }
            else
            {
                done = true;
            }
            if (done)
            {
                RespReplies.bulkOrNull(out, current.value(), session.protocol());
                return;
            }
        }
    }

    /** GETEX of a string in pieces: its expiry changed first (its pieces copied), then the string streamed back. */
    private void getExLong(final Session session, final byte[] key, final StringOptions options, final long when,
        final long now, final ByteBuf out)
    {
        final boolean change = options.hasExpiry() || options.has(StringOptions.PERSIST);
        if (!change)
        {
            longStrings.get(session, session.store(base), key, out);
            return;
        }
        if (options.hasExpiry() && when <= now)
        {
            // a time past: the key goes, as GETDEL takes it
            longStrings.getDel(session, key, out);
            return;
        }
        final PiecedString after = longWrites.expire(session, key,
            expiry -> options.hasExpiry() || expiry != KvClient.NO_EXPIRY,
            options.hasExpiry() ? when : KvClient.NO_EXPIRY, false);
        if (after == LongStringWrites.UNCHANGED)
        {
            // PERSIST of a string with no expiry: nothing to change
            longStrings.get(session, session.store(base), key, out);
        }
        else
        {
            longStrings.reply(session, key, after, 0, after.length(), out, null);
        }
    }
}
