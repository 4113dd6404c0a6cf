package io.dkv.load.check.workload;

import io.dkv.checker.bank.BankChecker;
import io.dkv.checker.history.Op;
import io.dkv.load.check.store.CheckedStore;
import io.dkv.load.check.store.ScriptStore;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A bank whose transfers and snapshots are Lua scripts run by compute nodes (EVAL and EVAL_RO): accounts
 * {@code sa0 .. sa<keys-1>} hold their balances as decimal text, all 0 to begin with (absent); a transfer reads two
 * balances and writes both in one script, a snapshot reads them all in one read-only script. A compute node runs each
 * script as one transaction over whichever memory nodes hold the accounts, so {@link BankChecker} must find every
 * snapshot, and the final reads, summing to 0. Through compute nodes only: a client of the driver runs no scripts.
 */
public final class ScriptBankWorkload implements Workload
{
    public static final String NAME = "redis-bank-script";
    /** KEYS: from, to; ARGV: amount. Answers the two balances it read. */
    public static final String TRANSFER =
        "local from = tonumber(redis.call('GET', KEYS[1]) or '0')\n" +
        "local to = tonumber(redis.call('GET', KEYS[2]) or '0')\n" +
        "local amount = tonumber(ARGV[1])\n" +
        "redis.call('SET', KEYS[1], string.format('%d', from - amount))\n" +
        "redis.call('SET', KEYS[2], string.format('%d', to + amount))\n" +
        "return {from, to}\n";
    /** KEYS: every account. Answers their balances, in order. */
    public static final String SNAPSHOT =
        "local balances = {}\n" +
        "for i, key in ipairs(KEYS) do balances[i] = tonumber(redis.call('GET', key) or '0') end\n" +
        "return balances\n";
    private static final double SNAPSHOT_SHARE = 0.3;
    private static final int MAX_AMOUNT = 5;

    private final int keys;

    /** @param keys accounts. */
    public ScriptBankWorkload(final int keys)
    {
        if (keys < 2)
        {
            throw new IllegalArgumentException("redis-bank-script workload: keys " + keys + ": at least 2 accounts");
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
            return snapshot();
        }
        final int from = random.nextInt(keys);
        final int to = (from + 1 + random.nextInt(keys - 1)) % keys;
        final long amount = 1 + random.nextInt(MAX_AMOUNT);
        return new Invocation(Op.TXN, null, List.of(
            List.of(BankChecker.TRANSFER, account(from), account(to), amount)));
    }

    private Invocation snapshot()
    {
        final List<Object> reads = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++)
        {
            reads.add(List.of(BankChecker.READ, account(i), 0L));
        }
        return new Invocation(Op.TXN, null, reads);
    }

    public List<Invocation> finalReads()
    {
        final List<Invocation> reads = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++)
        {
            reads.add(new Invocation(Op.TXN, null, List.of(List.of(BankChecker.READ, account(i), 0L))));
        }
        return reads;
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        final ScriptStore scripts = ScriptStore.of(store);
        final List<?> microOps = (List<?>)invocation.value();
        final List<?> first = (List<?>)microOps.getFirst();
        if (BankChecker.TRANSFER.equals(first.get(0)))
        {
            final String from = (String)first.get(1);
            final String to = (String)first.get(2);
            final long amount = ((Number)first.get(3)).longValue();
            final List<?> read = (List<?>)scripts.eval(TRANSFER, false, List.of(from, to),
                List.of(Long.toString(amount)));
            return List.of(List.of(BankChecker.TRANSFER, from, to, amount, balance(read.get(0)),
                balance(read.get(1))));
        }
        final List<String> accounts = new ArrayList<>(microOps.size());
        for (final Object item : microOps)
        {
            accounts.add((String)((List<?>)item).get(1));
        }
        final List<?> balances = (List<?>)scripts.eval(SNAPSHOT, true, accounts, List.of());
        final List<Object> done = new ArrayList<>(accounts.size());
        for (int i = 0; i < accounts.size(); i++)
        {
            done.add(List.of(BankChecker.READ, accounts.get(i), balance(balances.get(i))));
        }
        return done;
    }

    private static String account(final int i)
    {
        return "sa" + i;
    }

    /** @return a balance a script answered: an integer reply (or its text, from a layer that passes bytes). */
    private static long balance(final Object reply)
    {
        if (reply instanceof Long value)
        {
            return value;
        }
        if (reply instanceof byte[] text)
        {
            return Long.parseLong(new String(text, StandardCharsets.US_ASCII));
        }
        throw new IllegalStateException("a script answered " + reply + " for a balance");
    }
}
