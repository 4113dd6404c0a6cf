package io.dkv.load.bench.ycsb;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A busy loop per core at idle priority ({@code SCHED_IDLE}, set by util-linux's {@code chrt}) for
 * the length of a benchmark, so that a core with nothing else to run spins instead of halting. On a
 * virtual machine a halted core takes tens of microseconds to wake (an exit to the hypervisor and
 * back): a store whose client and server sleep in the kernel between requests (Redis over loopback)
 * pays that on nearly every request, a store whose client threads spin on completions (dkv) never
 * does, and the comparison would then measure the hypervisor. A loop at idle priority runs only
 * when no other thread wants its core, so it takes no time from either store; being processes of
 * their own, the loops count in neither store's CPU time. Stopped when closed, or when the JVM exits.
 */
final class AwakeCores implements AutoCloseable
{
    static final String BINARY = "chrt";
    static final String INSTALL_HINT = "apt-get install util-linux";
    private static final long START_CHECK_MS = 50;

    private final List<Process> loops;
    private final Thread stopOnExit;

    private AwakeCores(final List<Process> loops)
    {
        this.loops = loops;
        this.stopOnExit = ChildProcesses.stopOnExit(() -> ChildProcesses.stop(loops), "awake-cores-stop");
    }

    /**
     * @param chrt  util-linux's chrt.
     * @param cores loops to start, one per core.
     * @throws IllegalStateException when a loop could not be started at idle priority, with chrt's words.
     */
    static AwakeCores start(final Path chrt, final int cores) throws IOException, InterruptedException
    {
        final List<Process> loops = new ArrayList<>(cores);
        for (int i = 0; i < cores; i++)
        {
            // ':' is a shell builtin: the loop never forks, it only spins
            loops.add(new ProcessBuilder(chrt.toString(), "--idle", "0", "sh", "-c", "while :; do :; done")
                .redirectErrorStream(true).start());
        }
        Thread.sleep(START_CHECK_MS);
        for (final Process loop : loops)
        {
            if (!loop.isAlive())
            {
                final String said = new String(loop.getInputStream().readAllBytes()).trim();
                loops.forEach(Process::destroyForcibly);
                throw new IllegalStateException(chrt + " --idle 0 sh exited with " + loop.exitValue() + ": " + said);
            }
        }
        return new AwakeCores(loops);
    }

    /** @return the loops' processes. */
    List<ProcessHandle> processes()
    {
        return loops.stream().map(Process::toHandle).toList();
    }

    public void close()
    {
        ChildProcesses.stop(loops);
        ChildProcesses.closed(stopOnExit);
    }
}
