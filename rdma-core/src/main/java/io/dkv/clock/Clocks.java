package io.dkv.clock;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;

/**
 * The clocks a Context takes when it is given none: the system's, or, when the process was started with
 * {@value #CONTROL_PROP_NAME} naming a clock control file ({@link ClockControlDescriptor}), clocks that a test
 * harness shifts and skews while the process runs. Only tests set it: the file is a fault, never a configuration.
 */
public final class Clocks
{
    /** System property naming the clock control file of this process. */
    public static final String CONTROL_PROP_NAME = "dkv.clock.control";

    private static final Object LOCK = new Object();
    private static volatile ClockControl control;
    private static volatile EpochClock epochClock;
    private static volatile NanoClock nanoClock;

    private Clocks()
    {
    }

    /** @return the process's wall clock, in epoch milliseconds. */
    public static EpochClock epochClock()
    {
        EpochClock clock = epochClock;
        if (clock == null)
        {
            init();
            clock = epochClock;
        }
        return clock;
    }

    /** @return the process's monotonic clock. */
    public static NanoClock nanoClock()
    {
        NanoClock clock = nanoClock;
        if (clock == null)
        {
            init();
            clock = nanoClock;
        }
        return clock;
    }

    /** @return true when this process's clocks are under a harness's control. */
    public static boolean controlled()
    {
        epochClock();
        return control != null;
    }

    private static void init()
    {
        synchronized (LOCK)
        {
            if (epochClock != null)
            {
                return;
            }
            final String file = System.getProperty(CONTROL_PROP_NAME);
            if (file == null || file.isBlank())
            {
                nanoClock = SystemNanoClock.INSTANCE;
                epochClock = SystemEpochClock.INSTANCE;
                return;
            }
            final ClockControl opened = ClockControl.open(Path.of(file));
            control = opened;
            nanoClock = nanoClock(opened);
            epochClock = epochClock(opened);
        }
    }

    /** @return a monotonic clock that runs as {@code control} says. */
    public static NanoClock nanoClock(final ClockControl control)
    {
        return () ->
        {
            final long now = System.nanoTime();
            return now + control.skewNanos(now);
        };
    }

    /** @return a wall clock (epoch milliseconds) that runs as {@code control} says. */
    public static EpochClock epochClock(final ClockControl control)
    {
        return () -> System.currentTimeMillis() + control.wallSkewNanos(System.nanoTime()) / 1_000_000;
    }
}
