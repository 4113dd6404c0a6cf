package io.dkv.load.check.workload;

import io.dkv.checker.history.Op;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.load.check.store.CheckedStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lists under a few keys, read and appended to by transactions of one to four micro-operations over several keys
 * (client/README.md, "Transactions"): each transaction of several is one store transaction, each of one the store's
 * single-key GET or compare-and-set loop, so that single-key operations are checked with the transactions on their
 * keys; the list-append checker judges them together for strict serializability (G0, G1a/b/c, G-single, G2...).
 */
public final class TxnListAppendWorkload implements Workload
{
    public static final String NAME = "txn-list-append";
    private static final int MAX_MICRO_OPS = 4;
    private static final long ELEMENTS_PER_PROCESS = 1L << 32;

    private final int keys;
    private final AtomicLong appended = new AtomicLong();
    /** How a transaction of one micro-operation runs: the store's single-key GET, or a compare-and-set loop. */
    private final ListAppendWorkload singleKey;

    /** @param keys keys {@code l0 .. l<keys-1>}. */
    public TxnListAppendWorkload(final int keys)
    {
        if (keys < 2)
        {
            throw new IllegalArgumentException("txn-list-append workload: keys " + keys + ": at least 2");
        }
        this.keys = keys;
        this.singleKey = new ListAppendWorkload(keys, 0.5);
    }

    public String name()
    {
        return NAME;
    }

    public Invocation next(final Random random, final int process)
    {
        return transaction(random, process, keys, "l", appended);
    }

    public List<Invocation> finalReads()
    {
        return finalReads(keys, "l");
    }

    /**
     * @return a transaction of one to four reads and appends over keys {@code prefix0 ..}, each appended element
     * unique across processes (the process's number times 2^32 plus a count of this JVM's).
     */
    static Invocation transaction(final Random random, final int process, final int keys, final String prefix,
        final AtomicLong appended)
    {
        final int count = 1 + random.nextInt(MAX_MICRO_OPS);
        final List<Object> microOps = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final String key = prefix + random.nextInt(keys);
            microOps.add(random.nextBoolean() ? List.of(Op.READ_LIST, key, List.of()) :
                List.of(Op.APPEND, key, process * ELEMENTS_PER_PROCESS + appended.getAndIncrement()));
        }
        return new Invocation(Op.TXN, null, microOps);
    }

    /** @return a read of each key {@code prefix0 ..}, alone. */
    static List<Invocation> finalReads(final int keys, final String prefix)
    {
        final List<Invocation> reads = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++)
        {
            reads.add(new Invocation(Op.TXN, null, List.of(List.of(Op.READ_LIST, prefix + i, List.of()))));
        }
        return reads;
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        final List<?> microOps = (List<?>)invocation.value();
        if (microOps.size() == 1)
        {
            // single-key operations in the same history: they must order with the transactions over their key
            return singleKey.execute(store, invocation, deadlineNanos);
        }
        try
        {
            return store.transact(view ->
            {
                // built afresh in each run of the function: a conflict runs it again
                final List<Object> done = new ArrayList<>(microOps.size());
                for (final Object item : microOps)
                {
                    final List<?> microOp = (List<?>)item;
                    final String key = (String)microOp.get(1);
                    final byte[] list = view.get(key);
                    if (Op.READ_LIST.equals(microOp.get(0)))
                    {
                        final List<Object> read = new ArrayList<>(3);
                        read.add(Op.READ_LIST);
                        read.add(key);
                        read.add(list == null ? null : ListAppendWorkload.decode(list));
                        done.add(read);
                    }
                    else
                    {
                        view.put(key, ListAppendWorkload.append(list, (Long)microOp.get(2)));
                        done.add(microOp);
                    }
                }
                return done;
            });
        }
        catch (final TransactionConflictException ex)
        {
            // every run met a conflict: none of them committed
            throw new FailedOperation(ex.getMessage());
        }
    }
}
