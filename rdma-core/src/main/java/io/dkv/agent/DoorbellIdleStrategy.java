package io.dkv.agent;

import org.agrona.concurrent.IdleStrategy;

import java.util.function.BooleanSupplier;

/**
 * An agent's idle strategy that spins, then sleeps on a {@link Doorbell} the agent's work is rung on, for a timeout
 * doubling from a minimum to a maximum (work nobody rings for, a peer's message, is seen by then). No yields: on a
 * small host a yield hands the core to whatever else runs, for a whole time slice, and the agent answers that late.
 */
public final class DoorbellIdleStrategy implements IdleStrategy
{
    private final Doorbell doorbell;
    private final BooleanSupplier workWaiting;
    private final int maxSpins;
    private final long minSleepNs;
    private final long maxSleepNs;
    private int spins;
    private long sleepNs;

    /**
     * @param doorbell    rung when work is given.
     * @param workWaiting whether work was given that the agent's next duty cycle takes (looked at after the agent
     *                    counted itself in, so that work rung for before then is not slept through).
     * @param maxSpins    idle turns spent spinning before the first sleep.
     * @param minSleepNs  the first sleep's timeout.
     * @param maxSleepNs  the longest timeout.
     */
    public DoorbellIdleStrategy(final Doorbell doorbell, final BooleanSupplier workWaiting, final int maxSpins,
        final long minSleepNs, final long maxSleepNs)
    {
        if (maxSpins < 0 || minSleepNs <= 0 || maxSleepNs < minSleepNs)
        {
            throw new IllegalArgumentException("doorbell idle strategy: spins " + maxSpins + ", sleeps " + minSleepNs +
                " to " + maxSleepNs + " ns (spins >= 0, 0 < minimum <= maximum)");
        }
        this.doorbell = doorbell;
        this.workWaiting = workWaiting;
        this.maxSpins = maxSpins;
        this.minSleepNs = minSleepNs;
        this.maxSleepNs = maxSleepNs;
        this.sleepNs = minSleepNs;
    }

    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
            return;
        }
        idle();
    }

    public void idle()
    {
        if (spins < maxSpins)
        {
            spins++;
            Thread.onSpinWait();
            return;
        }
        doorbell.sleepUnless(workWaiting, sleepNs);
        sleepNs = Math.min(maxSleepNs, sleepNs << 1);
    }

    public void reset()
    {
        spins = 0;
        sleepNs = minSleepNs;
    }

    public String alias()
    {
        return "doorbell";
    }
}
