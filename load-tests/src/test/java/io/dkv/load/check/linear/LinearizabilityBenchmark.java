package io.dkv.load.check.linear;

import io.dkv.load.check.history.History;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How long a check of a large generated history takes, and the heap it needs; run by hand:
 * {@code mvn -o -pl load-tests test -Dtest=LinearizabilityBenchmark -Ddkv.linearizability.benchmark=true}
 * (the figures go to the test's output file under target/surefire-reports).
 */
@EnabledIfSystemProperty(named = "dkv.linearizability.benchmark", matches = "true")
class LinearizabilityBenchmark
{
    private static final int OPERATIONS = 100_000;
    private static final int KEYS = 1_000;
    private static final int PROCESSES = 10;
    private static final int RUNS = 5;

    @Test
    void checkALargeGeneratedHistory()
    {
        final History history = RegisterHistoryGenerator.generate(1, OPERATIONS, KEYS, PROCESSES);
        final LinearizabilityChecker checker = new LinearizabilityChecker(Duration.ofSeconds(60));
        final Runtime runtime = Runtime.getRuntime();
        assertEquals(Verdict.VALID, checker.check(history).verdict(), "warm-up");
        for (int run = 0; run < RUNS; run++)
        {
            System.gc();
            final long heapBefore = runtime.totalMemory() - runtime.freeMemory();
            final LinearizabilityResult result = checker.check(history);
            final long heapAfter = runtime.totalMemory() - runtime.freeMemory();

            assertEquals(Verdict.VALID, result.verdict(), result::toText);
            System.out.printf("%,d operations over %,d keys by %d processes: %d ms, %,d configurations, " +
                "heap %d MiB with the history, %d MiB after the check (max heap %d MiB)%n",
                OPERATIONS, KEYS, PROCESSES, result.elapsed().toMillis(), result.configurations(),
                heapBefore >> 20, heapAfter >> 20, runtime.maxMemory() >> 20);
        }
    }
}
