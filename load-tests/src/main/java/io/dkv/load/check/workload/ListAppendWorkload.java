package io.dkv.load.check.workload;

import io.dkv.checker.history.Op;
import io.dkv.load.check.store.CheckedStore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lists under a few keys, appended to by compare-and-set loops and read whole: checked by the
 * list-append checker. A transaction is one micro-operation, since the store's atomic unit is one
 * key; the checker still finds cycles through real time across keys.
 */
public final class ListAppendWorkload implements Workload
{
    public static final String NAME = "list-append";
    /**
     * Elements are {@code process * ELEMENTS_PER_PROCESS + n}, n counted by this JVM: processes of other
     * client JVMs have other numbers, so elements are unique across all of them.
     */
    private static final long ELEMENTS_PER_PROCESS = 1L << 32;

    private final int keys;
    private final double readShare;
    private final AtomicLong appended = new AtomicLong();

    /**
     * @param keys      keys {@code l0 .. l<keys-1>}.
     * @param readShare share of reads; the rest are appends.
     */
    public ListAppendWorkload(final int keys, final double readShare)
    {
        if (keys < 1 || readShare < 0 || readShare > 1)
        {
            throw new IllegalArgumentException("list-append workload: keys " + keys + ", read share " + readShare +
                ": keys must be positive and the share in [0, 1]");
        }
        this.keys = keys;
        this.readShare = readShare;
    }

    public String name()
    {
        return NAME;
    }

    public Invocation next(final Random random, final int process)
    {
        final String key = "l" + random.nextInt(keys);
        if (random.nextDouble() < readShare)
        {
            return new Invocation(Op.TXN, null, List.of(List.of(Op.READ_LIST, key, List.of())));
        }
        final long element = process * ELEMENTS_PER_PROCESS + appended.getAndIncrement();
        return new Invocation(Op.TXN, null, List.of(List.of(Op.APPEND, key, element)));
    }

    public List<Invocation> finalReads()
    {
        final List<Invocation> reads = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++)
        {
            reads.add(new Invocation(Op.TXN, null, List.of(List.of(Op.READ_LIST, "l" + i, List.of()))));
        }
        return reads;
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        final List<?> microOp = (List<?>)((List<?>)invocation.value()).get(0);
        final String key = (String)microOp.get(1);
        if (Op.READ_LIST.equals(microOp.get(0)))
        {
            final byte[] value = store.get(key);
            final List<Object> read = new ArrayList<>(3);
            read.add(Op.READ_LIST);
            read.add(key);
            read.add(value == null ? null : decode(value));
            return List.of(read);
        }
        final long element = (Long)microOp.get(2);
        while (true)
        {
            final byte[] current = store.get(key);
            if (store.compareAndSet(key, current, append(current, element)))
            {
                return invocation.value();
            }
            if (System.nanoTime() > deadlineNanos)
            {
                // every compare-and-set found another list: none of them took effect
                throw new FailedOperation("the list under " + key + " kept changing until the deadline");
            }
        }
    }

    static byte[] append(final byte[] list, final long element)
    {
        final int length = list == null ? 0 : list.length;
        final ByteBuffer longer = ByteBuffer.allocate(length + Long.BYTES);
        if (list != null)
        {
            longer.put(list);
        }
        return longer.putLong(element).array();
    }

    static List<Long> decode(final byte[] list)
    {
        final ByteBuffer elements = ByteBuffer.wrap(list);
        final List<Long> decoded = new ArrayList<>(list.length / Long.BYTES);
        while (elements.remaining() >= Long.BYTES)
        {
            decoded.add(elements.getLong());
        }
        return decoded;
    }
}
