package io.dkv.load.check.workload;

import io.dkv.checker.bank.BankChecker;
import io.dkv.checker.history.Op;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.load.check.store.CheckedStore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A bank: accounts {@code a0 .. a<keys-1>}, all 0 to begin with (an absent account), transfers between two of them
 * (a transaction reading both and writing both) and snapshots reading them all (a read-only transaction), checked by
 * {@link BankChecker}: every snapshot sums to 0, and so do the final reads.
 */
public final class BankWorkload implements Workload
{
    public static final String NAME = "bank";
    private static final double SNAPSHOT_SHARE = 0.3;
    private static final int MAX_AMOUNT = 5;

    private final int keys;

    /** @param keys accounts. */
    public BankWorkload(final int keys)
    {
        if (keys < 2)
        {
            throw new IllegalArgumentException("bank workload: keys " + keys + ": at least 2 accounts");
        }
        this.keys = keys;
    }

    public String name()
    {
        return NAME;
    }

    public Invocation next(final Random random, final int process)
    {
        if (random.nextDouble() < SNAPSHOT_SHARE)
        {
            final List<Object> reads = new ArrayList<>(keys);
            for (int i = 0; i < keys; i++)
            {
                reads.add(List.of(BankChecker.READ, "a" + i, 0L));
            }
            return new Invocation(Op.TXN, null, reads);
        }
        final int from = random.nextInt(keys);
        final int to = (from + 1 + random.nextInt(keys - 1)) % keys;
        final long amount = 1 + random.nextInt(MAX_AMOUNT);
        return new Invocation(Op.TXN, null, List.of(
            List.of(BankChecker.TRANSFER, "a" + from, "a" + to, amount)));
    }

    public List<Invocation> finalReads()
    {
        final List<Invocation> reads = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++)
        {
            reads.add(new Invocation(Op.TXN, null, List.of(List.of(BankChecker.READ, "a" + i, 0L))));
        }
        return reads;
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        final List<?> microOps = (List<?>)invocation.value();
        try
        {
            return store.transact(view ->
            {
                final List<Object> done = new ArrayList<>(microOps.size());
                for (final Object item : microOps)
                {
                    final List<?> microOp = (List<?>)item;
                    if (BankChecker.READ.equals(microOp.get(0)))
                    {
                        final String account = (String)microOp.get(1);
                        done.add(List.of(BankChecker.READ, account, balance(view.get(account))));
                        continue;
                    }
                    final String from = (String)microOp.get(1);
                    final String to = (String)microOp.get(2);
                    final long amount = ((Number)microOp.get(3)).longValue();
                    final long fromBalance = balance(view.get(from));
                    final long toBalance = balance(view.get(to));
                    view.put(from, encode(fromBalance - amount));
                    view.put(to, encode(toBalance + amount));
                    // what the transfer read, for the checker: the two balances it moved money between
                    done.add(List.of(BankChecker.TRANSFER, from, to, amount, fromBalance, toBalance));
                }
                return done;
            });
        }
        catch (final TransactionConflictException ex)
        {
            throw new FailedOperation(ex.getMessage());
        }
    }

    private static long balance(final byte[] value)
    {
        return value == null ? 0 : ByteBuffer.wrap(value).getLong();
    }

    private static byte[] encode(final long balance)
    {
        return ByteBuffer.allocate(Long.BYTES).putLong(balance).array();
    }
}
