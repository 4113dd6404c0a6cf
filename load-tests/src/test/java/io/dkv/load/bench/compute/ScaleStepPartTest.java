package io.dkv.load.bench.compute;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The scale-out step's goals are judged on the ratio of the two p99s as a fraction, and on every failed request. */
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
        final List<String> goals = ScaleStepPart.goals(result(1_000_000, 1_500_000, 0));
        assertEquals("scale-out step p99 <= 2.0x the steady p99: MET (1.50x)", goals.get(0));
        assertEquals("no failed request through the step: MET (0 failed)", goals.get(1));
    }

    @Test
    void aStepP99JustOverTwiceOrAFailedRequestMissesIt()
    {
        final List<String> goals = ScaleStepPart.goals(result(1_605_000, 3_777_000, 2));
        assertEquals("scale-out step p99 <= 2.0x the steady p99: MISSED (2.35x)", goals.get(0));
        assertEquals("no failed request through the step: MISSED (2 failed)", goals.get(1));
    }
}
