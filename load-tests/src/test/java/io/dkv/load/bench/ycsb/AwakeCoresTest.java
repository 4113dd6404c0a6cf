package io.dkv.load.bench.ycsb;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The busy loops that keep cores from halting run at idle priority, so that they never take a core
 * from a thread that wants it, and are gone once closed.
 */
class AwakeCoresTest
{
    /** SCHED_IDLE, as the kernel numbers scheduling policies. */
    private static final int SCHED_IDLE = 5;

    @Test
    void loopsRunAtIdlePriorityUntilClosed() throws Exception
    {
        final Optional<Path> chrt = Executables.find(AwakeCores.BINARY);
        if (chrt.isEmpty())
        {
            System.out.println("AwakeCoresTest skipped: " + AwakeCores.BINARY + " is not installed (" +
                AwakeCores.INSTALL_HINT + ")");
        }
        assumeTrue(chrt.isPresent(), AwakeCores.BINARY + " is not installed");

        final List<ProcessHandle> loops;
        try (AwakeCores awake = AwakeCores.start(chrt.get(), 2))
        {
            loops = awake.processes();
            assertEquals(2, loops.size());
            for (final ProcessHandle loop : loops)
            {
                assertTrue(loop.isAlive(), "loop " + loop.pid() + " runs");
                assertEquals(SCHED_IDLE, policy(loop.pid()), "loop " + loop.pid() + " runs at idle priority");
            }
        }
        for (final ProcessHandle loop : loops)
        {
            assertFalse(loop.isAlive(), "loop " + loop.pid() + " stopped with close");
        }
    }

    /** @return the process's scheduling policy: field 41 of /proc/PID/stat. */
    private static int policy(final long pid) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(fields[41 - 3]);
    }
}
