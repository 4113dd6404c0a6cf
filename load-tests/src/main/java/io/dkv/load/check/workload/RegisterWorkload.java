package io.dkv.load.check.workload;

import io.dkv.checker.history.Op;
import io.dkv.load.check.store.CheckedStore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registers under a few keys, read, written and compared-and-set: checked for linearizability.
 * <p>
 * Every write and compare-and-set writes a value never written before (the process that invokes it and a count of
 * this JVM, as list-append's elements), so that a read names the one write it saw and a stale copy of a value cannot
 * pass for a fresh one. A compare-and-set expects the value this client last learnt the key holds (what it last
 * read, wrote or set there), so that it often finds it; with nothing learnt yet it expects the key to be absent.
 */
public final class RegisterWorkload implements Workload
{
    public static final String NAME = "register";
    /** Values are {@code process * VALUES_PER_PROCESS + n}: processes of other client JVMs have other numbers. */
    static final long VALUES_PER_PROCESS = 1L << 32;

    private final int keys;
    private final double readShare;
    private final double writeShare;
    private final AtomicLong written = new AtomicLong();
    /** What this client last learnt each key holds; a key absent from it was never seen holding anything. */
    private final ConcurrentHashMap<String, Long> learnt = new ConcurrentHashMap<>();

    /**
     * @param keys       keys {@code r0 .. r<keys-1>}.
     * @param readShare  share of reads; the rest is writes ({@code writeShare}) and compare-and-sets.
     * @param writeShare share of writes.
     */
    public RegisterWorkload(final int keys, final double readShare, final double writeShare)
    {
        if (keys < 1 || readShare < 0 || writeShare < 0 || readShare + writeShare > 1)
        {
            throw new IllegalArgumentException("register workload: keys " + keys + ", read share " + readShare +
                ", write share " + writeShare + ": keys must be positive and the shares add up to at most 1");
        }
        this.keys = keys;
        this.readShare = readShare;
        this.writeShare = writeShare;
    }

    public String name()
    {
        return NAME;
    }

    public Invocation next(final Random random, final int process)
    {
        final String key = key(random.nextInt(keys));
        final double dice = random.nextDouble();
        if (dice < readShare)
        {
            return new Invocation(Op.READ, key, null);
        }
        final long value = unique(process);
        if (dice < readShare + writeShare)
        {
            return new Invocation(Op.WRITE, key, value);
        }
        return new Invocation(Op.CAS, key, Arrays.asList(learnt.get(key), value));
    }

    public List<Invocation> finalReads()
    {
        final List<Invocation> reads = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++)
        {
            reads.add(new Invocation(Op.READ, key(i), null));
        }
        return reads;
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        switch (invocation.f())
        {
            case Op.READ ->
            {
                final byte[] value = store.get(invocation.key());
                final Object read = value == null ? null : decode(invocation.key(), value);
                learn(invocation.key(), read);
                return read;
            }
            case Op.WRITE ->
            {
                store.put(invocation.key(), encode((Long)invocation.value()));
                learn(invocation.key(), invocation.value());
                return invocation.value();
            }
            case Op.CAS ->
            {
                final List<?> expectedAndNew = (List<?>)invocation.value();
                final Long expected = (Long)expectedAndNew.get(0);
                final byte[] expectedBytes = expected == null ? null : encode(expected);
                if (!store.compareAndSet(invocation.key(), expectedBytes, encode((Long)expectedAndNew.get(1))))
                {
                    throw new FailedOperation("the register did not hold " + expected);
                }
                learn(invocation.key(), expectedAndNew.get(1));
                return invocation.value();
            }
            default -> throw new IllegalArgumentException("register workload cannot " + invocation);
        }
    }

    private long unique(final int process)
    {
        return process * VALUES_PER_PROCESS + written.getAndIncrement();
    }

    private void learn(final String key, final Object value)
    {
        if (value instanceof final Long known)
        {
            learnt.put(key, known);
        }
        else
        {
            learnt.remove(key);
        }
    }

    private static String key(final int index)
    {
        return "r" + index;
    }

    static byte[] encode(final Long value)
    {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    /** @return the long a register holds; anything else is what a read saw, for the checker to reject. */
    static Object decode(final String key, final byte[] value)
    {
        if (value.length != Long.BYTES)
        {
            return "not a long: " + value.length + " bytes under " + key;
        }
        return ByteBuffer.wrap(value).getLong();
    }
}
