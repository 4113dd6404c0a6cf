package io.dkv.load.check.workload;

/**
 * The workloads {@code dkv check} knows, by name.
 */
public final class Workloads
{
    public static final String NAMES = RegisterWorkload.NAME + ", " + ListAppendWorkload.NAME + ", " +
        TxnListAppendWorkload.NAME + ", " + BankWorkload.NAME + ", " + RedisListAppendWorkload.NAME + ", " +
        RedisQueueWorkload.NAME + ", " + ScriptBankWorkload.NAME;

    private Workloads()
    {
    }

    public static Workload of(final String name, final int keys)
    {
        return switch (name)
        {
            case RegisterWorkload.NAME -> new RegisterWorkload(keys, 0.5, 0.25);
            case ListAppendWorkload.NAME -> new ListAppendWorkload(keys, 0.5);
            case TxnListAppendWorkload.NAME -> new TxnListAppendWorkload(keys);
            case BankWorkload.NAME -> new BankWorkload(keys);
            case RedisListAppendWorkload.NAME -> new RedisListAppendWorkload(keys);
            case RedisQueueWorkload.NAME -> new RedisQueueWorkload(keys);
            case ScriptBankWorkload.NAME -> new ScriptBankWorkload(keys);
            default -> throw new IllegalArgumentException("unknown workload '" + name + "': expected one of " + NAMES);
        };
    }
}
