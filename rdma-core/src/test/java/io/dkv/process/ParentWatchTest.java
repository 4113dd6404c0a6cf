package io.dkv.process;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A launcher JVM (as {@code ./dkv up} is) starts a role tied to it, and is then killed: by SIGTERM its shutdown hook
 * stops the role; by SIGKILL no hook runs, and the role stops because it watches its launcher ({@link ParentWatch}).
 * Before the watch, the role outlived a SIGKILLed launcher for ever. The bound is generous: JVMs start slowly on a
 * loaded machine of two cores.
 */
class ParentWatchTest
{
    private static final long EXIT_BOUND_S = 30;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @Timeout(180)
    void aRoleStopsWhenItsLauncherIsKilled(final boolean forcibly, @TempDir final Path dir) throws Exception
    {
        final List<String> command = new ArrayList<>(ChildJvm.java());
        command.addAll(List.of("-Xmx64m", "-cp", System.getProperty("java.class.path"), Launcher.class.getName(),
            dir.resolve("role.log").toString()));
        final Process launcher = new ProcessBuilder(command).redirectErrorStream(true).start();
        ProcessHandle role = null;
        try
        {
            final long rolePid = rolePid(launcher);
            role = ProcessHandle.of(rolePid).orElseThrow(() -> new AssertionError("no role of pid " + rolePid));
            if (forcibly)
            {
                launcher.destroyForcibly();
            }
            else
            {
                launcher.destroy();
            }
            assertTrue(launcher.waitFor(EXIT_BOUND_S, TimeUnit.SECONDS), "the launcher exited");
            try
            {
                role.onExit().get(EXIT_BOUND_S, TimeUnit.SECONDS);
            }
            catch (final TimeoutException ex)
            {
                fail("the role (pid " + rolePid + ") still runs " + EXIT_BOUND_S + " s after its launcher was " +
                    (forcibly ? "SIGKILLed" : "SIGTERMed"));
            }
        }
        finally
        {
            launcher.destroyForcibly();
            if (role != null)
            {
                role.destroyForcibly();
            }
        }
    }

    /** @return the pid the launcher prints once its role said it is ready. */
    private static long rolePid(final Process launcher) throws Exception
    {
        final BufferedReader lines =
            new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8));
        final StringBuilder seen = new StringBuilder();
        String line;
        while ((line = lines.readLine()) != null)
        {
            seen.append(line).append('\n');
            if (line.startsWith("role "))
            {
                return Long.parseLong(line.substring("role ".length()).trim());
            }
        }
        throw new AssertionError("the launcher ended before its role was ready:\n" + seen);
    }

    /** Starts a role tied to it, as {@code ./dkv up} does, prints its pid and waits. */
    public static final class Launcher
    {
        public static void main(final String[] args) throws Exception
        {
            final RoleProcess role = RoleProcess.start("sleeper", "64m", ParentWatch.thisJvm(),
                Sleeper.class.getName(), List.of(), Pattern.compile("sleeping"), Path.of(args[0]), List.of());
            System.out.println("role " + role.pid());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** A role that says it is ready and then does nothing until it is stopped. */
    public static final class Sleeper
    {
        public static void main(final String[] args) throws Exception
        {
            System.out.println("sleeping");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
