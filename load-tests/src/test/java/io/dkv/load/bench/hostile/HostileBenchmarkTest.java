package io.dkv.load.bench.hostile;

import io.dkv.load.bench.BenchCommand;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
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
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int exit = DkvCommandLine.of(new BenchCommand())
            .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
            .execute("hostile", "--frames", "30000", "--connections", "300", "--rpcs", "2000", "--connects",
                "500");

        final List<String> goals = out.toString().lines().filter(line -> line.startsWith("goal ")).toList();
        assertEquals(9, goals.size(), out::toString);
        for (final String goal : goals)
        {
            assertTrue(goal.endsWith(": MET"), () -> goal + "\n" + out);
        }
        assertEquals(0, exit, () -> out + "\n" + err);
    }
}
