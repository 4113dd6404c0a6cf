package io.dkv.load.check.nemesis;

import io.dkv.process.RoleProcess;
import io.dkv.raas.Membership;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A membership change whose driver gave up (its MetaServer did not answer in time on a stalled host, say) stays in its
 * phase, and would hold every later change off: the nemesis then does what the driver says an operator does, {@code
 * meta change --abort} in fill or switch (keys stay where they were), {@code --advance cleanup} once a phase gap has
 * passed in cleanup.
 */
final class UnfinishedChanges
{
    /** How long the membership is read again after a change failed, its MetaServer perhaps slow to answer. */
    private static final long READ_AGAIN_MS = 10_000;

    private final MemoryNodeKills members;
    private final MemoryTierChanges.Processes processes;
    private final Consumer<String> log;

    UnfinishedChanges(final MemoryNodeKills members, final MemoryTierChanges.Processes processes,
        final Consumer<String> log)
    {
        this.members = members;
        this.processes = processes;
        this.log = log;
    }

    /**
     * A change that failed may be left in its phase, its driver gone: end it as its driver says an operator does, so
     * that the tier can change again. Each step and its outcome go to the log; one that fails leaves the change as it
     * is, and later changes are skipped saying so.
     */
    void settle()
    {
        final Membership now = readSoon();
        if (now == null)
        {
            return;
        }
        final int phase = now.phase();
        if (phase == Membership.STEADY)
        {
            return;
        }
        if (phase == Membership.HANDOVER)
        {
            drive(now);
            return;
        }
        final List<String> action = phase == Membership.CLEANUP ? List.of("--advance", "cleanup") : List.of("--abort");
        log.accept("nemesis: the change was left in its " + Membership.phaseName(phase) + " phase in membership " +
            "epoch " + now.epoch() + ": meta change " + String.join(" ", action) + ", as its driver says to");
        boolean interrupted = false;
        try
        {
            if (phase == Membership.CLEANUP)
            {
                // as the driver would: every client acts in cleanup before the change ends
                final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(processes.phaseGapMs());
                while (System.nanoTime() < until)
                {
                    interrupted |= MemoryTierChanges.pause();
                }
            }
            final RoleProcess change = processes.startMetaChange(action);
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RoleProcess.START_TIMEOUT_MS);
            while (change.isAlive() && System.nanoTime() < deadline)
            {
                interrupted |= MemoryTierChanges.pause();
            }
            final int exit = change.stop(RoleProcess.EXIT_TIMEOUT_MS);
            final List<String> said = ProgressLines.read(change.log());
            log.accept("nemesis: meta change " + String.join(" ", action) + " exited with status " + exit + ": " +
                (said.isEmpty() ? "(no output)" : said.getFirst()));
        }
        catch (final RuntimeException ex)
        {
            log.accept("nemesis: meta change " + String.join(" ", action) + " did not run: " +
                String.valueOf(ex.getMessage()).lines().findFirst().orElse(""));
        }
        finally
        {
            MemoryTierChanges.restoreInterrupt(interrupted);
        }
    }

    /**
     * A change left in its handover can only complete, and only once its moving keys are sealed: a driver takes it over
     * ({@code memory-node --drive}), as its driver says to.
     */
    private void drive(final Membership now)
    {
        log.accept("nemesis: the change was left in its handover phase in membership epoch " + now.epoch() +
            ": memory-node --drive, as its driver says to");
        boolean interrupted = false;
        try
        {
            final RoleProcess drive = processes.startDrive();
            final long deadline =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MemoryTierChanges.CHANGE_TIMEOUT_MS);
            while (drive.isAlive() && System.nanoTime() < deadline)
            {
                interrupted |= MemoryTierChanges.pause();
            }
            final int exit = drive.stop(RoleProcess.EXIT_TIMEOUT_MS);
            final List<String> said = ProgressLines.read(drive.log());
            log.accept("nemesis: memory-node --drive exited with status " + exit + ": " +
                (said.isEmpty() ? "(no output)" : said.getLast()));
        }
        catch (final RuntimeException ex)
        {
            log.accept("nemesis: memory-node --drive did not run: " +
                String.valueOf(ex.getMessage()).lines().findFirst().orElse(""));
        }
        finally
        {
            MemoryTierChanges.restoreInterrupt(interrupted);
        }
    }

    /**
     * @return the membership, read again for a while when it cannot be read at once (the MetaServer that failed a
     * change may answer again in a moment); null, logged, when it cannot be read within {@link #READ_AGAIN_MS}.
     */
    Membership readSoon()
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_AGAIN_MS);
        boolean interrupted = false;
        try
        {
            while (true)
            {
                try
                {
                    return members.membership();
                }
                catch (final RuntimeException ex)
                {
                    if (System.nanoTime() > deadline)
                    {
                        log.accept("nemesis: the membership could not be read to see whether a change was left " +
                            "unfinished: " + ex);
                        return null;
                    }
                }
                interrupted |= MemoryTierChanges.pause();
            }
        }
        finally
        {
            MemoryTierChanges.restoreInterrupt(interrupted);
        }
    }
}
