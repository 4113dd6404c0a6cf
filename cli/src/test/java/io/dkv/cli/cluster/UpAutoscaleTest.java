package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.CommandRun;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv up --compute MIN..MAX --metric M --target T}: the autoscaler {@code up} starts is given them; a metric
 * or target {@code ./dkv autoscale} would refuse is refused by {@code up} before anything starts, naming the value.
 */
class UpAutoscaleTest
{
    private static final Path LOGS = Path.of("/tmp/run/autoscale");
    private final CommandRun dkv = new CommandRun(DkvMain::commandLine);

    @Test
    void theMetricAndTargetGivenArePassedToTheAutoscaler()
    {
        assertEquals(List.of("autoscale", "--min", "1", "--max", "3", "--port", "6379", "--provider", "shm", "--meta",
            "meta:x", "--cluster-secret-file", "/s", "--log-dir", LOGS.toString(), "--metric", "cpu", "--target",
            "0.7"), new UpAutoscale(1, 3, "CPU", 0.7).arguments(6379, "shm", "meta:x", "/s", LOGS));
    }

    @Test
    void withoutThemTheAutoscalerKeepsItsDefaults()
    {
        final List<String> arguments = new UpAutoscale(2, 4, null, null).arguments(0, "tcp", "meta:x", "/s", LOGS);
        assertFalse(arguments.contains("--metric") || arguments.contains("--target"), arguments::toString);
        assertEquals(List.of("--min", "2", "--max", "4"), arguments.subList(1, 5));
    }

    @Test
    void aMetricOrTargetTheAutoscalerWouldRefuseIsRefusedNamingIt()
    {
        assertEquals("--metric latency is not one of ops, cpu, connections, p99", assertThrows(
            IllegalArgumentException.class, () -> new UpAutoscale(1, 3, "latency", null)).getMessage());
        assertEquals("--target 0.0 for ops is not a positive number", assertThrows(
            IllegalArgumentException.class, () -> new UpAutoscale(1, 3, null, 0.0)).getMessage());
        assertEquals("--target -2.0 for p99 is not a positive number", assertThrows(
            IllegalArgumentException.class, () -> new UpAutoscale(1, 3, "p99", -2.0)).getMessage());
        assertEquals("--target Infinity for ops is not a positive number", assertThrows(
            IllegalArgumentException.class, () -> new UpAutoscale(1, 3, null, Double.POSITIVE_INFINITY)).getMessage());
    }

    @Test
    void aMetricOrTargetWithoutARangeIsRefused()
    {
        assertEquals("--target 5000.0 is for the autoscaler: give --compute MIN..MAX (--compute 1 runs 1 fixed " +
            "compute node)", assertThrows(IllegalArgumentException.class, () -> new UpAutoscale(1, -1, null, 5000.0))
            .getMessage());
    }

    @Test
    void upRefusesABadMetricBeforeAnythingStarts()
    {
        assertEquals(1, dkv.run("up", "--compute", "1..3", "--metric", "latency"));
        assertTrue(dkv.err().contains("--metric latency is not one of ops, cpu, connections, p99"), dkv::err);
        assertFalse(dkv.out().contains("starting"), dkv::out);
    }

    @Test
    void theHelpNamesBoth()
    {
        assertEquals(0, dkv.run("up", "--help"));
        assertTrue(dkv.out().contains("--metric") && dkv.out().contains("--target=VALUE"), dkv::out);
    }
}
