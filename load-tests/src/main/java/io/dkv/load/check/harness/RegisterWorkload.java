package io.dkv.load.check.harness;

import io.dkv.checker.history.Op;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

/**
 * Registers under a few keys, read, written and compared-and-set with small values (0 to 4) so
 * that compare-and-sets often find what they expect: checked for linearizability.
 */
public final class RegisterWorkload implements Workload
{
    public static final String NAME = "register";
    private static final int VALUES = 5;

    private final int keys;
    private final double readShare;
    private final double writeShare;

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
        final String key = "r" + random.nextInt(keys);
        final double dice = random.nextDouble();
        if (dice < readShare)
        {
            return new Invocation(Op.READ, key, null);
        }
        if (dice < readShare + writeShare)
        {
            return new Invocation(Op.WRITE, key, (long)random.nextInt(VALUES));
        }
        return new Invocation(Op.CAS, key, List.of((long)random.nextInt(VALUES), (long)random.nextInt(VALUES)));
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        switch (invocation.f())
        {
            case Op.READ ->
            {
                final byte[] value = store.get(invocation.key());
                return value == null ? null : decode(invocation.key(), value);
            }
            case Op.WRITE ->
            {
                store.put(invocation.key(), encode((Long)invocation.value()));
                return invocation.value();
            }
            case Op.CAS ->
            {
                final List<?> expectedAndNew = (List<?>)invocation.value();
                final Long expected = (Long)expectedAndNew.get(0);
                if (!store.compareAndSet(invocation.key(), encode(expected), encode((Long)expectedAndNew.get(1))))
                {
                    throw new FailedOperation("the register did not hold " + expected);
                }
                return invocation.value();
            }
            default -> throw new IllegalArgumentException("register workload cannot " + invocation);
        }
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
