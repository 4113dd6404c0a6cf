package io.dkv.load.bench.compute;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * redis-benchmark's --csv output, as 7.0 prints it and as versions before 7 did (no header, no latencies).
 */
class RedisBenchmarkFiguresTest
{
    @Test
    void readsRateAndLatenciesByTheHeadersColumns()
    {
        final Map<String, RedisBenchmarkFigures> figures = RedisBenchmarkFigures.parse("""
            "test","rps","avg_latency_ms","min_latency_ms",\
            "p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
            "SET","476190.47","1.364","0.392","0.943","4.991","8.815","9.447"
            "GET","526315.81","1.062","0.192","0.711","2.087","5.303","5.799"
            """);

        assertEquals(new RedisBenchmarkFigures("SET", 476190.47, 0.943, 8.815), figures.get("SET"));
        assertEquals(new RedisBenchmarkFigures("GET", 526315.81, 0.711, 5.303), figures.get("GET"));
    }

    @Test
    void readsRateAloneWithoutAHeader()
    {
        final RedisBenchmarkFigures get = RedisBenchmarkFigures.parse("\"GET\",\"18181.82\"\n").get("GET");

        assertEquals(18181.82, get.rps());
        assertTrue(Double.isNaN(get.p50Ms()) && Double.isNaN(get.p99Ms()));
    }

    @Test
    void namesTheRowItCannotRead()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> RedisBenchmarkFigures.parse("\"test\",\"rps\"\n\"GET\",\"fast\"\n"));

        assertTrue(ex.getMessage().contains("\"GET\",\"fast\""), ex.getMessage());
    }
}
