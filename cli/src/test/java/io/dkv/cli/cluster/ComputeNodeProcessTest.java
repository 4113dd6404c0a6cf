package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.compute.ComputeNodeCommand;
import io.dkv.load.CommandRun;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code dkv compute-node} as a process: registered with the MetaServer while it serves; on SIGTERM it closes its
 * connections, deregisters and exits 0; a port in use, a MetaServer that does not answer and a bad secret file each
 * fail it with one line that says which.
 */
class ComputeNodeProcessTest
{
    /** Long enough for any machine: what is checked is that it ends well, never how fast. */
    private static final long STOP_TIMEOUT_MS = 120_000;
    private static final long LISTED_TIMEOUT_MS = 120_000;

    private final CommandRun dkv = new CommandRun(DkvMain::commandLine);

    @TempDir
    Path dir;

    @Test
    void onSigtermItClosesItsConnectionsDeregistersAndExitsZero() throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        ClusterSecret.generate(secret);
        final long base = ThreadLocalRandom.current().nextLong(1_000, 1L << 40);
        final long computeId = base + 3;
        try (RoleProcess meta = RoleProcess.start("MetaServer", "256m", Map.of(),
                List.of("meta", "--cluster-secret-file", secret.toString(), "--node-id", Long.toString(base),
                    "--data-dir", dir.resolve("meta").toString()), ReadyLines.META, dir.resolve("meta.log"));
            RoleProcess memory = RoleProcess.start("memory node", "256m", Map.of(),
                List.of("memory-node", "--cluster-secret-file", secret.toString(), "--node-id", Long.toString(base + 1),
                    "--meta", meta.readyGroup(1), "--index-groups", "256", "--heap-chunks", "8"),
                ReadyLines.MEMORY_NODE, dir.resolve("memory.log"));
            Raas observer = RaasDriver.start(
                new RaasContext().verbs(new VerbsContext().provider("shm")).nodeId(base + 2),
                MetaDirectory.of(secret, MetaEndpoint.parse(meta.readyGroup(1)))))
        {
            final RoleProcess compute = RoleProcess.start("compute node", "256m", Map.of(),
                List.of("compute-node", "--cluster-secret-file", secret.toString(), "--node-id",
                    Long.toString(computeId),
                    "--meta", meta.readyGroup(1), "--port", "0"),
                ReadyLines.COMPUTE_NODE, dir.resolve("compute.log"));
            final int port = Integer.parseInt(compute.readyGroup(3));
            awaitListed(observer, computeId, compute);

            assertEquals(1,
                dkv.run("compute-node", "--cluster-secret-file", secret.toString(), "--meta", meta.readyGroup(1),
                "--port", Integer.toString(port)), "a second node on a port in use");
            assertOneLine(port + " (", "Address already in use");

            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port))
            {
                client.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
                final InputStream in = client.getInputStream();
                assertEquals("+PONG\r\n", new String(in.readNBytes(7), StandardCharsets.US_ASCII));

                assertEquals(0, compute.stop(STOP_TIMEOUT_MS), compute::logTail);
                assertEquals(-1, in.read(), "the node closed the connection it served as it drained");
            }
            assertFalse(listed(observer, computeId), "deregistered before it exited, not left for its lease to lapse");
            assertTrue(compute.logTail().contains("SIGTERM") && compute.logTail().contains("stopped and deregistered"),
                compute::logTail);
        }
    }

    @Test
    void aBadSecretFileOrAnAbsentMetaServerFailsItWithOneLine() throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        ClusterSecret.generate(secret);
        final String nobody = "meta:1@shm:0123456789abcdef#00002001:0123456789abcdef";

        assertEquals(1,
            dkv.run("compute-node", "--cluster-secret-file", dir.resolve("absent").toString(), "--meta", nobody));
        assertOneLine("absent does not exist", "./dkv up writes one");
        // what DkvMain.main runs for compute-node (its own main), without the other subcommands, fails alike
        assertEquals(1, dkv.run(ComputeNodeCommand.commandLine(), "--cluster-secret-file",
            dir.resolve("absent").toString(), "--meta", nobody));
        assertOneLine("absent does not exist", "./dkv up writes one");

        final Path notHex = dir.resolve("not-hex");
        Files.writeString(notHex, "not a secret");
        Files.setPosixFilePermissions(notHex, PosixFilePermissions.fromString("rw-------"));
        assertEquals(1, dkv.run("compute-node", "--cluster-secret-file", notHex.toString(), "--meta", nobody));
        assertOneLine("not-hex", "hex digits");

        assertEquals(1,
            dkv.run("compute-node", "--cluster-secret-file", secret.toString(), "--meta", nobody, "--port", "0"));
        assertOneLine("no MetaServer answered", nobody);
    }

    private void assertOneLine(final String... parts)
    {
        final String text = dkv.err().strip();
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.startsWith("dkv compute-node: "), text);
        for (final String part : parts)
        {
            assertTrue(text.contains(part), () -> "'" + part + "' missing from: " + text);
        }
    }

    private static boolean listed(final Raas observer, final long nodeId)
    {
        return observer.nodes(NodeRecord.ROLE_COMPUTE).stream().anyMatch(record -> record.id() == nodeId);
    }

    private static void awaitListed(final Raas observer, final long nodeId, final RoleProcess compute)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + LISTED_TIMEOUT_MS * 1_000_000L;
        while (!listed(observer, nodeId))
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("compute node " + nodeId + " not listed by the MetaServer:\n" + compute.logTail());
            }
            Thread.sleep(20);
        }
    }
}
