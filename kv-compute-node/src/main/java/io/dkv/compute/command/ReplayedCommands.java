package io.dkv.compute.command;

import io.dkv.compute.store.KeyStore;
import io.dkv.compute.store.NotReplayable;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The commands of keys a connection runs as steps ({@link OffloadedCommands}) run as replayed transactions
 * ({@link KeyStore#replayed}, client/README.md "Replayed transactions") on the connection's event loop, where the
 * store has that form: the command runs as it would in EXEC's transaction, against the reads known so far, again from
 * the start each time it reads a key not yet read, and commits carried by completions. No thread waits on it, and the
 * connection's next requests of other keys go out beside it, as beside a store thread's step. Its reply is the run
 * that committed; an error the command raises (WRONGTYPE, a syntax error) is answered as the synchronous command
 * answers it.
 *
 * <p>Each run first reads every key the request names at once ({@link CommandKeys#keysOf}), so that a command of
 * several keys (SINTER, ZUNIONSTORE, LMOVE) takes one round for them rather than one a key. What a run defers to its
 * commit (the *STORE commands' keyspace events, sent from inside the command) is kept with that run's reply and done
 * once the reply is made, on the loop: a run that a conflict or a read ended defers nothing.
 *
 * <p>A run that meets what a transaction does not hold as the command does alone (a string in pieces:
 * {@link NotReplayable}) commits nothing, and the command runs again on a {@link StoreThreads store thread}, alone.
 */
final class ReplayedCommands
{
    private final StoreThreads storeThreads;
    private final CarriedTransactions severalKeys;
    private final CarriedKeys oneKey;

    /**
     * @param storeThreads where a command that cannot be replayed runs alone.
     * @param severalKeys  admits the commands of several keys a few at a time, with MSETs and EXECs.
     * @param oneKey       admits the commands of one key one at a time per key.
     */
    ReplayedCommands(final StoreThreads storeThreads, final CarriedTransactions severalKeys, final CarriedKeys oneKey)
    {
        this.storeThreads = storeThreads;
        this.severalKeys = severalKeys;
        this.oneKey = oneKey;
    }

    /** One run's reply and what it deferred to its commit (null: nothing). */
    private record Run(byte[] reply, List<Runnable> afterCommit)
    {
    }

    /**
     * Start the command replayed, as a step of its key ({@link Session#await}), or of every key where it names
     * several, once admitted: one at a time per key, or a few of several keys at a time.
     *
     * @return false where the store has no replayed form: nothing was started.
     */
    boolean start(final Session session, final KeyStore store, final CommandSpec spec, final byte[][] args)
    {
        if (!store.replays())
        {
            return false;
        }
        final Executor loop = session.outlet().eventLoop();
        final byte[] key = OffloadedCommands.stepKey(spec.name(), args);
        final Supplier<CompletableFuture<Run>> start = () -> replay(session, store, spec, args, loop);
        final CompletableFuture<Run> reply = key != null ? oneKey.admit(loop, key, start) :
            severalKeys.admit(loop, start);
        final CompletableFuture<Run> answered = reply.exceptionallyCompose(failure ->
            AsyncStep.cause(failure) instanceof NotReplayable ?
                storeThreads.supply(() -> alone(session, spec, args)) : CompletableFuture.failedFuture(failure));
        session.await(answered, (run, failure, out) ->
        {
            if (failure != null)
            {
                throw AsyncStep.unchecked(failure);
            }
            out.writeBytes(run.reply());
            if (run.afterCommit() != null)
            {
                run.afterCommit().forEach(Runnable::run);
            }
        }, key);
        return true;
    }

    /** @return the command's replayed transaction, started. */
    private static CompletableFuture<Run> replay(final Session session, final KeyStore store, final CommandSpec spec,
        final byte[][] args, final Executor loop)
    {
        final List<byte[]> ahead = readAhead(spec.name(), args);
        return store.replayed(transaction ->
        {
            // run as in EXEC: the command's store is the transaction's, and it sends nothing out of its own
            final ByteBuf out = Unpooled.buffer();
            session.replaying(transaction);
            try
            {
                transaction.readAhead(ahead);
                spec.handler().execute(session, args, out);
                return new Run(ByteBufUtil.getBytes(out), session.takeAfterCommit());
            }
            finally
            {
                session.replaying(null);
                // what a run that did not return deferred is dropped with it
                session.takeAfterCommit();
                out.release();
            }
        }, loop);
    }

    /** @return the command run as it would be without a step, on a store thread, where it may wait. */
    private static Run alone(final Session session, final CommandSpec spec, final byte[][] args)
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            spec.handler().execute(session, args, out);
            return new Run(ByteBufUtil.getBytes(out), null);
        }
        finally
        {
            out.release();
        }
    }

    /** @return the keys a run reads before the command runs, where it names more than one ({@link #storable}). */
    static List<byte[]> readAhead(final String name, final byte[][] args)
    {
        final List<byte[]> named = CommandKeys.keysOf(name, args);
        return named.size() < 2 ? List.of() : storable(named);
    }

    /**
     * @return the keys, each once, but those a store refuses (empty, too long) or keeps for itself (reserved), which a
     * command answers for itself.
     */
    static List<byte[]> storable(final List<byte[]> named)
    {
        final Set<ByteBuffer> seen = new HashSet<>();
        final List<byte[]> keys = new ArrayList<>(named.size());
        for (final byte[] key : named)
        {
            if (key.length > 0 && key.length <= KvBlockLayout.MAX_KEY_LENGTH && !ReservedKeys.isReserved(key) &&
                seen.add(ByteBuffer.wrap(key)))
            {
                keys.add(key);
            }
        }
        return keys;
    }
}
