package io.dkv.compute.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time this process and its waited-for children spent in user and kernel mode, as redis's INFO cpu reports it
 * from getrusage: read from {@code /proc/self/stat} (clock ticks of 1/100 s, Linux's fixed USER_HZ). Where there is no
 * such file, the process's whole CPU time counts as user time.
 */
public final class ProcessTimes
{
    private static final Path STAT = Path.of("/proc/self/stat");
    private static final long TICK_MICROS = 10_000;
    /** Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 12th to 15th. */
    private static final int UTIME = 11;

    private final ProcessCpu cpu;

    /** @param cpu where the process's whole CPU time comes from when /proc cannot say. */
    public ProcessTimes(final ProcessCpu cpu)
    {
        this.cpu = cpu;
    }

    /**
     * @return microseconds of CPU time: user, system, children's user, children's system.
     */
    public long[] micros()
    {
        try
        {
            final String stat = new String(Files.readAllBytes(STAT), StandardCharsets.US_ASCII);
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            final long[] micros = new long[4];
            for (int i = 0; i < micros.length; i++)
            {
                micros[i] = Long.parseLong(fields[UTIME + i]) * TICK_MICROS;
            }
            return micros;
        }
        catch (final IOException | RuntimeException ex)
        {
            final double seconds = cpu.cpuSeconds();
            return new long[]{Double.isNaN(seconds) ? 0 : (long)(seconds * 1e6), 0, 0, 0};
        }
    }

    /** @return microseconds as redis prints a timeval: seconds, a point, six digits. */
    public static String timeval(final long micros)
    {
        return micros / 1_000_000 + "." + String.format("%06d", micros % 1_000_000);
    }
}
