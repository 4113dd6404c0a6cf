package io.dkv.load.check.store;

import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * A broken store for the bank of scripts: a transfer script (two keys, an amount) runs as two scripts, the debit of
 * the first key and then, after a window, the credit of the second, as a store that ran a script's commands one by
 * one would: a snapshot between them sees money missing, which the bank checker must catch. Other scripts pass.
 */
public final class SplitScripts extends FaultyStores.Passing implements ScriptStore
{
    /** KEYS: the account; ARGV: what to add. Answers the balance it read. */
    private static final String ADD = "local balance = tonumber(redis.call('GET', KEYS[1]) or '0')\n" +
        "redis.call('SET', KEYS[1], string.format('%d', balance + tonumber(ARGV[1])))\n" +
        "return balance\n";

    private final ScriptStore scripts;
    private final long windowNanos;

    /** @param windowNanos how long the debit stands alone before the credit. */
    public SplitScripts(final CheckedStore store, final long windowNanos)
    {
        super(store);
        this.scripts = ScriptStore.of(store);
        this.windowNanos = windowNanos;
    }

    public Object eval(final String script, final boolean readOnly, final List<String> keys, final List<String> args)
    {
        if (readOnly || keys.size() != 2 || args.size() != 1)
        {
            return scripts.eval(script, readOnly, keys, args);
        }
        final long amount = Long.parseLong(args.getFirst());
        final Object from = scripts.eval(ADD, false, List.of(keys.get(0)), List.of(Long.toString(-amount)));
        LockSupport.parkNanos(windowNanos);
        final Object to = scripts.eval(ADD, false, List.of(keys.get(1)), List.of(Long.toString(amount)));
        return List.of(from, to);
    }

    public <T> T transact(final Function<TxnView, T> body)
    {
        return store.transact(body);
    }
}
