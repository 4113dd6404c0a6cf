package io.dkv.meta.command;

import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerConfiguration;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.Membership;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code dkv meta} turns its options into a MetaServer's settings and refuses those it cannot use,
 * a cluster secret file that is missing, too short or open to others included; {@code dkv meta members}
 * prints what a running server publishes of the membership.
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
    void aReplicaCountIsNamedOnlyWhenGiven()
    {
        final MetaServerContext named = parse("--cluster-secret-file", secret, "--replicas", "3");
        assertEquals(3, named.replicas());
        assertTrue(named.replicasNamed(), "a named count changes the one the store keeps");
        final MetaServerContext unnamed = parse("--cluster-secret-file", secret);
        assertEquals(MetaServerConfiguration.REPLICAS_DEFAULT, unnamed.replicas());
        assertFalse(unnamed.replicasNamed(), "none named: the store keeps its count");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "8", "-1"})
    void aReplicaCountOutsideOneToSevenIsAUsageError(final String replicas)
    {
        assertEquals(2, execute("--cluster-secret-file", secret, "--replicas", replicas));
        assertTrue(err.toString().contains("replicas") && err.toString().contains(replicas), err::toString);
    }

    @Test
    void membersPrintsTheMembershipARunningServerPublishes()
    {
        final MetaServerContext context = new MetaServerContext()
            .nodeId(100)
            .clusterSecretFile(Path.of(secret))
            .dataDir(dir.resolve("meta"))
            .nodeSlots(64)
            .regionSlots(64)
            .replicas(2);
        context.raas().verbs().provider("shm");
        try (MetaServer server = MetaServer.start(context))
        {
            final StringWriter out = new StringWriter();
            final int status = meta().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("members", "--meta", server.endpoint().toString(), "--cluster-secret-file", secret);
            assertEquals(0, status, err::toString);
            assertEquals("membership epoch " + server.membership().epoch() + ", replicas 2, 0 members",
                out.toString().strip());
        }
    }

    @Test
    void membersListsEachMembersIdStateAndIncarnation()
    {
        final String text = MetaMembersCommand.describe(new MembershipRecord(9, 2, List.of(
            new MemberRecord(101, Membership.LIVE, 5), new MemberRecord(102, Membership.JOINING, 17))));
        assertEquals(String.join(System.lineSeparator(),
            "membership epoch 9, replicas 2, 2 members",
            "node                 state    incarnation",
            "101                  live     5",
            "102                  joining  17"), text);
    }

    @Test
    void membersShowThePhaseAndEachMembersPlacementWhileAChangeRuns()
    {
        final String text = MetaMembersCommand.describe(new MembershipRecord(14, 2, List.of(
            new MemberRecord(101, Membership.LIVE, 5, Membership.PLACED_BEFORE),
            new MemberRecord(102, Membership.LIVE, 6, Membership.PLACED),
            new MemberRecord(104, Membership.LIVE, 17, Membership.PLACED_AFTER)), Membership.FILL));
        assertEquals(String.join(System.lineSeparator(),
            "membership epoch 14, replicas 2, 3 members, change in phase fill",
            "node                 state    incarnation          placement",
            "101                  live     5                    leaving the placement",
            "102                  live     6                    placed",
            "104                  live     17                   entering the placement"), text);
    }

    @Test
    void changeTakesExactlyOneOfAddDrainAdvanceAndAbort()
    {
        final CommandLine line = new CommandLine(new MetaChangeCommand());
        assertThrows(CommandLine.ParameterException.class, () -> line.parseArgs("--meta", "x",
            "--drain", "1", "--abort"));
        assertThrows(CommandLine.ParameterException.class, () -> line.parseArgs("--meta", "x"));
        final MetaChangeCommand change = new MetaChangeCommand();
        new CommandLine(change).parseArgs("--meta", "x", "--advance", "switch");
        assertEquals(Membership.SWITCH, change.phase(change.action.advance));
    }

    @Test
    void anShmDeviceIdIsGivenInHex()
    {
        final MetaServerContext context = parse("--cluster-secret-file", secret, "--address", "00000000000000ff");
        assertEquals(0xff, context.raas().verbs().shmDeviceId());
        assertEquals(Path.of("dkv-meta-1"), context.dataDir());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"--provider, rdma, --provider", "--peer, meta:nonsense, --peer", "--node-slots, 1000, nodeSlots"})
    void unusableOptionsAreUsageErrorsNamingTheOption(final String option, final String value, final String named)
    {
        assertEquals(2, execute("--cluster-secret-file", secret, option, value));
        assertTrue(err.toString().contains(named), err::toString);
    }

    @Test
    void theRnicProviderIsTakenAndRefusedWhereItCannotRunSayingWhy()
    {
        final String reason = Verbs.provider("verbs").unavailableReason(new VerbsContext());
        assumeTrue(reason != null, "an RNIC is usable here");

        // a data directory of the test's own: the server opens its store before its device
        assertEquals(1, execute("--cluster-secret-file", secret, "--provider", "verbs", "--data-dir",
            dir.resolve("data").toString()));
        assertTrue(err.toString().contains("verbs provider 'verbs' is not available: " + reason), err::toString);
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
        assertSecretFileRefused(secretFile("not-hex", "secret".repeat(20), "rw-------"),
            "does not hold hex digits only: character 1 of 120 is not one");
        assertTrue(!err.toString().contains("secretsecret"), "the file's content is never printed");
        assertSecretFileRefused(secretFile("odd-hex", "ab".repeat(32) + "c", "rw-------"),
            "holds an odd number of hex digits (65)");
        assertSecretFileRefused(secretFile("inner-space", "ab".repeat(16) + " " + "ab".repeat(16), "rw-------"),
            "does not hold hex digits only: character 33 of 65 is not one");
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
