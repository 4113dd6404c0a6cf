package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.txn.Transaction;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.compute.store.TransactionKeyStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH, with redis 7's replies and errors. EXEC runs the queued commands as one
 * client transaction ({@link KvClient#transact}), whichever memory nodes hold their keys and whichever compute nodes
 * other clients write through: the same command handlers run over a {@link TransactionKeyStore}, so their reads are
 * checked and their writes made at the commit, all or none. WATCH reads each key's version when it is watched; EXEC
 * reads it again inside its transaction and, if any differs (another write, an expiry, a delete, this connection's own
 * write included), answers nil and writes nothing, the transaction's commit checking that read too. A conflict
 * elsewhere (a key a queued command read changed before the commit) runs the commands again, from their requests,
 * unseen by the client.
 */
final class TransactionCommands
{
    /** What runs at once rather than being queued inside MULTI, as in redis's processCommand. */
    private static final Set<String> RUN_AT_ONCE = Set.of("exec", "discard", "multi", "watch", "quit", "reset");
    /** The commands of keys carried by completions of their own outside EXEC: inside, plain transaction work. */
    private static final Set<String> CARRIED = Set.of("get", "set", "incr", "decr", "incrby", "decrby", "mset",
        "msetnx", "del", "unlink", "setex", "psetex");
    /**
     * Commands that touch the connection itself, its subscriptions or the node's settings: an EXEC on a store thread
     * hands each of them to the connection's loop, where that state is kept, and waits for its reply there.
     */
    private static final Set<String> LOOP_ONLY = Set.of("client", "subscribe", "psubscribe", "ssubscribe",
        "unsubscribe", "punsubscribe", "sunsubscribe", "monitor", "hello", "auth", "select", "swapdb", "config",
        "debug", "shutdown", "readonly", "readwrite", "asking");

    private final CommandTable table;
    private final KeyStore store;
    private final KvClient client;
    private final CarriedTransactions carried;
    private final StoreThreads storeThreads;

    /**
     * @param table  runs the queued commands.
     * @param store  the store outside transactions, which WATCH reads.
     * @param client the client whose transactions EXEC runs.
     * @param carried admits a replayed EXEC with the node's other carried transactions of several keys.
     * @param storeThreads where an EXEC that cannot be replayed runs (a script, a walk of the keyspace among its
     *                     commands), so that the loop does not wait on it.
     */
    TransactionCommands(final CommandTable table, final KeyStore store, final KvClient client,
        final CarriedTransactions carried, final StoreThreads storeThreads)
    {
        this.carried = carried;
        this.storeThreads = storeThreads;
        this.table = table;
        this.store = store;
        this.client = client;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("multi", 1, this::multi),
            spec("exec", 1, this::exec),
            spec("discard", 1, this::discard),
            spec("watch", -2, this::watch),
            spec("unwatch", 1, (session, args, out) ->
            {
                session.multi().unwatch();
                RespReplies.ok(out);
            }));
    }

    /** @return true for a command that runs at once inside MULTI rather than being queued. */
    static boolean runsAtOnce(final String name)
    {
        return RUN_AT_ONCE.contains(name);
    }

    private void multi(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (session.inMulti())
        {
            RespReplies.error(out, "ERR MULTI calls can not be nested");
            return;
        }
        session.multi().begin();
        RespReplies.ok(out);
    }

    private void discard(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!session.inMulti())
        {
            RespReplies.error(out, "ERR DISCARD without MULTI");
            return;
        }
        session.multi().end();
        RespReplies.ok(out);
    }

    private void watch(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (session.inMulti())
        {
            RespReplies.error(out, "ERR WATCH inside MULTI is not allowed");
            return;
        }
        if (session.mayAwait(store) && store.replays())
        {
            watchCarried(session, args);
            return;
        }
        for (int i = 1; i < args.length; i++)
        {
            session.multi().watch(args[i], store::readAny);
        }
        RespReplies.ok(out);
    }

    /**
     * WATCH's reads carried by completions: every key's version read at once in a replayed transaction that writes
     * nothing, on no thread that waits; the versions are kept, and OK answered, once they came, as a step every later
     * request of the connection waits for (a MULTI, a write of a watched key).
     */
    private void watchCarried(final Session session, final byte[][] args)
    {
        final List<byte[]> keys = ReplayedCommands.storable(Arrays.asList(args).subList(1, args.length));
        final CompletableFuture<List<Versioned>> versions = client.transactReplayed(tx ->
        {
            tx.readAll(keys);
            final List<Versioned> read = new ArrayList<>(keys.size());
            for (final byte[] key : keys)
            {
                read.add(tx.getVersioned(key));
            }
            return read;
        }, session.outlet().eventLoop());
        session.await(versions, (read, failure, out) ->
        {
            if (failure != null)
            {
                throw AsyncStep.unchecked(failure);
            }
            for (int i = 0; i < keys.size(); i++)
            {
                final Versioned version = read.get(i);
                session.multi().watch(keys.get(i), key -> version);
            }
            // a key no store holds (empty, too long, reserved) is read as the synchronous WATCH reads it
            for (int i = 1; i < args.length; i++)
            {
                session.multi().watch(args[i], store::readAny);
            }
            RespReplies.ok(out);
        }, null);
    }

    private void exec(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!session.inMulti())
        {
            RespReplies.error(out, "ERR EXEC without MULTI");
            return;
        }
        final MultiState multi = session.multi();
        if (multi.refused())
        {
            multi.end();
            RespReplies.error(out, "EXECABORT Transaction discarded because of previous errors.");
            return;
        }
        final List<MultiState.Queued> queued = multi.queued();
        final Map<ByteBuffer, Versioned> watched = multi.watched();
        // as redis, out of MULTI and nothing watched before the commands run, whatever they do
        multi.end();
        if (session.mayAwait(store) && replayable(queued))
        {
            replayed(session, watched, queued);
            return;
        }
        if (session.mayAwait(store))
        {
            onStoreThread(session, watched, queued);
            return;
        }
        ByteBuf replies = null;
        RuntimeException failure = null;
        try
        {
            replies = client.transact(tx -> run(session, tx, watched, queued));
        }
        catch (final RuntimeException ex)
        {
            // a watched key changed, a store error, or conflicts past the client's retries: nothing was written
            failure = ex;
        }
        answer(session, replies, failure, out);
    }

    /**
     * @return true when each queued command's only effects are on the store, through its transaction, or deferred to
     * its commit: EXEC may then run them replayed. A script, FLUSHALL, SCAN, CONFIG SET... keep EXEC on the loop.
     */
    private static boolean replayable(final List<MultiState.Queued> queued)
    {
        for (final MultiState.Queued command : queued)
        {
            final String name = command.spec().name();
            if (OffloadedCommands.walksKeyspace(name) ||
                !OffloadedCommands.offloaded(name, command.args()) && !CARRIED.contains(name))
            {
                return false;
            }
        }
        return true;
    }

    /** @return true for a command of the connection itself or of the node's settings ({@link #LOOP_ONLY}). */
    private static boolean loopOnly(final MultiState.Queued command)
    {
        final String name = command.spec().name();
        final int bar = name.indexOf('|');
        return LOOP_ONLY.contains(bar < 0 ? name : name.substring(0, bar));
    }

    /**
     * EXEC that cannot be replayed (a script, a walk of the keyspace, a server command, a command of the connection
     * among its commands) as the synchronous transaction it always was, on a store thread: the loop serves its other
     * connections meanwhile, and EXEC is a step every later request of the connection waits for, so nothing of the
     * connection runs beside it but the commands of the connection itself, which it hands to the loop
     * ({@link #onLoop}).
     */
    private void onStoreThread(final Session session, final Map<ByteBuffer, Versioned> watched,
        final List<MultiState.Queued> queued)
    {
        final CompletableFuture<ByteBuf> replies =
            storeThreads.supply(() -> client.transact(tx -> run(session, tx, watched, queued)));
        session.await(replies, (reply, failure, out) -> answered(session, reply, failure, out), null);
    }

    /**
     * EXEC as a replayed transaction on the connection's loop ({@link KvClient#transactReplayed}): the watched keys and
     * every key the commands name are read at once, carried by completions, then the commands run against them, again
     * from the start where they read a key not yet read, and commit carried; the loop serves its other connections
     * meanwhile, and EXEC is a step every later request of the connection waits for. What the commands deferred to the
     * commit (keyspace events, blocked clients' signals, PUBLISH) is the last run's, run with the reply.
     */
    private void replayed(final Session session, final Map<ByteBuffer, Versioned> watched,
        final List<MultiState.Queued> queued)
    {
        final List<byte[]> ahead = new ArrayList<>();
        watched.keySet().forEach(key -> ahead.add(key.array()));
        for (final MultiState.Queued command : queued)
        {
            ahead.addAll(CommandKeys.keysOf(command.spec().name(), command.args()));
        }
        final List<byte[]> keys = ReplayedCommands.storable(ahead);
        final Executor loop = session.outlet().eventLoop();
        final CompletableFuture<ByteBuf> replies = carried.admit(loop, () -> client.transactReplayed(tx ->
        {
            tx.readAll(keys);
            return run(session, tx, watched, queued);
        }, loop));
        session.await(replies, (reply, failure, out) -> answered(session, reply, failure, out), null);
    }

    /**
     * EXEC's reply as a step's, on the connection's loop: what its commands deferred to the commit (blocked clients'
     * signals, whose round runs their commands' transactions; notifications; PUBLISH) runs on a store thread, and the
     * connection writes and runs nothing more until it is done ({@link Session#roundOut}), so EXEC is answered after
     * the waiters it woke took their elements, as from redis.
     */
    private void answered(final Session session, final ByteBuf reply, final Throwable failure, final ByteBuf out)
    {
        final List<Runnable> deferred = failure == null ? session.takeAfterCommit() : null;
        answer(session, reply, failure, out);
        if (deferred != null)
        {
            session.roundOut(storeThreads.supply(() ->
            {
                deferred.forEach(Runnable::run);
                return Boolean.TRUE;
            }));
        }
    }

    /**
     * EXEC's reply once its transaction ended: what its commands deferred to the commit run first where it committed,
     * and are dropped where it did not.
     */
    private static void answer(final Session session, final ByteBuf reply, final Throwable failure, final ByteBuf out)
    {
        if (failure == null)
        {
            CommandTable.committed(session);
            out.writeBytes(reply);
            reply.release();
            return;
        }
        session.takeAfterCommit();
        if (failure instanceof WatchedKeyChanged)
        {
            RespReplies.nullArray(out, session.protocol());
        }
        else
        {
            RespReplies.error(out, StoreError.reply(failure));
        }
    }

    /**
     * One run of the transaction: the watched keys' versions checked, then each command run into a reply buffer of
     * this run's own (a conflict discards it and runs again).
     *
     * @return the replies, an array of one per command.
     * @throws WatchedKeyChanged when a watched key changed: the transaction aborts, having only read.
     */
    private ByteBuf run(final Session session, final Transaction tx, final Map<ByteBuffer, Versioned> watched,
        final List<MultiState.Queued> queued)
    {
        for (final Map.Entry<ByteBuffer, Versioned> watch : watched.entrySet())
        {
            if (!sameVersion(watch.getValue(), tx.getVersioned(watch.getKey().array())))
            {
                throw WatchedKeyChanged.INSTANCE;
            }
        }
        // what an earlier run deferred is that run's, which a conflict ended
        session.takeAfterCommit();
        final ByteBuf replies = Unpooled.buffer();
        RespReplies.arrayHeader(replies, queued.size());
        session.executing(new TransactionKeyStore(tx, client.epochClock(), client.collectionSegmentBytes()));
        try
        {
            for (final MultiState.Queued command : queued)
            {
                if (loopOnly(command) && session.outlet() != null && !session.outlet().eventLoop().inEventLoop())
                {
                    onLoop(session, command, replies);
                }
                else
                {
                    table.run(session, command.spec(), command.args(), replies);
                }
            }
        }
        finally
        {
            session.executing(null);
        }
        return replies;
    }

    /**
     * A command of the connection itself or of the node's settings, in an EXEC on a store thread: run on the
     * connection's loop, where that state is only ever touched, the transaction's thread waiting for its reply (the
     * loop waits on no store thread, so this wait ends). A connection closed meanwhile runs it no more: its
     * subscriptions and name went with it.
     */
    private void onLoop(final Session session, final MultiState.Queued command, final ByteBuf replies)
    {
        final Channel channel = session.outlet();
        final ByteBuf reply = Unpooled.buffer();
        try
        {
            CompletableFuture.runAsync(() ->
            {
                if (channel.isActive())
                {
                    table.run(session, command.spec(), command.args(), reply);
                }
                else
                {
                    RespReplies.error(reply, "ERR the connection closed before EXEC ran " + command.spec().name());
                }
            }, channel.eventLoop()).join();
            replies.writeBytes(reply);
        }
        catch (final java.util.concurrent.CompletionException ex)
        {
            throw AsyncStep.unchecked(AsyncStep.cause(ex));
        }
        finally
        {
            reply.release();
        }
    }

    /** EXEC's answer is nil: not an error, so no stack trace is made; {@code transact} aborts and rethrows it. */
    private static final class WatchedKeyChanged extends RuntimeException
    {
        static final WatchedKeyChanged INSTANCE = new WatchedKeyChanged();

        private WatchedKeyChanged()
        {
            super("a watched key changed", null, false, false);
        }
    }

    /** The same write (by its id, the same on every replica), or no value both times. */
    private static boolean sameVersion(final Versioned watched, final Versioned now)
    {
        return watched == null ? now == null : now != null && now.writeId == watched.writeId;
    }
}
