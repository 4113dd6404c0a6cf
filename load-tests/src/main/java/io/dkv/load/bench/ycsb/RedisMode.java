package io.dkv.load.bench.ycsb;

/**
 * Whether the benchmark runs Redis beside dkv.
 */
enum RedisMode
{
    /** Start Debian's redis-server if it is installed, else run dkv alone and say how to install it. */
    AUTO,
    /** dkv alone. */
    OFF
}
