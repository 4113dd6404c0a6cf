package io.dkv.load.check.workload;

import io.dkv.checker.history.Op;
import io.dkv.load.check.store.CheckedStore;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Elle's list-append on real lists (client/README.md, "Sorted sets and lists"): transactions of one to four
 * micro-operations over a few keys, an append an RPUSH of the element's decimal text and a read an LRANGE 0 -1;
 * several in one transaction run as one store transaction (through the driver, one over {@code ElementList}s; through
 * compute nodes, MULTI ... EXEC), one alone as the store's own command. The list-append checker judges the history
 * for strict serializability, so a list that loses, doubles or reorders an element, or a transaction seen in part,
 * is caught.
 */
public final class RedisListAppendWorkload implements Workload
{
    public static final String NAME = "redis-list-append";
    private final int keys;
    private final AtomicLong appended = new AtomicLong();

    /** @param keys keys {@code rl0 .. rl<keys-1>}. */
    public RedisListAppendWorkload(final int keys)
    {
        if (keys < 1)
        {
            throw new IllegalArgumentException("redis-list-append workload: keys " + keys + ": at least 1");
        }
        this.keys = keys;
    }

    public String name()
    {
        return NAME;
    }

    public Invocation next(final Random random, final int process)
    {
        return TxnListAppendWorkload.transaction(random, process, keys, "rl", appended);
    }

    public List<Invocation> finalReads()
    {
        return TxnListAppendWorkload.finalReads(keys, "rl");
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        final List<?> microOps = (List<?>)invocation.value();
        final List<CheckedStore.ListStep> steps = new ArrayList<>(microOps.size());
        for (final Object item : microOps)
        {
            final List<?> microOp = (List<?>)item;
            steps.add(new CheckedStore.ListStep((String)microOp.get(1), Op.APPEND.equals(microOp.get(0)) ?
                Long.toString((Long)microOp.get(2)).getBytes(StandardCharsets.US_ASCII) : null));
        }
        final List<List<byte[]>> results = store.listSteps(steps);
        final List<Object> done = new ArrayList<>(microOps.size());
        for (int i = 0; i < microOps.size(); i++)
        {
            final List<?> microOp = (List<?>)microOps.get(i);
            if (Op.APPEND.equals(microOp.get(0)))
            {
                done.add(microOp);
                continue;
            }
            final List<Long> elements = new ArrayList<>(results.get(i).size());
            for (final byte[] element : results.get(i))
            {
                elements.add(Long.parseLong(new String(element, StandardCharsets.US_ASCII)));
            }
            final List<Object> read = new ArrayList<>(3);
            read.add(Op.READ_LIST);
            read.add(microOp.get(1));
            read.add(elements.isEmpty() ? null : elements);
            done.add(read);
        }
        return done;
    }
}
