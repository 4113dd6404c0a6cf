package io.dkv.clock;

/**
 * A process that prints how far its clocks are from the system's: "controlled wallMs monoMs", for
 * {@link ClockControlTest}'s process started with a clock control file.
 */
public final class ClockReader
{
    private ClockReader()
    {
    }

    public static void main(final String[] args)
    {
        final long wall = Clocks.epochClock().time() - System.currentTimeMillis();
        final long mono = (Clocks.nanoClock().nanoTime() - System.nanoTime()) / 1_000_000;
        System.out.println(Clocks.controlled() + " " + wall + " " + mono);
    }
}
