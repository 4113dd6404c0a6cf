package io.dkv.load.check.store;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.ordered.ElementList;
import io.dkv.client.txn.Transaction;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.cnc.AttachedRaas;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * The real store under test: a {@link KvClient} attached to the host's driver, with every write
 * under durability sync (a memory node killed and restarted keeps what it acknowledged). It keeps
 * one client for the run, as an application does: recovering from a fault (a node down, the driver
 * restarted, which the attached handle follows by itself) is the client's to do, and the run checks
 * it. It attached afresh after every failure before, which hid the client's own recovery, attached
 * a few hundred times a second while a node was down and, keeping each replaced attachment until it
 * closed, filled a client's heap. Only an attachment that could not be made is tried again.
 * Given no memory nodes, it names the members of the memory tier as the directory lists them at each
 * attachment (a client attached to a driver cannot list the registered nodes), so that one attached
 * after memory nodes were added or drained names those that are members then; from there the client
 * follows the membership itself. Asked to, it uses the client's asynchronous forms (carried by completions) and
 * waits for each: the same history, through the other path.
 */
public final class KvCheckedStore implements CheckedStore, AutoCloseable
{
    /** Runs of a transaction after conflicts before the asynchronous path gives up (as transact's retries). */
    private static final int MAX_RUNS = 1_000;
    private final String driverName;
    private final long[] memoryNodes;
    private final int timeoutMs;
    private final boolean async;
    /**
     * Posts the asynchronous path's commits (as a compute node's event loop does), so that the client carries them
     * by completions: never one of the client's threads, nor one that delivers its completions. Null: synchronous.
     */
    private final ExecutorService poster;
    /** The attachment operations use, once made. Guarded by this store's lock. */
    private Attachment attachment;
    private boolean closed;

    public KvCheckedStore(final String driverName, final long[] memoryNodes, final int timeoutMs)
    {
        this(driverName, memoryNodes, timeoutMs, false);
    }

    /** @param async true: through the client's asynchronous forms, each waited for. */
    public KvCheckedStore(final String driverName, final long[] memoryNodes, final int timeoutMs, final boolean async)
    {
        this.driverName = driverName;
        this.memoryNodes = memoryNodes.clone();
        this.timeoutMs = timeoutMs;
        this.async = async;
        this.poster = async ? Executors.newSingleThreadExecutor(work ->
        {
            final Thread thread = new Thread(work, "dkv-check-poster");
            thread.setDaemon(true);
            return thread;
        }) : null;
    }

    public byte[] get(final String key)
    {
        return run(client -> async ? join(client.getAsync(bytes(key))) : client.get(bytes(key)));
    }

    public void put(final String key, final byte[] value)
    {
        run(client ->
        {
            if (async)
            {
                join(client.putAsync(bytes(key), value));
            }
            else
            {
                client.put(bytes(key), value);
            }
            return null;
        });
    }

    public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
    {
        return run(client -> async ? join(client.compareAndSetAsync(bytes(key), expected, value)) :
            client.compareAndSet(bytes(key), expected, value));
    }

    /**
     * One client transaction ({@link KvClient#transact}); asked to be asynchronous, {@link KvClient#transactAsync} with
     * each read through {@code getAsync}, waited for.
     */
    public <T> T transact(final Function<TxnView, T> body)
    {
        return run(client ->
        {
            if (async)
            {
                return transactAsync(client, body, poster);
            }
            return client.transact(tx -> body.apply(new TxnView()
            {
                public byte[] get(final String key)
                {
                    return tx.get(bytes(key));
                }

                public void put(final String key, final byte[] value)
                {
                    tx.put(bytes(key), value);
                }
            }));
        });
    }

    /** The steps in one client transaction over {@link ElementList}s (the async flag is for the other operations). */
    public List<List<byte[]>> listSteps(final List<ListStep> steps)
    {
        return run(client -> client.transact(tx ->
        {
            final List<List<byte[]>> results = new ArrayList<>(steps.size());
            for (final ListStep step : steps)
            {
                final ElementList list = ElementList.open(tx, bytes(step.key()), client.collectionSegmentBytes());
                if (step.element() != null)
                {
                    list.push(false, step.element());
                    list.write();
                    results.add(null);
                }
                else
                {
                    final List<byte[]> elements = new ArrayList<>();
                    list.forEach(0, list.size(), false, elements::add);
                    results.add(elements);
                }
            }
            return results;
        }));
    }

    /**
     * The asynchronous forms, waited for on this thread: each read through {@code getAsync}, the commit through
     * {@code commitAsync} posted by {@code poster} (carried by completions: a parallel commit, or the protocol's round
     * by round), run again here on a conflict (a function that waits must not run on the client's own threads, which
     * carry what completions cannot).
     */
    private static <T> T transactAsync(final KvClient client, final Function<TxnView, T> body,
        final Executor poster)
    {
        for (int run = 0; ; run++)
        {
            final Transaction tx = client.begin();
            final T result = body.apply(new TxnView()
            {
                public byte[] get(final String key)
                {
                    return join(tx.getAsync(bytes(key)));
                }

                public void put(final String key, final byte[] value)
                {
                    tx.put(bytes(key), value);
                }
            });
            try
            {
                join(tx.commitAsync(poster));
                return result;
            }
            catch (final TransactionConflictException ex)
            {
                if (run >= MAX_RUNS)
                {
                    throw ex;
                }
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000, 1_000_000));
            }
        }
    }

    /** @return the future's value; its failure thrown as the synchronous form would throw it. */
    private static <T> T join(final CompletableFuture<T> future)
    {
        try
        {
            return future.join();
        }
        catch (final CompletionException ex)
        {
            if (ex.getCause() instanceof RuntimeException cause)
            {
                throw cause;
            }
            throw ex;
        }
    }

    /** Run one operation on the attachment; one still inside it when the store closes closes it as it returns. */
    private <T> T run(final Function<KvClient, T> operation)
    {
        final Attachment current = acquire();
        try
        {
            return operation.apply(current.client);
        }
        finally
        {
            release(current);
        }
    }

    private synchronized Attachment acquire()
    {
        if (closed)
        {
            throw new IllegalStateException("the store is closed");
        }
        if (attachment == null)
        {
            final Raas raas = AttachedRaas.attach(new RaasContext().driverName(driverName));
            try
            {
                final long[] nodes = memoryNodes.length > 0 ? memoryNodes : raas.membership().memberIds();
                attachment = new Attachment(raas, KvClient.connect(raas,
                    new KvClientContext().memoryNodes(nodes).durability(Durability.SYNC).timeoutMs(timeoutMs)));
            }
            catch (final RuntimeException ex)
            {
                raas.close();
                throw ex;
            }
        }
        attachment.users++;
        return attachment;
    }

    private void release(final Attachment used)
    {
        final boolean last;
        synchronized (this)
        {
            used.users--;
            // replaced only by the store's close, after which no operation enters: the last one out closes it
            last = used.users == 0 && attachment != used;
        }
        if (last)
        {
            used.close();
        }
    }

    public void close()
    {
        final Attachment idle;
        synchronized (this)
        {
            closed = true;
            final Attachment current = attachment;
            attachment = null;
            // one with an operation inside is closed by it, as it returns
            idle = current != null && current.users == 0 ? current : null;
        }
        if (idle != null)
        {
            idle.close();
        }
        if (poster != null)
        {
            // what was posted still runs; a commit posted after this fails, as the store is closed
            poster.shutdown();
        }
    }

    private static byte[] bytes(final String key)
    {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** A client on an attachment, with the operations inside it now (guarded by the store's lock). */
    private static final class Attachment
    {
        final Raas raas;
        final KvClient client;
        int users;

        Attachment(final Raas raas, final KvClient client)
        {
            this.raas = raas;
            this.client = client;
        }

        void close()
        {
            try
            {
                client.close();
            }
            catch (final RuntimeException ignored)
            {
                // its driver or node is gone: nothing left to release there
            }
            try
            {
                raas.close();
            }
            catch (final RuntimeException ignored)
            {
                // as above
            }
        }
    }
}
