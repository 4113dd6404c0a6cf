package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.CommandRun;
import io.dkv.load.resp.RespSocket;
import io.dkv.process.RoleProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv up} keeps its directory: a cluster whose every process was killed at once, started again on it, comes
 * back with every key it acknowledged under durability sync ({@code dkv put}'s, a compute node's appendfsync always),
 * its memory nodes loading their disks and settling each key on the copy of the one that served last; one stopped
 * cleanly keeps what its compute nodes acknowledged under everysec too. {@code --fresh} starts a new
 * cluster, also where its cluster file and secret lie in the directory it empties. Before, {@code up} emptied the
 * directory at each start and every key was gone.
 */
class UpRestartTest
{
    private static final long STOP_TIMEOUT_MS = 120_000;
    private static final int KEYS = 12;
    /** A role's row in up's table: its name and pid. */
    private static final Pattern ROLE_ROW = Pattern.compile(
        "^(?:MetaServer|memory node|driver|compute node)\\s+(\\d+)\\s", Pattern.MULTILINE);

    private final CommandRun dkv = new CommandRun(DkvMain::commandLine);

    /** One cluster through each way of stopping, so that the suite starts up four times, not five. */
    @Test
    void aClusterComesBackWithItsKeysAfterEveryProcessIsKilledOrItStopsCleanlyAndFreshStartsANewOne(
        @TempDir final Path dir) throws Exception
    {
        final Path clusterFile = dir.resolve("cluster.properties");
        final RoleProcess first = LocalClusterTest.up(dir, clusterFile, "--appendfsync", "always");
        try
        {
            assertTrue(first.logTail().contains("starting a new cluster in " + dir.resolve("run")), first::logTail);
            putKeys(clusterFile);
            // through the compute node, whose OK under appendfsync always says the key is on its nodes' disks
            setOverResp(clusterFile, "always-", "set");
            // a rack's power: every role at once, then up itself, nothing stopping cleanly
            final List<Long> roles = rolePids(Files.readString(dir.resolve("up.log")));
            assertEquals(5, roles.size(), first::logTail);
            final List<String> kill = new ArrayList<>(List.of("kill", "-9"));
            roles.forEach(pid -> kill.add(Long.toString(pid)));
            assertEquals(0, new ProcessBuilder(kill).inheritIO().start().waitFor());
        }
        finally
        {
            first.kill();
        }
        // gone, not only signalled: a role started again while its predecessor still exits finds its device in use
        for (final long pid : rolePids(Files.readString(dir.resolve("up.log"))))
        {
            ProcessHandle.of(pid).ifPresent(role -> role.onExit().join());
        }

        final RoleProcess afterKill = LocalClusterTest.up(dir, clusterFile);
        try
        {
            assertTrue(afterKill.logTail().contains(dir.resolve("run") + " holds the cluster that ran there before"),
                afterKill::logTail);
            assertKeys(clusterFile);
            assertOverResp(clusterFile, "always-", "set");
            // everysec, the default: what a clean stop must not lose, whatever was fsynced yet
            setOverResp(clusterFile, "everysec-", "before a clean stop");
            final String log = Files.readString(dir.resolve("run").resolve("memory-node-101.log"));
            final Matcher loaded = Pattern.compile(", (\\d+) loaded").matcher(log);
            // the keys put, and those the compute node keeps for itself
            assertTrue(loaded.find() && Integer.parseInt(loaded.group(1)) >= KEYS - 1,
                "its keys came back from its disk: " + log);
        }
        finally
        {
            assertEquals(0, afterKill.stop(STOP_TIMEOUT_MS), "dkv up stops cleanly on SIGTERM");
        }

        final RoleProcess afterStop = LocalClusterTest.up(dir, clusterFile);
        try
        {
            assertKeys(clusterFile);
            assertOverResp(clusterFile, "always-", "set");
            assertOverResp(clusterFile, "everysec-", "before a clean stop");
        }
        finally
        {
            assertEquals(0, afterStop.stop(STOP_TIMEOUT_MS));
        }

        // its cluster file (and so the secret made beside it) inside the directory --fresh empties
        final Path inside = dir.resolve("run").resolve("cluster.properties");
        final RoleProcess fresh = LocalClusterTest.up(dir, inside, "--fresh");
        try
        {
            assertTrue(fresh.logTail().contains("--fresh: emptied " + dir.resolve("run")), fresh::logTail);
            assertEquals(1, dkv.run("get", "--cluster=" + inside, "key-0"), "a new cluster: no key");
        }
        finally
        {
            assertEquals(0, fresh.stop(STOP_TIMEOUT_MS));
        }
    }

    private static void setOverResp(final Path clusterFile, final String prefix, final String value)
    {
        try (RespSocket socket = new RespSocket("127.0.0.1:" + ClusterFile.read(clusterFile).computePorts()[0],
            60_000))
        {
            for (int i = 0; i < KEYS; i++)
            {
                assertEquals(new RespSocket.Simple("OK"), socket.call(bytes("SET"), bytes(prefix + i), bytes(value)));
            }
        }
    }

    private static void assertOverResp(final Path clusterFile, final String prefix, final String value)
    {
        try (RespSocket socket = new RespSocket("127.0.0.1:" + ClusterFile.read(clusterFile).computePorts()[0],
            60_000))
        {
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(bytes(value), (byte[])socket.call(bytes("GET"), bytes(prefix + i)), prefix + i);
            }
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private void putKeys(final Path clusterFile)
    {
        for (int i = 0; i < KEYS; i++)
        {
            assertEquals(0, dkv.run("put", "--cluster=" + clusterFile, "key-" + i, "value-" + i), dkv::err);
        }
        assertEquals(0, dkv.run("del", "--cluster=" + clusterFile, "key-1"), dkv::err);
    }

    /** Every key as put, key-1 deleted: read once each memory node is live again (reads wait for that). */
    private void assertKeys(final Path clusterFile)
    {
        for (int i = 0; i < KEYS; i++)
        {
            final int status = dkv.run("get", "--cluster=" + clusterFile, "key-" + i);
            if (i == 1)
            {
                assertEquals(1, status, "deleted before the stop: " + dkv.out() + dkv.err());
                continue;
            }
            assertEquals(0, status, dkv::err);
            assertEquals("value-" + i, dkv.out().trim());
        }
    }

    private static List<Long> rolePids(final String upLog)
    {
        final List<Long> pids = new ArrayList<>();
        final Matcher row = ROLE_ROW.matcher(upLog);
        while (row.find() && pids.size() < 5)
        {
            pids.add(Long.parseLong(row.group(1)));
        }
        return pids;
    }
}
