package io.dkv.load.bench.compute;

import java.util.List;

/**
 * One redis-benchmark setting: connections, requests pipelined on each, and how many times the base request count it
 * makes (more for the faster settings, so that every run lasts about as long).
 *
 * @param clients    redis-benchmark's {@code -c}.
 * @param pipeline   redis-benchmark's {@code -P}; 1 is no pipelining.
 * @param multiplier requests of the run over {@code --requests}.
 */
record Setting(int clients, int pipeline, int multiplier)
{
    /** The three: one client, fifty, fifty pipelining sixteen. */
    static final List<Setting> ALL = List.of(new Setting(1, 1, 1), new Setting(50, 1, 4), new Setting(50, 16, 16));

    String label()
    {
        return "-c " + clients + (pipeline > 1 ? " -P " + pipeline : "");
    }
}
