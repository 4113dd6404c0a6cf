package io.dkv.load.bench.compute;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scale-out step's goals are judged on the ratio of the two p99s as a fraction, and on every failed request; over
 * several steps, on the median step's ratio and on every step's failures.
 */
class ScaleStepPartTest
{
    private static ScaleStepPart.Phase phase(final String name, final long p99Nanos, final long failed)
    {
        final Histogram latencies = new Histogram(60_000_000_000L, 3);
        // a tenth of the requests at the figure: it is the 99th percentile
        latencies.recordValueWithCount(100_000, 90);
        latencies.recordValueWithCount(p99Nanos, 10);
        return new ScaleStepPart.Phase(name, 10_000, latencies, failed);
    }

    private static ScaleStepPart.Result result(final long steadyP99, final long stepP99, final long failedInStep)
    {
        return new ScaleStepPart.Result(List.of(phase("steady", steadyP99, 0), phase("step", stepP99, failedInStep),
            phase("after", steadyP99, 0)), 1_000, 10, 5, null);
    }

    @Test
    void aStepP99UnderTwiceTheSteadyOneMeetsTheGoalWithItsRatioToTheHundredth()
    {
        final List<String> goals = ScaleStepPart.goals(List.of(result(1_000_000, 1_500_000, 0)));
        assertEquals("scale-out step p99 <= 2.0x the steady p99: MET (1.50x)", goals.get(0));
        assertEquals("no failed request through the step: MET (0 failed)", goals.get(1));
    }

    @Test
    void aStepP99JustOverTwiceOrAFailedRequestMissesIt()
    {
        final List<String> goals = ScaleStepPart.goals(List.of(result(1_605_000, 3_777_000, 2)));
        assertEquals("scale-out step p99 <= 2.0x the steady p99: MISSED (2.35x)", goals.get(0));
        assertEquals("no failed request through the step: MISSED (2 failed)", goals.get(1));
    }

    @Test
    void overSeveralStepsTheMedianStepIsJudgedAndShownAndEveryFailureCounts()
    {
        final ScaleStepPart.Result high = result(1_000_000, 3_000_000, 0);
        final ScaleStepPart.Result low = result(1_000_000, 1_000_000, 1);
        final ScaleStepPart.Result middle = result(1_000_000, 1_900_000, 0);
        final List<ScaleStepPart.Result> steps = List.of(high, low, middle);

        assertSame(middle, ScaleStepPart.median(steps));
        assertSame(low, ScaleStepPart.median(List.of(high, low)), "of an even count, the lower middle");
        final List<String> goals = ScaleStepPart.goals(steps);
        assertEquals("scale-out step p99 <= 2.0x the steady p99, median of 3 steps: MET (1.90x)", goals.get(0));
        assertEquals("no failed request through the step: MISSED (1 failed)", goals.get(1));
        assertTrue(ScaleStepPart.section(steps).notes().getFirst().startsWith("3 steps, each in a cluster of its " +
            "own; step p99 / steady p99 of each, in the order run: 3.00x, 1.00x, 1.90x"),
            () -> ScaleStepPart.section(steps).notes().getFirst());
    }
}
