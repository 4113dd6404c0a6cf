package io.dkv.load.bench.ycsb;

/**
 * The stores a workload runs on, side by side.
 */
enum Store
{
    DKV("dkv"),
    REDIS("Redis");

    private final String label;

    Store(final String label)
    {
        this.label = label;
    }

    public String toString()
    {
        return label;
    }
}
