package io.dkv.compute.command;

import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The commands of one key of a hash, set, sorted set or list ({@link OffloadedCommands}) run as replayed transactions
 * ({@link KeyStore#replayed}, client/README.md "Replayed transactions") on the connection's event loop, where the
 * store has that form: the command runs as it would in EXEC's transaction, against the reads known so far, again from
 * the start each time it reads a key not yet read, and commits carried by completions. No thread waits on it, and the
 * connection's next requests of other keys go out beside it, as beside a store thread's step. Its reply is the run
 * that committed; an error the command raises (WRONGTYPE, a syntax error) is answered as the synchronous command
 * answers it.
 */
final class ReplayedCommands
{
    private ReplayedCommands()
    {
    }

    /**
     * Start the command replayed, as a step of its key ({@link Session#await}).
     *
     * @return false where the store has no replayed form: nothing was started.
     */
    static boolean start(final Session session, final KeyStore store, final CommandSpec spec, final byte[][] args)
    {
        final Executor loop = session.outlet().eventLoop();
        final CompletableFuture<byte[]> reply = store.replayed(transaction ->
        {
            // run as in EXEC: the command's store is the transaction's, and it sends nothing out of its own
            final ByteBuf out = Unpooled.buffer();
            session.executing(transaction);
            try
            {
                spec.handler().execute(session, args, out);
                return ByteBufUtil.getBytes(out);
            }
            finally
            {
                session.executing(null);
                out.release();
            }
        }, loop);
        if (reply == null)
        {
            return false;
        }
        session.await(reply, (bytes, failure, out) ->
        {
            if (failure != null)
            {
                throw AsyncStep.unchecked(failure);
            }
            out.writeBytes(bytes);
        }, OffloadedCommands.stepKey(spec.name(), args));
        return true;
    }
}
