package io.dkv.load.bench.verbs;

import io.dkv.load.bench.Measurement;
import io.dkv.load.bench.Provider;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A goal is met up to and including its ratio, reported per size, and said to be unmeasured when
 * its provider or operation did not run.
 */
class GoalTest
{
    private static final Goal SHM_READ = new Goal(Provider.SHM, Operation.READ, 3.0, "floor");

    private static ResultRow row(
        final Provider provider, final Operation operation, final int size, final long p50, final long floorP50)
    {
        return new ResultRow(provider, operation, size, "floor",
            new Measurement(p50, p50 * 2, 1_000, 100), new Measurement(floorP50, floorP50 * 2, 2_000, 100));
    }

    @Test
    void isMetUpToItsRatioAndMissedAbove()
    {
        final List<String> lines = SHM_READ.evaluate(List.of(
            row(Provider.SHM, Operation.READ, 8, 300, 100),
            row(Provider.SHM, Operation.READ, 64, 301, 100),
            row(Provider.SHM, Operation.WRITE, 8, 1_000, 100),
            row(Provider.TCP, Operation.READ, 8, 1_000, 100)));

        assertEquals(List.of(
            "shm READ p50 <= 3x floor, 8 B: MET (measured 3.00x)",
            "shm READ p50 <= 3x floor, 64 B: MISSED (measured 3.01x)"), lines);
    }

    @Test
    void saysSoWhenNothingWasMeasured()
    {
        assertEquals(List.of("tcp READ p50 <= 1.5x ping-pong: NOT MEASURED (tcp READ was not selected)"),
            Goal.VERBS_GOALS.get(1).evaluate(List.of(row(Provider.SHM, Operation.READ, 8, 100, 100))));
    }
}
