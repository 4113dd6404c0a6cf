package io.dkv.load.bench.raas;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The threshold between two ways of carrying messages follows decisive differences only, and a
 * single size where noise reversed the order does not move it.
 */
class CrossoverTest
{
    private static final int BLOCKS = 10;

    /** A latency whose blocks all have the same median. */
    private static Latency steady(final long nanos)
    {
        final long[] blocks = new long[BLOCKS];
        java.util.Arrays.fill(blocks, nanos);
        return new Latency(nanos, nanos * 2, 1000, blocks);
    }

    private static Crossover.Point point(final int size, final long small, final long large)
    {
        return new Crossover.Point(size, steady(small), steady(large));
    }

    @Test
    void theThresholdIsTheLastSizeTheSmallWayWins()
    {
        final Crossover crossover = Crossover.of(List.of(
            point(64, 100, 120), point(128, 100, 120), point(256, 130, 100), point(512, 150, 100)));

        assertEquals(128, crossover.threshold());
        assertEquals(256, crossover.firstLargeSize());
        assertEquals("SEND up to 128 B, WRITE from 256 B", crossover.describe("SEND", "WRITE"));
    }

    @Test
    void aSmallReversalAmongClearWinsDoesNotMoveIt()
    {
        final Crossover crossover = Crossover.of(List.of(
            point(64, 100, 150), point(128, 110, 100), point(256, 100, 150), point(512, 200, 100),
            point(1024, 300, 100)));

        assertEquals(256, crossover.threshold());
    }

    @Test
    void tiesGoToTheSmallWayAndDifferencesBelowTheMinimumGainAreTies()
    {
        final Crossover ties = Crossover.of(List.of(point(64, 100, 101), point(128, 100, 99), point(256, 100, 100)));

        assertEquals(256, ties.threshold());
        assertEquals(0, ties.decisiveSizes());
        assertTrue(ties.describe("COPY", "REGISTER").startsWith("no decisive difference"),
            ties.describe("COPY", "REGISTER"));
    }

    @Test
    void aWayFasterInTooFewBlocksIsNotDecisive()
    {
        final long[] mixed = {100, 100, 100, 100, 100, 200, 200, 200, 200, 200};
        final Latency small = new Latency(150, 300, 1000, mixed);
        final Crossover crossover =
            Crossover.of(List.of(new Crossover.Point(64, small, steady(150)), point(128, 100, 200)));

        assertEquals(0, new Crossover.Point(64, small, steady(150)).verdict());
        assertEquals(128, crossover.threshold());
    }

    @Test
    void whenTheLargeWayAlwaysWinsTheThresholdIsZero()
    {
        final Crossover crossover = Crossover.of(List.of(point(64, 200, 100), point(128, 200, 100)));

        assertEquals(0, crossover.threshold());
        assertTrue(crossover.largeWayThroughout());
        assertEquals("WRITE from the smallest size measured (64 B)", crossover.describe("SEND", "WRITE"));
    }
}
