package io.dkv.load.check.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What it takes to make test hosts for the tcp provider on one machine: network namespaces,
 * beside {@link TestHosts}, which makes them for {@code dkv check}; the tcp provider's own cross-host test uses it too,
 * created with iproute2's {@code ip}, which needs Linux and root. Tests and {@code dkv check}
 * ask {@link #unavailableReason()} first and say it when they go on without.
 */
public final class NetworkNamespaces
{
    private static final long COMMAND_TIMEOUT_SECONDS = 10;

    private NetworkNamespaces()
    {
    }

    /** What a command did: its exit code (-1 when it could not run or timed out) and its output. */
    public record CommandResult(int exitCode, String output)
    {
    }

    /**
     * @return why namespaces cannot be made here, or null when they can be tried.
     */
    public static String unavailableReason()
    {
        final String os = System.getProperty("os.name");
        if (!os.startsWith("Linux"))
        {
            return "network namespaces need Linux, this is " + os;
        }
        if (ipBinary() == null)
        {
            return "no ip binary (iproute2) in /usr/sbin, /sbin, /usr/bin, /bin or PATH: apt-get install iproute2";
        }
        try
        {
            final int uid = (Integer)Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            if (uid != 0)
            {
                return "creating network namespaces needs root, this process runs as uid " + uid;
            }
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return "cannot tell whether this process runs as root: " + ex;
        }
        return null;
    }

    /** @return the path of iproute2's {@code ip}, or null. */
    public static String ipBinary()
    {
        final List<Path> candidates = new ArrayList<>(
            List.of(Path.of("/usr/sbin/ip"), Path.of("/sbin/ip"), Path.of("/usr/bin/ip"), Path.of("/bin/ip")));
        final String path = System.getenv("PATH");
        if (path != null)
        {
            for (final String dir : path.split(":"))
            {
                if (!dir.isEmpty())
                {
                    candidates.add(Path.of(dir, "ip"));
                }
            }
        }
        for (final Path candidate : candidates)
        {
            if (Files.isExecutable(candidate))
            {
                return candidate.toString();
            }
        }
        return null;
    }

    /**
     * A process killed outright cannot delete its namespaces; the next run does, going by the pid
     * in their names (group 1 of {@code ownName}), and leaves those of runs still alive alone.
     */
    public static void removeThoseOfDeadRuns(final String ip, final Pattern ownName)
    {
        final CommandResult list = run(ip, "netns", "list");
        if (list.exitCode() != 0)
        {
            return;
        }
        for (final String line : list.output().split("\n"))
        {
            final Matcher matcher = ownName.matcher(line.strip().split(" ")[0]);
            if (matcher.matches() && ProcessHandle.of(Long.parseLong(matcher.group(1))).isEmpty())
            {
                run(ip, "netns", "del", matcher.group());
            }
        }
    }

    /** Run a short command (its output must fit a pipe) and wait for it, at most 10 s. */
    public static CommandResult run(final String... command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            // short commands whose output fits the pipe, so waiting before reading cannot deadlock
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                return new CommandResult(-1,
                    String.join(" ", command) + " did not finish within " + COMMAND_TIMEOUT_SECONDS + " s");
            }
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new CommandResult(process.exitValue(), output);
        }
        catch (final IOException ex)
        {
            return new CommandResult(-1, ex.toString());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return new CommandResult(-1, "interrupted");
        }
    }
}
