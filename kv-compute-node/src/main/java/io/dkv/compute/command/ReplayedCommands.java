package io.dkv.compute.command;

import io.dkv.client.txn.ReadsNeeded;
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
 *
 * <p>A key's commands are replayed one batch at a time ({@link KeyBatches}): those that came while one ran go next in
 * one transaction, each run after the one before as EXEC runs its commands, each answered with its own reply, so that
 * a hot key's commands pay their rounds once a batch rather than once each or in one another's conflicts. The
 * commands of several keys are admitted a few at a time with MSETs and EXECs ({@link CarriedTransactions}).
 */
final class ReplayedCommands
{
    private final StoreThreads storeThreads;
    private final CarriedTransactions severalKeys;
    private final KeyBatches<Pending> oneKey = new KeyBatches<>(Pending::loop, this::runBatch);

    /**
     * @param storeThreads where a command that cannot be replayed runs alone.
     * @param severalKeys  admits the commands of several keys a few at a time, with MSETs and EXECs.
     */
    ReplayedCommands(final StoreThreads storeThreads, final CarriedTransactions severalKeys)
    {
        this.storeThreads = storeThreads;
        this.severalKeys = severalKeys;
    }

    /** One run's reply and what it deferred to its commit (null: nothing). */
    private record Run(byte[] reply, List<Runnable> afterCommit)
    {
    }

    /** A command of one key waiting for its batch ({@link KeyBatches}), and where its run goes. */
    private record Pending(Session session, KeyStore store, CommandSpec spec, byte[][] args, Executor loop,
        CompletableFuture<Run> result)
    {
    }

    /**
     * Start the command replayed, as a step of its key ({@link Session#await}), or of every key where it names
     * several, once admitted: in a batch of its key's commands, or a few of several keys at a time.
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
        final CompletableFuture<Run> reply;
        if (key != null)
        {
            reply = new CompletableFuture<>();
            oneKey.submit(key, new Pending(session, store, spec, args, loop, reply));
        }
        else
        {
            reply = severalKeys.admit(loop, () -> replay(session, store, spec, args, loop));
        }
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

    /**
     * Replay a batch of one key's commands, all of one event loop, as one transaction: each runs after the one
     * before, as in EXEC, into a reply of its own. Where that fails (a command's error, a string in pieces, conflicts
     * past the retries) nothing was written, and each runs again alone, one after the other.
     *
     * @return completes once every command of the batch was answered.
     */
    private CompletableFuture<?> runBatch(final List<Pending> batch)
    {
        if (batch.size() == 1)
        {
            return single(batch.get(0));
        }
        final Pending first = batch.get(0);
        final CompletableFuture<List<Run>> runs = first.store().replayed(transaction ->
        {
            final List<Run> made = new ArrayList<>(batch.size());
            List<byte[]> needed = null;
            for (final Pending command : batch)
            {
                try
                {
                    made.add(run(command.session(), transaction, command.spec(), command.args(), List.of()));
                }
                catch (final ReadsNeeded reads)
                {
                    // the others go on, to name what they need too: the batch's next run has them all at once
                    needed = needed == null ? new ArrayList<>() : needed;
                    needed.addAll(reads.keys());
                }
                catch (final RuntimeException ex)
                {
                    if (needed == null)
                    {
                        throw ex;
                    }
                    // after a command ended part way, what the others see is no state to answer from
                }
            }
            if (needed != null)
            {
                // throws ReadsNeeded naming them all: none is known
                transaction.readAhead(needed);
                throw new IllegalStateException("a batch's run needs " + needed.size() + " keys it knows");
            }
            return made;
        }, first.loop());
        return runs.handle((made, failure) ->
        {
            if (failure == null)
            {
                for (int i = 0; i < batch.size(); i++)
                {
                    batch.get(i).result().complete(made.get(i));
                }
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<?> each = CompletableFuture.completedFuture(null);
            for (final Pending command : batch)
            {
                each = each.thenCompose(ignored -> single(command));
            }
            return each;
        }).thenCompose(done -> done);
    }

    /** @return the command replayed in a transaction of its own, its outcome given to its pending result. */
    private static CompletableFuture<?> single(final Pending command)
    {
        return replay(command.session(), command.store(), command.spec(), command.args(), command.loop())
            .whenComplete((run, failure) ->
            {
                if (failure != null)
                {
                    command.result().completeExceptionally(failure);
                }
                else
                {
                    command.result().complete(run);
                }
            }).handle((run, failure) -> null);
    }

    /** @return the command's replayed transaction, started. */
    private static CompletableFuture<Run> replay(final Session session, final KeyStore store, final CommandSpec spec,
        final byte[][] args, final Executor loop)
    {
        final List<byte[]> ahead = readAhead(spec.name(), args);
        return store.replayed(transaction -> run(session, transaction, spec, args, ahead), loop);
    }

    /** @return one run of the command in the transaction {@code transaction} runs, as in EXEC. */
    private static Run run(final Session session, final KeyStore transaction, final CommandSpec spec,
        final byte[][] args, final List<byte[]> ahead)
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
