package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * The string and key commands but SET, the counters and the expiry commands: GET, GETSET, GETDEL, APPEND, STRLEN,
 * MGET, MSET, MSETNX, DEL and EXISTS. Read-modify-writes are compare-and-set loops on the key's version, so each is
 * atomic for its key as in redis; MSET and MSETNX are one transaction each and MGET (and EXISTS) of several keys reads
 * them as of one instant, so no reader sees part of an MSET; DEL of several keys deletes them in one transaction. Each
 * runs on
 * the connection's store: its own operations, or EXEC's transaction.
 */
final class StringCommands
{
    /**
     * Transactions of several keys carried by completions at once (MSETs, MSETNXs, DELs, EXECs, replayed commands of
     * several keys), at most: as many as store threads ran ({@link CarriedTransactions}).
     */
    static final int MAX_CARRIED_TRANSACTIONS = StoreThreads.THREADS;

    private final KeyStore base;
    private final LongStrings longStrings;
    private final LongStringWrites longWrites;
    private final StoreThreads storeThreads;
    private final CarriedTransactions carried;

    /**
     * @param base         the store outside EXEC.
     * @param storeThreads where what completions cannot carry of MSET, MSETNX and DEL runs.
     * @param carried      admits MSETs, MSETNXs and DELs of several keys a few at a time, with the node's other
     *                     carried transactions of several keys.
     */
    StringCommands(final KeyStore base, final LongStrings longStrings, final LongStringWrites longWrites,
        final StoreThreads storeThreads, final CarriedTransactions carried)
    {
        this.base = base;
        this.carried = carried;
        this.storeThreads = storeThreads;
        this.longStrings = longStrings;
        this.longWrites = longWrites;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("get", 2, this::get),
            spec("getset", 3, this::getSet),
            spec("getdel", 2, this::getDel),
            spec("append", 3, this::append),
            spec("strlen", 2, this::strlen),
            spec("mget", -2, this::mget),
            spec("mset", -3, this::mset),
            spec("msetnx", -3, this::msetnx),
            spec("del", -2, this::del),
            spec("unlink", -2, this::del),
            spec("exists", -2, this::exists));
    }

    private void get(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (session.mayAwait(base))
        {
            final byte[] key = args[1];
            // a string in pieces, or a read the completions could not finish, is read again as alone on a store
            // thread: its header, whose pieces then stream as the reply goes out
            final CompletableFuture<Object> read = base.getAsync(key).<Object>thenApply(value -> value)
                .exceptionallyCompose(failure ->
                {
                    final Throwable cause = AsyncStep.cause(failure);
                    return cause instanceof WrongKindException wrong && wrong.kind() != ValueKind.PIECES ?
                        CompletableFuture.failedFuture(cause) : storeThreads.supply(() -> base.readAny(key));
                });
            session.await(read, (value, failure, reply) ->
            {
                if (failure != null)
                {
                    // a hash, a set, a list or a sorted set was read: WRONGTYPE, as alone, without reading it again
                    throw AsyncStep.unchecked(failure);
                }
                if (value instanceof Versioned again)
                {
                    longStrings.answer(session, key, again, reply);
                }
                else
                {
                    RespReplies.bulkOrNull(reply, (byte[])value, session.protocol());
                }
            }, key);
            return;
        }
        getNow(session, args, out);
    }

    private void getNow(final Session session, final byte[][] args, final ByteBuf out)
    {
        final byte[] value = LongStrings.value(session.store(base), args[1]);
        if (value == KvClient.PIECES)
        {
            longStrings.get(session, session.store(base), args[1], out);
            return;
        }
        RespReplies.bulkOrNull(out, value, session.protocol());
    }

    /** As redis's, it leaves the key with no expiry: the new value is written without one. */
    private void getSet(final Session session, final byte[][] args, final ByteBuf out)
    {
        final Object staged = session.takeStaged(2);
        if (staged != null)
        {
            longWrites.set(session, args[1], staged, getOptions(args), out, "getset", false);
            return;
        }
        try
        {
            getSetPlain(session, args, out);
        }
        catch (final WrongKindException ex)
        {
            if (!LongStrings.inPieces(ex))
            {
                throw ex;
            }
            longWrites.set(session, args[1], args[2], getOptions(args), out, "getset", false);
        }
    }

    private static StringOptions getOptions(final byte[][] args)
    {
        final StringOptions options = new StringOptions();
        options.parse(new byte[][] {args[0], args[1], args[2], "get".getBytes(StandardCharsets.US_ASCII)}, 3, true);
        return options;
    }

    private void getSetPlain(final Session session, final byte[][] args, final ByteBuf out)
    {
        final KeyStore store = session.store(base);
        while (true)
        {
            final Versioned current = store.getVersioned(args[1]);
            if (current == null ? store.compareAndSet(args[1], null, args[2], KvClient.NO_EXPIRY) :
                store.compareAndSetVersion(args[1], current, args[2], KvClient.NO_EXPIRY))
            {
                RespReplies.bulkOrNull(out, current == null ? null : current.value(), session.protocol());
                return;
            }
        }
    }

    /** The version read is the one deleted, by compare-and-set, so the value returned is the value removed. */
    private void getDel(final Session session, final byte[][] args, final ByteBuf out)
    {
        final KeyStore store = session.store(base);
        while (true)
        {
            final Versioned current;
            try
            {
                current = store.getVersioned(args[1]);
            }
            catch (final WrongKindException ex)
            {
                if (!LongStrings.inPieces(ex) || session.executing())
                {
                    throw ex;
                }
                try
                {
                    longStrings.getDel(session, args[1], out);
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
            if (store.deleteVersion(args[1], current))
            {
                RespReplies.bulk(out, current.value());
                return;
            }
        }
    }

    /** The key keeps its expiry, as in redis. */
    private void append(final Session session, final byte[][] args, final ByteBuf out)
    {
        final KeyStore store = session.store(base);
        final Object staged = session.takeStaged(2);
        if (staged != null)
        {
            RespReplies.integer(out, longWrites.append(session, args[1], (PiecedString)staged));
            return;
        }
        while (true)
        {
            final Versioned current = LongStrings.versioned(store, args[1]);
            if (current == LongStrings.IN_PIECES)
            {
                RespReplies.integer(out, longWrites.setRange(session, args[1], -1, args[2]));
                return;
            }
            final byte[] old = current == null ? new byte[0] : current.value();
            if ((long)old.length + args[2].length > PiecedStrings.MAX_LENGTH)
            {
                RespReplies.error(out, Errors.TOO_LONG);
                return;
            }
            if ((long)old.length + args[2].length > KvBlockLayout.MAX_VALUE_LENGTH)
            {
                RespReplies.integer(out, longWrites.setRange(session, args[1], -1, args[2]));
                return;
            }
            final byte[] appended = Arrays.copyOf(old, old.length + args[2].length);
            System.arraycopy(args[2], 0, appended, old.length, args[2].length);
            if (Rewrites.keepingExpiry(store, args[1], current, appended))
            {
                RespReplies.integer(out, appended.length);
                return;
            }
        }
    }

    private void strlen(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.integer(out, LongStrings.length(session.store(base), args[1]));
    }

    /** A string in pieces among the keys is read after the others, a piece at a time as the reply goes out. */
    private void mget(final Session session, final byte[][] args, final ByteBuf out)
    {
        final KeyStore store = session.store(base);
        final List<byte[]> values = store.multiGet(Arrays.asList(args).subList(1, args.length));
        RespReplies.arrayHeader(out, values.size());
        for (int i = 0; i < values.size(); i++)
        {
            if (values.get(i) == KvClient.PIECES)
            {
                longStrings.get(session, store, args[i + 1], out);
            }
            else
            {
                RespReplies.bulkOrNull(out, values.get(i), session.protocol());
            }
        }
    }

    /** One transaction: a reader sees all the keys set or none. A key given twice takes its last value, as in redis. */
    private void mset(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length % 2 == 0)
        {
            RespReplies.error(out, Errors.arity("mset"));
            return;
        }
        checkPairs(args);
        if (session.mayAwait(base))
        {
            // carried by completions where the keys hold strings or nothing, posted by the connection's loop (never
            // by the thread that delivered the reads: a write may need a heap chunk, an RPC whose answer that thread
            // would have to deliver to itself); else on a store thread
            final Executor loop = session.outlet().eventLoop();
            final CompletableFuture<Long> set = carried.admit(loop, () ->
                base.putAllAsync(pairKeys(args), pairValues(args), loop)
                    .thenCompose(done -> done != KeyStore.NOT_CARRIED ? CompletableFuture.completedFuture(done) :
                        storeThreads.supply(() ->
                        {
                            base.atomically(store -> putPairs(store, args));
                            return 1L;
                        })));
            session.await(set, (ignored, failure, reply) ->
            {
                if (failure != null)
                {
                    throw AsyncStep.unchecked(failure);
                }
                RespReplies.ok(reply);
            }, null);
            return;
        }
        msetNow(session.store(base), args, out);
    }

    private static void msetNow(final KeyStore base, final byte[][] args, final ByteBuf out)
    {
        base.atomically(store -> putPairs(store, args));
        RespReplies.ok(out);
    }

    private static boolean putPairs(final KeyStore store, final byte[][] args)
    {
        store.readAhead(pairKeys(args));
        for (int i = 1; i < args.length; i += 2)
        {
            store.put(args[i], args[i + 1], KvClient.NO_EXPIRY);
        }
        return true;
    }

    /**
     * One transaction: it reads every key and, only if none has a value, sets them all; its commit checks that none
     * got one meanwhile. A key given twice takes its last value, as in redis.
     */
    private void msetnx(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length % 2 == 0)
        {
            RespReplies.error(out, Errors.arity("msetnx"));
            return;
        }
        if (session.mayAwait(base) && pairRefused(args) == null)
        {
            // carried as MSET is; one the store cannot carry runs whole on a store thread (its first try wrote nothing)
            final Executor loop = session.outlet().eventLoop();
            final CompletableFuture<Long> set = carried.admit(loop, () ->
                base.putAllIfAbsentAsync(pairKeys(args), pairValues(args), loop)
                    .thenCompose(done -> done != KeyStore.NOT_CARRIED ? CompletableFuture.completedFuture(done) :
                        storeThreads.supply(() -> msetNxNow(base, args) ? 1L : 0L)));
            session.await(set, StringCommands::integerReply, null);
            return;
        }
        if (session.mayAwait(base))
        {
            storeThreads.offload(session, null, reply -> RespReplies.integer(reply, msetNxNow(base, args) ? 1 : 0));
            return;
        }
        RespReplies.integer(out, msetNxNow(session.store(base), args) ? 1 : 0);
    }

    private static void integerReply(final Long value, final Throwable failure, final ByteBuf reply)
    {
        if (failure != null)
        {
            throw AsyncStep.unchecked(failure);
        }
        RespReplies.integer(reply, value);
    }

    private static boolean msetNxNow(final KeyStore base, final byte[][] args)
    {
        return base.atomically(store ->
        {
            store.readAhead(pairKeys(args));
            for (int i = 1; i < args.length; i += 2)
            {
                if (store.get(args[i]) != null)
                {
                    return false;
                }
            }
            for (int i = 1; i < args.length; i += 2)
            {
                store.put(args[i], args[i + 1], KvClient.NO_EXPIRY);
            }
            return true;
        });
    }

    /** @return the keys of MSET's or MSETNX's key-value pairs, in order. */
    private static List<byte[]> pairKeys(final byte[][] args)
    {
        final List<byte[]> keys = new ArrayList<>(args.length / 2);
        for (int i = 1; i < args.length; i += 2)
        {
            keys.add(args[i]);
        }
        return keys;
    }

    /** @return the values of MSET's key-value pairs, in order. */
    private static List<byte[]> pairValues(final byte[][] args)
    {
        final List<byte[]> values = new ArrayList<>(args.length / 2);
        for (int i = 2; i < args.length; i += 2)
        {
            values.add(args[i]);
        }
        return values;
    }

    /**
     * Refuse an MSET whose key or value the store would refuse before it writes any: inside EXEC, the pairs before
     * such a key would otherwise stay written in the transaction while the command answers an error.
     */
    private static void checkPairs(final byte[][] args)
    {
        final String refused = pairRefused(args);
        if (refused != null)
        {
            throw new IllegalArgumentException(refused);
        }
    }

    /** @return why the store refuses a key or value of the pairs, or null where it takes them all. */
    private static String pairRefused(final byte[][] args)
    {
        for (int i = 1; i < args.length; i += 2)
        {
            if (args[i].length == 0 || args[i].length > KvBlockLayout.MAX_KEY_LENGTH)
            {
                return "a key is 1 to " + KvBlockLayout.MAX_KEY_LENGTH + " bytes; this one is " + args[i].length +
                    " bytes";
            }
            if (args[i + 1].length > KvBlockLayout.MAX_VALUE_LENGTH)
            {
                return "a value is 0 to " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes; this one is " +
                    args[i + 1].length + " bytes";
            }
        }
        return null;
    }

    /**
     * DEL and UNLINK: carried by completions where the keys hold strings or nothing (one key the client's delete,
     * several a transaction admitted as MSET's are); else on a store thread, as one over a collection or a string in
     * pieces goes again, whole.
     */
    private void del(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!session.mayAwait(base))
        {
            RespReplies.integer(out, KeyspaceCommands.deleteAll(session.store(base), args));
            return;
        }
        final CompletableFuture<Long> deleted;
        if (args.length == 2)
        {
            deleted = base.deleteAsync(args[1]).thenApply(had -> had ? 1L : 0L).exceptionallyCompose(failure ->
                WrongKindException.in(failure) ?
                    storeThreads.supply(() -> KeyspaceCommands.deleteAll(base, args)) :
                    CompletableFuture.failedFuture(failure));
        }
        else
        {
            final Executor loop = session.outlet().eventLoop();
            final List<byte[]> keys = Arrays.asList(args).subList(1, args.length);
            deleted = carried.admit(loop, () -> base.deleteAllAsync(keys, loop).thenCompose(count ->
                count != KeyStore.NOT_CARRIED ? CompletableFuture.completedFuture(count) :
                    storeThreads.supply(() -> KeyspaceCommands.deleteAll(base, args))));
        }
        session.await(deleted, StringCommands::integerReply, args.length == 2 ? args[1] : null);
    }

    /** A key named twice counts twice, as in redis. */
    private void exists(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.integer(out, session.store(base).exists(Arrays.asList(args).subList(1, args.length)));
    }
}
