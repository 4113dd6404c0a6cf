package io.dkv.compute.autoscale;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Reading Prometheus text: each sample by its series as written, comments and lines that are no sample left out. */
class MetricsScrapeTest
{
    @Test
    void samplesAreKeyedByTheirSeriesLabelsIncluded()
    {
        final Map<String, Double> samples = MetricsScrape.parse("""
            # HELP dkv_compute_ops_per_second Commands a second.
            # TYPE dkv_compute_ops_per_second gauge
            dkv_compute_ops_per_second 1234.5
            dkv_compute_command_duration_seconds{quantile="0.5"} 0.000021
            dkv_compute_command_duration_seconds{quantile="0.99"} 1.5e-4 1700000000000
            odd{label="with space } inside"} 7
            process_start_time_seconds +Inf
            not a sample
            """);
        assertEquals(1234.5, samples.get("dkv_compute_ops_per_second"));
        assertEquals(0.000021, samples.get("dkv_compute_command_duration_seconds{quantile=\"0.5\"}"));
        assertEquals(1.5e-4, samples.get(ScalingMetric.P99.series()), "a timestamp after the value is left aside");
        assertEquals(Double.POSITIVE_INFINITY, samples.get("process_start_time_seconds"));
        assertFalse(samples.containsKey("not"));
        assertEquals(7.0, samples.get("odd{label=\"with space } inside\"}"), "spaces and braces inside label values");
    }

    @Test
    void durationsAreReadAsAnOperatorWritesThem()
    {
        assertEquals(15_000, Durations.parseMillis("--sync-period", "15s"));
        assertEquals(15_000, Durations.parseMillis("--sync-period", "15"));
        assertEquals(500, Durations.parseMillis("--sync-period", "500ms"));
        assertEquals(300_000, Durations.parseMillis("--scale-down-window", "5m"));
        assertEquals(0, Durations.parseMillis("--scale-up-window", "0s"));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Durations.parseMillis("--sync-period", "soon"));
        assertEquals("--sync-period soon is not a duration such as 500ms, 15s, 5m or 1h", ex.getMessage());
    }

    @Test
    void metricsAreNamedAsOnTheCommandLine()
    {
        assertEquals(ScalingMetric.CPU, ScalingMetric.parse("CPU"));
        assertEquals("--metric rps is not one of ops, cpu, connections, p99",
            assertThrows(IllegalArgumentException.class, () -> ScalingMetric.parse("rps")).getMessage());
    }
}
