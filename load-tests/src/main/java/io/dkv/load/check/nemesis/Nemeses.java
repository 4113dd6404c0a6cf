package io.dkv.load.check.nemesis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * The nemeses of a run, striking side by side ({@code --faults-at-once}) so that faults overlap: the first causes
 * every kind asked for, the others those that hold one role at a time ({@link FaultKind#mayOverlap()}), each with a
 * seed of its own. No role is struck by two faults together, and where keys have several copies no memory node while
 * another one is ({@link StruckRoles}).
 */
public final class Nemeses
{
    /** How far apart the seeds of a run's nemeses are. */
    private static final long SEED_STRIDE = 7919L;

    private final List<NemesisScheduler> schedulers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    private Nemeses()
    {
    }

    /**
     * Start the nemeses, each on a thread of its own.
     *
     * @param kinds   the faults asked for.
     * @param atOnce  how many nemeses strike side by side.
     * @param quietMs mean time between the end of a fault and the next, for each nemesis.
     * @param seed    the first nemesis's seed; the others' follow from it.
     * @throws IllegalArgumentException when a kind cannot be caused on these targets, saying why.
     */
    public static Nemeses start(final List<FaultKind> kinds, final int atOnce, final NemesisTargets targets,
        final long quietMs, final long seed, final Consumer<String> log)
    {
        final Nemeses nemeses = new Nemeses();
        final StruckRoles struck = new StruckRoles(targets.memoryKills().replicas() > 1);
        for (int i = 0; i < atOnce; i++)
        {
            final List<FaultKind> own = i == 0 ? kinds : FaultKinds.overlapping(kinds);
            final NemesisScheduler scheduler =
                new NemesisScheduler(own, targets, quietMs, seed + i * SEED_STRIDE, log).sharing(struck);
            nemeses.schedulers.add(scheduler);
            final Thread thread = new Thread(scheduler, "dkv-check-nemesis-" + i);
            nemeses.threads.add(thread);
            thread.start();
        }
        return nemeses;
    }

    /**
     * Stop striking and heal whatever is still down. Every nemesis ends its own fault before any heals what is left,
     * or two would restart one role.
     */
    public void stop()
    {
        schedulers.forEach(NemesisScheduler::halt);
        for (int i = 0; i < schedulers.size(); i++)
        {
            schedulers.get(i).join(threads.get(i));
        }
        schedulers.getFirst().heal();
    }

    /** @return the faults every nemesis caused, by when they struck. */
    public List<NemesisEvent> events()
    {
        final List<NemesisEvent> all = new ArrayList<>();
        schedulers.forEach(scheduler -> all.addAll(scheduler.events()));
        all.sort(Comparator.comparingLong(NemesisEvent::start));
        return all;
    }

    /**
     * After {@link #stop()}: wait until every role is back, as the final reads need it.
     *
     * @return null when all is back by the deadline, else what was not.
     */
    public String awaitEveryRoleBack(final long deadlineNanos)
    {
        return schedulers.getFirst().awaitEveryRoleBack(deadlineNanos);
    }
}
