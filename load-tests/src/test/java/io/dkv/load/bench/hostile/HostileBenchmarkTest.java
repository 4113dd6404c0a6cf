package io.dkv.load.bench.hostile;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hostile-peer suite's short run: a cluster on the tcp provider takes every kind of attack
 * while legitimate clients check every value, and each goal holds: no crash, no unauthorized access
 * that succeeded, no error or wrong value for the clients, and nothing the attack made the engines
 * or the process hold is still held once it stops.
 */
class HostileBenchmarkTest
{
    @Test
    @Timeout(300)
    void aShortAttackCrashesNothingBreachesNothingHarmsNoClientAndLeavesNothingBehind()
    {
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("hostile", "--frames", "30000", "--connections", "300", "--rpcs", "2000",
            "--connects", "500");

        final List<String> goals = bench.out().lines().filter(line -> line.startsWith("goal ")).toList();
        assertEquals(9, goals.size(), bench::out);
        for (final String goal : goals)
        {
            assertTrue(goal.endsWith(": MET"), () -> goal + "\n" + bench.out());
        }
        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
    }
}
