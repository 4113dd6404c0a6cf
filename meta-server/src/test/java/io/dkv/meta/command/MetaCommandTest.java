package io.dkv.meta.command;

import io.dkv.meta.MetaServerContext;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.ClusterSecret;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv meta} turns its options into a MetaServer's settings and refuses those it cannot use,
 * a cluster secret file that is missing, too short or open to others included.
 */
class MetaCommandTest
{
    private final StringWriter err = new StringWriter();

    @TempDir
    Path dir;

    private String secret;

    @BeforeEach
    void writeSecret()
    {
        final Path file = dir.resolve("cluster-secret");
        ClusterSecret.generate(file);
        secret = file.toString();
    }

    /** @return {@code dkv meta}'s command line, as its own main and {@code ./dkv meta} run it. */
    private static CommandLine meta()
    {
        return DkvCommandLine.of(new MetaCommand());
    }

    private int execute(final String... args)
    {
        err.getBuffer().setLength(0);
        return meta().setErr(new PrintWriter(err)).execute(args);
    }

    private MetaServerContext parse(final String... args)
    {
        final CommandLine commandLine = meta().setErr(new PrintWriter(err));
        commandLine.parseArgs(args);
        return ((MetaCommand)commandLine.getCommand()).context();
    }

    private Path secretFile(final String name, final String content, final String permissions) throws IOException
    {
        final Path file = dir.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    /** {@code dkv meta} does not start with this cluster secret file, and says why, naming the file. */
    private void assertSecretFileRefused(final Path file, final String why)
    {
        assertEquals(2, execute("--cluster-secret-file", file.toString()));
        assertTrue(err.toString().contains("cluster secret file " + file + " " + why), err::toString);
    }

    @Test
    void optionsBecomeTheServersSettings()
    {
        final String peer = "meta:2@tcp:127.0.0.1:7002#00002001:00000000000000ab";
        final MetaServerContext context = parse("--cluster-secret-file", secret, "--node-id", "7", "--provider", "tcp",
            "--address", "127.0.0.1:7001",
            "--data-dir", "/tmp/meta-seven", "--lease-ms", "3000", "--peer", peer);
        assertEquals(7, context.nodeId());
        assertEquals("tcp", context.raas().verbs().provider());
        assertEquals("127.0.0.1:7001", context.raas().verbs().tcpAddress());
        assertEquals(Path.of("/tmp/meta-seven"), context.dataDir());
        assertEquals(3000, context.leaseMs());
        assertEquals(MetaEndpoint.parse(peer), context.peer());
        assertEquals(ClusterSecret.MIN_BYTES, context.clusterSecret().length, "the secret is read from the file");
    }

    @Test
    void anShmDeviceIdIsGivenInHex()
    {
        final MetaServerContext context = parse("--cluster-secret-file", secret, "--address", "00000000000000ff");
        assertEquals(0xff, context.raas().verbs().shmDeviceId());
        assertEquals(Path.of("dkv-meta-1"), context.dataDir());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"--provider, verbs, --provider", "--peer, meta:nonsense, --peer", "--node-slots, 1000, nodeSlots"})
    void unusableOptionsAreUsageErrorsNamingTheOption(final String option, final String value, final String named)
    {
        assertEquals(2, execute("--cluster-secret-file", secret, option, value));
        assertTrue(err.toString().contains(named), err::toString);
    }

    @Test
    void aMissingShortOrOpenClusterSecretFileIsRefusedNamingThePath() throws Exception
    {
        assertEquals(2, execute());
        assertTrue(err.toString().contains("--cluster-secret-file is required"), err::toString);

        assertSecretFileRefused(dir.resolve("no-such-secret"), "does not exist");

        final Path open = secretFile("open-secret", "ab".repeat(32), "rw-r--r--");
        assertSecretFileRefused(open, "is open to group or others");
        assertTrue(err.toString().contains("chmod 600 " + open), err::toString);

        assertSecretFileRefused(secretFile("short-secret", "ab".repeat(31), "rw-------"), "holds 31 bytes");
        assertSecretFileRefused(secretFile("not-hex", "secret".repeat(20), "rw-------"), "does not hold hex digits");
        assertTrue(!err.toString().contains("secretsecret"), "the file's content is never printed");
    }

    @Test
    void errorsNeedNoClusterSecretAndSayWhenTheServerLeftNone()
    {
        final long nodeId = 1_000_000 + ProcessHandle.current().pid();
        assertEquals(1, execute("--errors", "--node-id", Long.toString(nodeId)));
        assertTrue(err.toString().startsWith("dkv meta: no error file "), err.toString());
        assertTrue(err.toString().contains("meta-server-" + nodeId + ".errors: no such agent runs on this host, nor " +
            "left errors"), err.toString());
    }
}
