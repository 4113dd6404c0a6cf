package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.resp.RespSocket;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code dkv up} notices a role of its cluster that dies: it says which, its pid and exit status, and the command that
 * starts it again for this cluster, a command that works as printed; with {@code --restart} it starts the role again
 * itself, and the role serves where it served. Each wait is for a line, with a timeout no machine reaches.
 */
class UpRoleDiesTest
{
    private static final long LINE_TIMEOUT_MS = 180_000;
    private static final long STOP_TIMEOUT_MS = 120_000;
    private static final Pattern COMPUTE_ROW = Pattern.compile(
        "(?m)^compute node\\s+(\\d+)\\s+node 201, RESP on 127\\.0\\.0\\.1:(\\d+)");

    /** {@code dkv up} in a process of its own, on any free port, stopped by the test. */
    private static RoleProcess up(final Path dir, final String... more)
    {
        final List<String> arguments = new ArrayList<>(List.of("up", "--dir", dir.resolve("run").toString(),
            "--cluster", dir.resolve("cluster.properties").toString(), "--index-groups", "1024", "--heap-chunks", "8",
            "--compute-port", "0"));
        arguments.addAll(List.of(more));
        return RoleProcess.start("dkv up", "256m", Map.of(), DkvMain.class.getName(), arguments,
            Pattern.compile("Ctrl-C stops the cluster"), dir.resolve("up.log"), List.of());
    }

    /** @return the text of {@code log} once it holds {@code text}; fails, with the log, after a generous timeout. */
    private static String awaitLine(final Path log, final String text) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINE_TIMEOUT_MS);
        while (true)
        {
            final String content = Files.readString(log);
            if (content.contains(text))
            {
                return content;
            }
            if (System.nanoTime() > deadline)
            {
                return fail("no '" + text + "' within " + LINE_TIMEOUT_MS + " ms in " + log + ":\n" + content);
            }
            Thread.sleep(100);
        }
    }

    private static Matcher computeRow(final RoleProcess up)
    {
        final Matcher row = COMPUTE_ROW.matcher(up.logTail());
        assertTrue(row.find(), up::logTail);
        return row;
    }

    private static void kill(final long pid)
    {
        assertTrue(ProcessHandle.of(pid).orElseThrow().destroyForcibly(), "SIGKILL to " + pid);
    }

    private static String ping(final int port) throws IOException
    {
        try (RespSocket socket = new RespSocket("127.0.0.1:" + port, 30_000))
        {
            return ((RespSocket.Simple)socket.call("PING".getBytes())).text();
        }
    }

    @Test
    void aComputeNodeKilledIsSaidWithTheCommandThatStartsItAgain(@TempDir final Path dir) throws Exception
    {
        final RoleProcess up = up(dir);
        RoleProcess again = null;
        try
        {
            final Matcher row = computeRow(up);
            final long pid = Long.parseLong(row.group(1));
            final int port = Integer.parseInt(row.group(2));
            kill(pid);
            // the last of the lines said of it
            final String log = awaitLine(dir.resolve("up.log"), "run ./dkv up with --restart");
            assertTrue(log.contains("dkv up: compute node 201 (pid " + pid + ") exited with status 137 (SIGKILL)"),
                log);
            final ClusterFile cluster = ClusterFile.read(dir.resolve("cluster.properties"));
            final List<String> words = List.of("compute-node", "--node-id", "201", "--port", Integer.toString(port),
                "--provider", "shm", "--meta", cluster.meta(), "--cluster-secret-file", cluster.secretFile(),
                "--metrics-port", "0");
            assertTrue(log.contains("\n  " + RoleWatch.command(words) + "\n"), log);

            // the command's words start a node that serves the cluster again on its port
            again = RoleProcess.start("compute node 201 again", "256m", Map.of(), words, ReadyLines.COMPUTE_NODE,
                dir.resolve("again.log"));
            assertEquals("PONG", ping(port));
        }
        finally
        {
            if (again != null)
            {
                again.close();
            }
            assertEquals(0, up.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly with a role gone");
        }
    }

    @Test
    void withRestartUpStartsAKilledComputeNodeAgainOnItsPort(@TempDir final Path dir) throws Exception
    {
        final RoleProcess up = up(dir, "--restart");
        try
        {
            final Matcher row = computeRow(up);
            final long pid = Long.parseLong(row.group(1));
            final int port = Integer.parseInt(row.group(2));
            kill(pid);
            final String log = awaitLine(dir.resolve("up.log"), "dkv up: compute node 201 serves again as pid ");
            assertTrue(log.contains("dkv up: compute node 201 (pid " + pid + ") exited with status 137 (SIGKILL)"),
                log);
            assertTrue(log.contains("dkv up: restarting compute node 201 (restart 1, log " +
                dir.resolve("run").toAbsolutePath().resolve("compute-node-201.restart-1.log") + ")"), log);
            assertEquals("PONG", ping(port), "it serves where the cluster file says");
        }
        finally
        {
            assertEquals(0, up.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly, the restarted role with it");
        }
        assertTrue(up.logTail().contains("stopped 5 processes"), up::logTail);
    }
}
