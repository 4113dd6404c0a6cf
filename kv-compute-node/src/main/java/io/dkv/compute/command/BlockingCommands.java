package io.dkv.compute.command;

import io.dkv.client.WrongKindException;
import io.dkv.client.ordered.ElementList;
import io.dkv.client.ordered.SortedSet;
import io.dkv.compute.blocking.Waiter;
import io.dkv.compute.blocking.Waiters;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX and BZMPOP, with redis 7's replies, woken by a write
 * through any compute node ({@link Waiters}). Each runs first as its non-blocking form (in one transaction, as LMPOP
 * and ZMPOP run); a connection that took nothing blocks until a write readies one of its keys and its command, run
 * again, takes something, or until its timeout (redis's null array), CLIENT UNBLOCK or its connection's end. Inside
 * MULTI (or wherever a connection cannot block) a command that takes nothing answers as if it timed out at once.
 *
 * <p>Where the connection's requests may go out as steps, neither try waits on its event loop: the first is a step run
 * on a store thread, which holds back the connection's later requests; when it took nothing, its finisher blocks the
 * connection on the loop and the second try (the queueing on the keys, the peers told, the command run again) goes to
 * a store thread too.
 */
final class BlockingCommands
{
    private static final String TIMEOUT_NOT_FLOAT = "ERR timeout is not a float or out of range";
    private static final BigDecimal MAX_TIMEOUT_MS = BigDecimal.valueOf(Long.MAX_VALUE / 2);

    private final KeyStore base;
    private final Waiters waiters;
    private final ListMoves moves;
    private final StoreThreads storeThreads;

    /** The non-blocking form of a blocked command: its reply when it took something, else null. */
    @FunctionalInterface
    private interface Take
    {
        ByteBuf take(KeyStore store, boolean blocked);
    }

    BlockingCommands(final KeyStore base, final Waiters waiters, final StoreThreads storeThreads)
    {
        this.base = base;
        this.waiters = waiters;
        this.storeThreads = storeThreads;
        this.moves = new ListMoves(base);
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("blpop", -3, (session, args, out) -> pop(session, args, out, true)),
            spec("brpop", -3, (session, args, out) -> pop(session, args, out, false)),
            spec("blmove", 6, this::blmove),
            spec("brpoplpush", 4, (session, args, out) -> move(session, args, out, args[3], false, true)),
            spec("blmpop", -5, (session, args, out) -> multiPop(session, args, out, false)),
            spec("bzmpop", -5, (session, args, out) -> multiPop(session, args, out, true)),
            spec("bzpopmin", -3, (session, args, out) -> zpop(session, args, out, false)),
            spec("bzpopmax", -3, (session, args, out) -> zpop(session, args, out, true)));
    }

    /**
     * @return the keys a command may have made a list or a sorted set, whose waiters are to try again: a push's or
     * ZADD's key, a move's or a STORE's destination, a renamed or copied key's new name.
     */
    static byte[][] readied(final String name, final byte[][] args)
    {
        return switch (name)
        {
            case "lpush", "rpush", "lpushx", "rpushx", "linsert", "zadd", "zincrby", "zrangestore", "zunionstore",
                "zinterstore", "zdiffstore", "restore", "lset" -> args.length > 1 ? new byte[][]{args[1]} : null;
            case "lmove", "rpoplpush", "blmove", "brpoplpush", "rename", "renamenx", "copy" ->
                args.length > 2 ? new byte[][]{args[2]} : null;
            case "sort" -> sortStore(args);
            default -> null;
        };
    }

    /** SORT's STORE destination: the last STORE of options SORT takes, as SORT reads them. */
    private static byte[][] sortStore(final byte[][] args)
    {
        final byte[] destination = SortCommand.destination(args);
        return destination == null ? null : new byte[][]{destination};
    }

    /** BLPOP and BRPOP key [key ...] timeout: {@code [key, element]}. */
    private void pop(final Session session, final byte[][] args, final ByteBuf out, final boolean head)
    {
        final long timeout = timeout(args[args.length - 1], out);
        if (timeout < 0)
        {
            return;
        }
        final byte[][] keys = Arrays.copyOfRange(args, 1, args.length - 1);
        run(session, keys, timeout, out, (store, blocked) -> listPop(store, keys, head, -1, blocked));
    }

    /** BLMPOP and BZMPOP timeout numkeys key [key ...] LEFT|RIGHT (MIN|MAX) [COUNT count]. */
    private void multiPop(final Session session, final byte[][] args, final ByteBuf out, final boolean sorted)
    {
        final MultiPopArguments parsed = MultiPopArguments.parse(args, 2, sorted, out);
        if (parsed == null)
        {
            return;
        }
        final long timeout = timeout(args[1], out);
        if (timeout < 0)
        {
            return;
        }
        final byte[][] keys = parsed.keys();
        final int protocol = session.protocol();
        run(session, keys, timeout, out, sorted ?
            (store, blocked) -> zsetPop(store, keys, !parsed.first(), parsed.count(), true, blocked, protocol) :
            (store, blocked) -> listPop(store, keys, parsed.first(), parsed.count(), blocked));
    }

    /** BZPOPMIN and BZPOPMAX key [key ...] timeout: {@code [key, member, score]}. */
    private void zpop(final Session session, final byte[][] args, final ByteBuf out, final boolean max)
    {
        final long timeout = timeout(args[args.length - 1], out);
        if (timeout < 0)
        {
            return;
        }
        final byte[][] keys = Arrays.copyOfRange(args, 1, args.length - 1);
        final int protocol = session.protocol();
        run(session, keys, timeout, out, (store, blocked) -> zsetPop(store, keys, max, 1, false, blocked, protocol));
    }

    /** BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout. */
    private void blmove(final Session session, final byte[][] args, final ByteBuf out)
    {
        final boolean fromLeft = is(args[3], "left");
        final boolean toLeft = is(args[4], "left");
        if (!fromLeft && !is(args[3], "right") || !toLeft && !is(args[4], "right"))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        move(session, args, out, args[5], fromLeft, toLeft);
    }

    private void move(final Session session, final byte[][] args, final ByteBuf out, final byte[] timeoutArg,
        final boolean fromHead, final boolean toHead)
    {
        final long timeout = timeout(timeoutArg, out);
        if (timeout < 0)
        {
            return;
        }
        final byte[] source = args[1];
        final byte[] destination = args[2];
        run(session, new byte[][]{source}, timeout, out, true, (store, blocked) ->
        {
            final byte[] element = moves.move(store, source, destination, fromHead, toHead);
            if (element == null)
            {
                return null;
            }
            if (blocked)
            {
                // served off the command table, which signals a request's destination: a BLPOP on it may wake
                waiters.ready(destination);
            }
            final ByteBuf reply = Unpooled.buffer(element.length + 16);
            RespReplies.bulk(reply, element);
            return reply;
        });
    }

    /**
     * Run a blocking command: its non-blocking form now; when that took nothing, block (where the connection can),
     * queued on its keys, and run it once more, since a write may have come between.
     */
    private void run(final Session session, final byte[][] keys, final long timeoutMs, final ByteBuf out,
        final Take take)
    {
        run(session, keys, timeoutMs, out, false, take);
    }

    /** @param move BLMOVE's: a connection that cannot block gets a null bulk, as from redis, not a null array. */
    private void run(final Session session, final byte[][] keys, final long timeoutMs, final ByteBuf out,
        final boolean move, final Take take)
    {
        if (ServerCommands.refusedReserved(keys, 0, keys.length, out))
        {
            return;
        }
        if (session.mayAwait(base))
        {
            // every later request of the connection waits for it (no key): one after it is answered after it
            session.await(storeThreads.supply(() -> take.take(base, false)), (taken, failure, reply) ->
            {
                if (failure != null)
                {
                    throw AsyncStep.unchecked(failure);
                }
                if (taken != null)
                {
                    reply.writeBytes(taken);
                    taken.release();
                }
                else if (!session.outlet().isActive())
                {
                    // closed while the try was out: no waiter outlives its connection
                    denied(session, reply, move);
                }
                else
                {
                    block(session, keys, timeoutMs, take, true);
                }
            }, null);
            return;
        }
        final KeyStore store = session.store(base);
        final ByteBuf now = take.take(store, false);
        if (now != null)
        {
            out.writeBytes(now);
            now.release();
            return;
        }
        if (session.executing() || session.inMulti() || session.outlet() == null || session.resumer() == null)
        {
            denied(session, out, move);
            return;
        }
        block(session, keys, timeoutMs, take, false);
    }

    /** redis's CLIENT_DENY_BLOCKING: as if the timeout came at once. */
    private static void denied(final Session session, final ByteBuf out, final boolean move)
    {
        if (move)
        {
            RespReplies.nullReply(out, session.protocol());
        }
        else
        {
            RespReplies.nullArray(out, session.protocol());
        }
    }

    /**
     * Block the connection, on its loop: queued on its keys and run once more, as a write's signal runs it, so that a
     * write that came between is seen; its reply goes out through the connection's resumer (a write's thread serving
     * it meanwhile answers instead).
     *
     * @param offLoop whether that second run goes to a store thread rather than running here.
     */
    private void block(final Session session, final byte[][] keys, final long timeoutMs, final Take take,
        final boolean offLoop)
    {
        final ByteBuf timedOut = Unpooled.buffer(8);
        RespReplies.nullArray(timedOut, session.protocol());
        final Waiter waiter = new Waiter(session.id(), keys, session.outlet().eventLoop(),
            () -> serve(take), session.resumer(), timedOut);
        session.block(waiter);
        if (offLoop)
        {
            // timed from now, on the loop; a timeout that comes while the run is out is held until it ends
            waiter.expireAfter(timeoutMs, () -> waiters.end(waiter, null));
            storeThreads.execute(() ->
            {
                try
                {
                    waiters.block(waiter);
                }
                catch (final RuntimeException ex)
                {
                    // as the command's own error would be answered on the loop; a waiter left unqueued would wait on
                    final ByteBuf failed = Unpooled.buffer(64);
                    RespReplies.error(failed, StoreError.reply(ex));
                    waiters.end(waiter, failed);
                }
            });
        }
        else if (!waiters.block(waiter) && !waiter.done())
        {
            waiter.expireAfter(timeoutMs, () -> waiters.end(waiter, null));
        }
    }

    /** A blocked command run again on a signal: a key of another kind now is waited past, as redis does. */
    private ByteBuf serve(final Take take)
    {
        try
        {
            return take.take(base, true);
        }
        catch (final WrongKindException ex)
        {
            final ByteBuf reply = Unpooled.buffer(64);
            RespReplies.error(reply, Errors.WRONGTYPE);
            return reply;
        }
        catch (final RuntimeException ex)
        {
            final ByteBuf reply = Unpooled.buffer(64);
            RespReplies.error(reply, StoreError.reply(ex));
            return reply;
        }
    }

    /**
     * Pop from the first of the keys holding a list, in one transaction; a key of another kind before it is
     * WRONGTYPE (for a blocked command, skipped).
     *
     * @param count -1 for BLPOP's reply, else BLMPOP's with at most this many.
     */
    private static ByteBuf listPop(final KeyStore store, final byte[][] keys, final boolean head, final long count,
        final boolean blocked)
    {
        final Object[] popped = store.atomically(s ->
        {
            for (final byte[] key : keys)
            {
                final ElementList list = openOrSkip(s, key, blocked, ListCommands::open);
                if (list != null && list.exists())
                {
                    return new Object[]{key, ListCommands.popRange(list, head, count == -1 ? 1 : count)};
                }
            }
            return null;
        });
        if (popped == null)
        {
            return null;
        }
        @SuppressWarnings("unchecked")
        final List<byte[]> elements = (List<byte[]>)popped[1];
        final ByteBuf reply = Unpooled.buffer();
        RespReplies.arrayHeader(reply, 2);
        RespReplies.bulk(reply, (byte[])popped[0]);
        if (count == -1)
        {
            RespReplies.bulk(reply, elements.getFirst());
        }
        else
        {
            ListCommands.bulks(reply, elements);
        }
        return reply;
    }

    /** Pop from the first of the keys holding a sorted set: BZPOPMIN's flat reply, or BZMPOP's nested one. */
    private static ByteBuf zsetPop(final KeyStore store, final byte[][] keys, final boolean max, final long count,
        final boolean nested, final boolean blocked, final int protocol)
    {
        final ScoredMembers popped = new ScoredMembers();
        final byte[] from = store.atomically(s ->
        {
            for (final byte[] key : keys)
            {
                final SortedSet set = openOrSkip(s, key, blocked, SortedSetCommands::open);
                if (set != null && set.exists() && SortedSetCommands.popFrom(s, key, max, count, popped))
                {
                    return key;
                }
            }
            return null;
        });
        if (from == null)
        {
            return null;
        }
        final ByteBuf reply = Unpooled.buffer();
        if (nested)
        {
            RespReplies.arrayHeader(reply, 2);
            RespReplies.bulk(reply, from);
            popped.replyPairs(reply, protocol);
        }
        else
        {
            RespReplies.arrayHeader(reply, 3);
            RespReplies.bulk(reply, from);
            RespReplies.bulk(reply, popped.members.getFirst());
            Scores.reply(reply, popped.score(0), protocol);
        }
        return reply;
    }

    private static <T> T openOrSkip(final KeyStore store, final byte[] key, final boolean blocked,
        final BiFunction<KeyStore, byte[], T> open)
    {
        try
        {
            return open.apply(store, key);
        }
        catch (final WrongKindException ex)
        {
            if (blocked)
            {
                return null;
            }
            throw ex;
        }
    }

    /**
     * redis's getTimeoutFromObjectOrReply in seconds: a decimal, ceiled to milliseconds, 0 for no timeout.
     *
     * @return the milliseconds, or -1 having written the error.
     */
    static long timeout(final byte[] arg, final ByteBuf out)
    {
        final BigDecimal seconds;
        try
        {
            seconds = new BigDecimal(new String(arg, StandardCharsets.US_ASCII).trim().isEmpty() ? "x" :
                new String(arg, StandardCharsets.US_ASCII));
        }
        catch (final NumberFormatException ex)
        {
            RespReplies.error(out, TIMEOUT_NOT_FLOAT);
            return -1;
        }
        final BigDecimal millis = seconds.multiply(BigDecimal.valueOf(1000)).setScale(0, RoundingMode.CEILING);
        if (millis.signum() < 0)
        {
            RespReplies.error(out, "ERR timeout is negative");
            return -1;
        }
        if (millis.compareTo(MAX_TIMEOUT_MS) > 0)
        {
            RespReplies.error(out, "ERR timeout is out of range");
            return -1;
        }
        return millis.longValueExact();
    }
}
