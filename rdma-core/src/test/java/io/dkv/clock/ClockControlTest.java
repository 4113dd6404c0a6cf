package io.dkv.clock;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A clock control file steps a process's wall clock and runs both its clocks fast or slow; healing brings the wall
 * clock back to true time while the monotonic clock keeps what it gained, never stepping back.
 */
class ClockControlTest
{
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aNewFileIsTrueTime(@TempDir final Path dir)
    {
        try (ClockControl control = ClockControl.create(dir.resolve("clock")))
        {
            assertEquals(0, control.skewNanos(System.nanoTime()));
            assertEquals(0, control.wallOffsetNanos());
            assertEquals(1.0, control.rate());
        }
    }

    @Test
    void aStepMovesTheWallClockAndNotTheMonotonicOne(@TempDir final Path dir)
    {
        try (ClockControl control = ClockControl.create(dir.resolve("clock"));
            ClockControl reader = ClockControl.open(dir.resolve("clock")))
        {
            control.stepWall(-5 * SECOND);
            assertEquals(-5 * SECOND, reader.wallOffsetNanos(), "another mapping sees the step");
            assertEquals(0, reader.skewNanos(System.nanoTime()));
            final EpochClock wall = Clocks.epochClock(reader);
            final long before = System.currentTimeMillis();
            final long skewed = wall.time();
            final long after = System.currentTimeMillis();
            assertTrue(skewed >= before - 5_000 && skewed <= after - 5_000, skewed + " not 5 s behind " + before);
        }
    }

    @Test
    void aRateRunsBothClocksFastOrSlowFromWhenItWasSetWithoutAStep(@TempDir final Path dir)
    {
        try (ClockControl control = ClockControl.create(dir.resolve("clock")))
        {
            final long set = System.nanoTime();
            control.rate(3.0);
            final long at = System.nanoTime();
            final long skew = control.skewNanos(at);
            assertTrue(skew >= 0 && skew <= 2 * (at - set), "no step when the rate is set: " + skew);
            assertEquals(skew + 2 * SECOND, control.skewNanos(at + SECOND), 1, "a true second is three");

            control.rate(0.5);
            final long slowAt = System.nanoTime();
            final long slowSkew = control.skewNanos(slowAt);
            assertEquals(slowSkew - SECOND / 2, control.skewNanos(slowAt + SECOND), 1, "a true second is half of one");
            assertThrows(IllegalArgumentException.class, () -> control.rate(0));
            assertThrows(IllegalArgumentException.class, () -> control.rate(-1));
        }
    }

    @Test
    void healingStepsTheWallClockBackAndLeavesTheMonotonicOneWhereItGot(@TempDir final Path dir)
    {
        try (ClockControl control = ClockControl.create(dir.resolve("clock")))
        {
            control.stepWall(7 * SECOND);
            control.rate(2.0);
            final NanoClock monotonic = Clocks.nanoClock(control);
            final long beforeHeal = monotonic.nanoTime();
            control.heal();
            final long afterHeal = monotonic.nanoTime();
            assertTrue(afterHeal >= beforeHeal, "the monotonic clock does not step back");
            assertEquals(1.0, control.rate());
            final long now = System.nanoTime();
            assertEquals(0, control.wallOffsetNanos() + control.skewNanos(now), "the wall clock is true again");
            assertEquals(control.skewNanos(now), control.skewNanos(now + SECOND), "at true rate");
        }
    }

    @Test
    void aProcessStartedWithTheFileTakesItsClocksFromIt(@TempDir final Path dir) throws Exception
    {
        try (ClockControl control = ClockControl.create(dir.resolve("clock")))
        {
            control.stepWall(-5 * SECOND);
            assertEquals("true -5000 0", readClocks(dir, "-D" + Clocks.CONTROL_PROP_NAME + "=" + control.path()));
        }
        assertEquals("false 0 0", readClocks(dir, "-Dno.clock.control=true"));
    }

    /** @return what {@link ClockReader} printed in a JVM of this one's class path, its milliseconds rounded to 1 s. */
    private static String readClocks(final Path dir, final String property) throws Exception
    {
        final Path errors = dir.resolve("reader.err");
        final List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow()));
        // Agrona's opens and exports, as this JVM was given them
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(flag -> flag.startsWith("--"))
            .forEach(command::add);
        command.addAll(List.of(property, "-cp", System.getProperty("java.class.path"), ClockReader.class.getName()));
        final Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        final String out = new String(process.getInputStream().readAllBytes()).trim();
        assertEquals(0, process.waitFor(), () -> out + "\n" + readString(errors));
        final String[] fields = out.split(" ");
        return fields[0] + " " + Math.round(Long.parseLong(fields[1]) / 1000.0) * 1000 + " " +
            Math.round(Long.parseLong(fields[2]) / 1000.0) * 1000;
    }

    private static String readString(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final java.io.IOException ex)
        {
            return ex.toString();
        }
    }

    @Test
    void aFileOfAnotherKindIsRefused(@TempDir final Path dir) throws Exception
    {
        final Path other = Files.write(dir.resolve("other"), new byte[64]);
        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> ClockControl.open(other));
        assertTrue(refused.getMessage().contains(other.toString()), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClockControl.open(dir.resolve("missing")));
    }
}
