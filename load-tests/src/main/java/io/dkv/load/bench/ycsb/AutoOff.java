package io.dkv.load.bench.ycsb;

/**
 * Whether the benchmark uses a program of the machine's (redis-server, chrt).
 */
enum AutoOff
{
    /** Use it if it is installed; else go without and say how to install it. */
    AUTO,
    /** Go without. */
    OFF
}
