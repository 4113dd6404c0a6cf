package io.dkv.compute.script;

import io.dkv.client.KvClient;
import io.dkv.client.txn.Transaction;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.Session;
import io.dkv.compute.command.StoreError;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.compute.store.TransactionKeyStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a script or function as one client transaction over any keys of any memory nodes: each attempt in a fresh Lua
 * environment over a {@link TransactionKeyStore}, the command handlers those of EXEC; a conflict at its commit (or a
 * key read changing under it) runs it again from the start, and only the attempt that committed answers. A script that
 * raised an error after writing commits what it wrote, as in redis; a killed one commits nothing.
 *
 * <p>Outside MULTI a script runs on a thread of the node's script pool, not on its connection's event loop, which goes
 * on serving the loop's other connections (BUSY, SCRIPT KILL included) while the connection waits for its reply
 * ({@link Session#defer}). Inside EXEC it runs at once in EXEC's transaction, on the loop, as EXEC's other commands.
 */
final class ScriptRunner
{
    /** Script threads: each waits on the store most of a run, and keeps the client's session of its own. */
    static final int THREADS = Integer.getInteger("dkv.compute.script.threads",
        Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

    /** One attempt: write the reply, or throw (a conflict runs it again; {@link Killed} answers its error). */
    @FunctionalInterface
    interface Attempt
    {
        void run(KeyStore store, Transaction tx, ByteBuf reply);
    }

    /** A run that was killed: nothing it wrote commits, and its caller gets the error. */
    static final class Killed extends RuntimeException
    {
        private final String reply;

        Killed(final String reply)
        {
            super(reply, null, false, false);
            this.reply = reply;
        }
    }

    private final CommandTable table;
    private final KvClient client;
    private final RunningScripts running;
    private final ExecutorService threads;

    ScriptRunner(final CommandTable table, final KvClient client, final RunningScripts running)
    {
        this.table = table;
        this.client = client;
        this.running = running;
        final AtomicInteger count = new AtomicInteger();
        // threads start with the first scripts, and are daemons: a node that closes does not wait for a script
        this.threads = Executors.newFixedThreadPool(THREADS, task ->
        {
            final Thread thread = new Thread(task, "dkv-script-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Run the script for the connection: inside EXEC at once into {@code out}; otherwise on a script thread, the
     * connection's reply deferred until it commits.
     */
    void run(final Session session, final ByteBuf out, final ScriptRun run, final Attempt attempt)
    {
        if (session.executing())
        {
            final KeyStore store = session.store(null);
            running.add(run);
            try
            {
                attempt.run(store, store.transaction(), out);
            }
            catch (final Killed ex)
            {
                RespReplies.error(out, ex.reply);
            }
            finally
            {
                running.remove(run);
                // the script's commands' signals and notifications wait for EXEC's commit
                final List<Runnable> deferred = run.client().takeAfterCommit();
                if (deferred != null)
                {
                    deferred.forEach(session::afterCommit);
                }
            }
            return;
        }
        session.defer(CompletableFuture.supplyAsync(() ->
        {
            final ByteBuf reply = transaction(run, attempt);
            table.deferredReply(ScriptStore.text(run.request()[0]).toLowerCase(), reply, !run.errorCounted());
            return reply;
        }, threads));
    }

    private ByteBuf transaction(final ScriptRun run, final Attempt attempt)
    {
        running.add(run);
        try
        {
            final ByteBuf committed = client.transact(tx ->
            {
                final ByteBuf reply = Unpooled.buffer();
                attempt.run(new TransactionKeyStore(tx, client.epochClock(), client.collectionSegmentBytes()), tx,
                    reply);
                return reply;
            });
            // what its commands deferred to the commit (blocked clients' signals, notifications, PUBLISH) runs now
            CommandTable.committed(run.client());
            return committed;
        }
        catch (final Killed ex)
        {
            run.client().takeAfterCommit();
            return error(ex.reply);
        }
        catch (final RuntimeException ex)
        {
            // a store error, or conflicts past the client's retries: nothing was written
            run.client().takeAfterCommit();
            return error(StoreError.reply(ex));
        }
        finally
        {
            running.remove(run);
        }
    }

    private static ByteBuf error(final String message)
    {
        final ByteBuf reply = Unpooled.buffer();
        RespReplies.error(reply, message);
        return reply;
    }
}
