package io.dkv.load.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * The machine a benchmark ran on, so that figures are never read without it.
 *
 * @param cores    processors the JVM may use.
 * @param cpuModel the CPU model from {@code /proc/cpuinfo}, or "unknown" where it cannot be read.
 * @param jdk      the JDK's version and VM.
 * @param os       the operating system, its version and architecture.
 */
public record MachineInfo(int cores, String cpuModel, String jdk, String os)
{
    private static final Path CPU_INFO = Path.of("/proc/cpuinfo");
    private static final List<String> MODEL_KEYS = List.of("model name", "Model", "Hardware", "cpu model");

    /**
     * @return a description of the machine this JVM runs on.
     */
    public static MachineInfo current()
    {
        return new MachineInfo(
            Runtime.getRuntime().availableProcessors(),
            cpuModel(CPU_INFO),
            Runtime.version() + " (" + System.getProperty("java.vm.name") + ", " +
            System.getProperty("java.vm.vendor") + ")",
            System.getProperty("os.name") + " " + System.getProperty("os.version") + " " +
            System.getProperty("os.arch"));
    }

    /**
     * @return the system load average over the last minute, as a report notes it before and after a run (negative
     * where the system does not tell).
     */
    public static double loadAverage()
    {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /**
     * @return the machine as a report shows it, one line each for the processors, the JDK and the system.
     */
    public List<String> lines()
    {
        return List.of(
            "machine: " + cores + " cores, " + cpuModel,
            "jdk: " + jdk,
            "os: " + os);
    }

    static String cpuModel(final Path cpuInfo)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(cpuInfo);
        }
        catch (final NoSuchFileException | SecurityException ex)
        {
            return "unknown";
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + cpuInfo, ex);
        }
        // x86 names the model per processor; other architectures use other keys, some once per file
        for (final String key : MODEL_KEYS)
        {
            for (final String line : lines)
            {
                final int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals(key))
                {
                    return line.substring(colon + 1).trim();
                }
            }
        }
        return "unknown";
    }
}
