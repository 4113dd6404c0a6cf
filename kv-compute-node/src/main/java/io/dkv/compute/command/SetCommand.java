package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;
import org.agrona.concurrent.EpochClock;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.dkv.compute.command.CommandTable.spec;
import static io.dkv.compute.command.StringOptions.GET;
import static io.dkv.compute.command.StringOptions.IFEQ;
import static io.dkv.compute.command.StringOptions.KEEPTTL;
import static io.dkv.compute.command.StringOptions.NX;
import static io.dkv.compute.command.StringOptions.XX;

/**
 * SET key value [NX|XX|IFEQ comparison-value] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL] and its older forms SETEX,
 * PSETEX and SETNX, its options parsed and checked exactly as redis 7 does (the same errors, in the same order), IFEQ
 * as Valkey 8.1 does: it sets only a key that holds exactly the comparison value, else answers nil (GET: the old value
 * or nil) and leaves the key as it was. As in redis, a SET without KEEPTTL leaves the key with the expiry it gives or
 * none; an expiry time already past sets a key that has no value. NX, XX, IFEQ, GET and KEEPTTL are compare-and-set
 * loops on the key's version, so each SET is atomic for its key, the expiry it keeps included; SETNX is one
 * compare-and-set from "no value". Each runs on the connection's store: its own operations, or EXEC's transaction.
 */
final class SetCommand
{
    private final KeyStore base;
    private final EpochClock clock;
    private final LongStringWrites longWrites;
    /** Where a carried SET that met a hash, a set or a string in pieces replaces it: never the loop. */
    private final StoreThreads storeThreads;

    /** @param base the store outside EXEC. */
    SetCommand(final KeyStore base, final LongStringWrites longWrites, final StoreThreads storeThreads)
    {
        this.storeThreads = storeThreads;
        this.base = base;
        this.longWrites = longWrites;
        this.clock = base.epochClock();
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("set", -3, this::set),
            spec("setex", 4, (session, args, out) -> setIn(session, args, true, "setex", out)),
            spec("psetex", 4, (session, args, out) -> setIn(session, args, false, "psetex", out)),
            spec("setnx", 3, this::setNx));
    }

    /** SET XX or KEEPTTL over a hash or a set: the collection goes with its segments, in one transaction. */
    private static void replaceCollection(final KeyStore store, final byte[] key, final byte[] value,
        final StringOptions options, final Session session, final ByteBuf out)
    {
        final boolean replaced = store.atomically(tx ->
        {
            final Versioned again = tx.readAny(key);
            if (again == null && options.has(XX))
            {
                return false;
            }
            tx.put(key, value, options.has(KEEPTTL) && again != null ? again.expireAtMillis() :
                options.expireAtMillis());
            return true;
        });
        if (replaced)
        {
            RespReplies.ok(out);
        }
        else
        {
            RespReplies.nullReply(out, session.protocol());
        }
    }

    /** SETEX key seconds value and PSETEX key ms value: redis's SET with EX or PX, the time checked alike. */
    private void setIn(
        final Session session, final byte[][] args, final boolean seconds, final String name, final ByteBuf out)
    {
        final StringOptions options = new StringOptions().expireIn(args[2], seconds);
        final String invalid = options.resolveExpiry(clock.time(), name);
        if (invalid != null)
        {
            RespReplies.error(out, invalid);
            return;
        }
        final Object staged = session.takeStaged(3);
        if (staged != null)
        {
            longWrites.set(session, args[1], staged, options, out, name, false);
            return;
        }
        // SET with an expiry: carried by completions where the connection allows a step
        write(session, args[1], args[3], options, out);
    }

    /** SETNX key value: SET NX answering 1 or 0 rather than OK or nil. */
    private void setNx(final Session session, final byte[][] args, final ByteBuf out)
    {
        final Object staged = session.takeStaged(2);
        if (staged != null)
        {
            final StringOptions options = new StringOptions();
            options.parse(new byte[][] {args[0], args[1], args[2], "nx".getBytes(StandardCharsets.US_ASCII)}, 3, true);
            longWrites.set(session, args[1], staged, options, out, "setnx", true);
            return;
        }
        RespReplies.integer(out,
            session.store(base).compareAndSet(args[1], null, args[2], KvClient.NO_EXPIRY) ? 1 : 0);
    }

    private void set(final Session session, final byte[][] args, final ByteBuf out)
    {
        final StringOptions options = new StringOptions();
        if (!options.parse(args, 3, true))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        final String invalid = options.resolveExpiry(clock.time(), "set");
        if (invalid != null)
        {
            RespReplies.error(out, invalid);
            return;
        }
        final Object staged = session.takeStaged(2);
        if (staged != null)
        {
            longWrites.set(session, args[1], staged, options, out, "set", false);
            return;
        }
        try
        {
            write(session, args[1], args[2], options, out);
        }
        catch (final WrongKindException ex)
        {
            if (!LongStrings.inPieces(ex))
            {
                throw ex;
            }
            // GET or IFEQ over a string in pieces: one transaction, the old one streamed back
            longWrites.set(session, args[1], args[2], options, out, "set", false);
        }
    }

    private void write(
        final Session session, final byte[] key, final byte[] value, final StringOptions options, final ByteBuf out)
    {
        final KeyStore store = session.store(base);
        final long expireAt = options.expireAtMillis();
        final boolean get = options.has(GET);
        if (!options.has(NX | XX | IFEQ | GET | KEEPTTL))
        {
            if (session.mayAwait(base))
            {
                // a hash, a set or a string in pieces is replaced with its parts in one transaction, which waits on
                // the store: on a store thread, the step going on meanwhile
                final CompletableFuture<Void> written = store.putAsync(key, value, expireAt).exceptionallyCompose(
                    failure -> WrongKindException.in(failure) ? storeThreads.supply(() ->
                    {
                        store.put(key, value, expireAt);
                        return null;
                    }) : CompletableFuture.failedFuture(failure));
                session.await(written, (ignored, failure, reply) ->
                {
                    if (failure != null)
                    {
                        throw AsyncStep.unchecked(failure);
                    }
                    RespReplies.ok(reply);
                }, key);
                return;
            }
            store.put(key, value, expireAt);
            RespReplies.ok(out);
            return;
        }
        if (options.has(NX) && !get)
        {
            // a key that has no value has no expiry for KEEPTTL to keep
            if (store.compareAndSet(key, null, value, expireAt))
            {
                RespReplies.ok(out);
            }
            else
            {
                RespReplies.nullReply(out, session.protocol());
            }
            return;
        }
        while (true)
        {
            // GET and IFEQ read a string (a hash or a set is WRONGTYPE); XX and KEEPTTL replace any kind
            final Versioned current = get || options.has(IFEQ) ? store.getVersioned(key) : store.readAny(key);
            final byte[] old = current == null ? null : current.value();
            if (options.has(NX) && current != null || options.has(XX) && current == null ||
                options.has(IFEQ) && (current == null || !Arrays.equals(old, options.comparison())))
            {
                RespReplies.bulkOrNull(out, get ? old : null, session.protocol());
                return;
            }
            if (current != null && current.kind() != ValueKind.STRING)
            {
                replaceCollection(store, key, value, options, session, out);
                return;
            }
            final boolean written = current == null ? store.compareAndSet(key, null, value, expireAt) :
                store.compareAndSetVersion(key, current, value,
                    options.has(KEEPTTL) ? current.expireAtMillis() : expireAt);
            if (written)
            {
                if (get)
                {
                    RespReplies.bulkOrNull(out, old, session.protocol());
                }
                else
                {
                    RespReplies.ok(out);
                }
                return;
            }
        }
    }
}
