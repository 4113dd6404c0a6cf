package io.dkv.load.check.nemesis;

import io.dkv.clock.ClockControl;
import io.dkv.load.check.harness.Role;

import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * One role's clocks shifted for a while, then set right: its wall clock stepped either way, or both its clocks run
 * fast or slow, through the control file its processes read their clocks from ({@link ClockControl}). A role started
 * without one (the autoscaler's compute nodes keep the system's clocks) is skipped, saying so.
 */
public final class ClockFault extends FaultKind
{
    static final String NAME = "clock";

    /** The largest step of a role's wall clock, either way, in milliseconds (the smallest is half a second). */
    public static final long STEP_MS = 10_000;
    /**
     * The fastest a role's clocks run, and the slowest, against true time. Nodes renew their leases three times per
     * lease, so a MetaServer's clock running 3x fast leaves a renewal no margin before the lease it measures ends:
     * that clocks drift less is an assumption the store makes, not a fault to look for.
     */
    public static final double FAST = 2.0;
    public static final double SLOW = 0.25;
    /** Clock faults hold longer than others: a rate needs time to put a clock seconds off. */
    public static final long HOLD_MS = 3_000;

    ClockFault()
    {
        super(NAME, Trait.MAY_OVERLAP, Trait.SKEWS_CLOCKS);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        // the autoscaler's compute nodes keep the system's clocks: its launcher sets no clock file
        final List<Role> roles = strike.roles();
        nemesis.holdRole(NAME, roles.get(strike.pick() % roles.size()), HOLD_MS + strike.holdMs() * 2, "",
            (role, holdMs, why) ->
            {
                final ClockControl clock = role.clock();
                if (clock == null)
                {
                    nemesis.log("nemesis: clock " + role + " skipped: it has no clock control");
                    return null;
                }
                final String skewed = why + (why.isEmpty() ? "" : "; ") + skew(nemesis.random(), clock);
                nemesis.log("nemesis: clock " + role + " (" + clock.path().getFileName() + "): " + skewed);
                nemesis.sleep(holdMs);
                final String detail = skewed + "; then " + clock.describe();
                clock.heal();
                return detail;
            });
    }

    /**
     * Step the wall clock (either way) or run both clocks fast or slow, drawn.
     *
     * @return what was done, for the log and the timeline.
     */
    private static String skew(final Random random, final ClockControl clock)
    {
        return switch (random.nextInt(3))
        {
            case 0 ->
            {
                final long stepMs = (500 + random.nextLong(STEP_MS - 500)) * (random.nextBoolean() ? 1 : -1);
                clock.stepWall(stepMs * 1_000_000L);
                yield String.format(Locale.ROOT, "wall clock stepped %+.1f s", stepMs / 1000.0);
            }
            case 1 ->
            {
                final double rate = 1.5 + random.nextDouble() * (FAST - 1.5);
                clock.rate(rate);
                yield String.format(Locale.ROOT, "clocks run fast, %.2fx", rate);
            }
            default ->
            {
                final double rate = SLOW + random.nextDouble() * (0.75 - SLOW);
                clock.rate(rate);
                yield String.format(Locale.ROOT, "clocks run slow, %.2fx", rate);
            }
        };
    }
}
