package io.dkv.load.meta;

import io.dkv.load.DkvMain;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.meta.MetaEndpoint;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv meta} turns its options into a MetaServer's settings and refuses those it cannot use.
 */
class MetaCommandTest
{
    private final StringWriter err = new StringWriter();

    private MetaServerContext parse(final String... args)
    {
        final CommandLine commandLine = DkvMain.commandLine().setErr(new PrintWriter(err));
        final CommandLine.ParseResult result = commandLine.parseArgs(args);
        final CommandLine meta = result.subcommand().commandSpec().commandLine();
        return ((MetaCommand)meta.getCommand()).context();
    }

    @Test
    void optionsBecomeTheServersSettings()
    {
        final String peer = "meta:2@tcp:127.0.0.1:7002#00002001:00000000000000ab";
        final MetaServerContext context = parse("meta", "--node-id", "7", "--provider", "tcp", "--address", "127.0.0.1:7001",
            "--data-dir", "/tmp/meta-seven", "--lease-ms", "3000", "--peer", peer);
        assertEquals(7, context.nodeId());
        assertEquals("tcp", context.raas().verbs().provider());
        assertEquals("127.0.0.1:7001", context.raas().verbs().tcpAddress());
        assertEquals(Path.of("/tmp/meta-seven"), context.dataDir());
        assertEquals(3000, context.leaseMs());
        assertEquals(MetaEndpoint.parse(peer), context.peer());
    }

    @Test
    void anShmDeviceIdIsGivenInHex()
    {
        final MetaServerContext context = parse("meta", "--address", "00000000000000ff");
        assertEquals(0xff, context.raas().verbs().shmDeviceId());
        assertEquals(Path.of("dkv-meta-1"), context.dataDir());
    }

    @Test
    void unusableOptionsAreUsageErrorsNamingTheOption()
    {
        assertEquals(2, DkvMain.commandLine().setErr(new PrintWriter(err)).execute("meta", "--provider", "verbs"));
        assertTrue(err.toString().contains("--provider"), err::toString);
        assertEquals(2, DkvMain.commandLine().setErr(new PrintWriter(err)).execute("meta", "--peer", "meta:nonsense"));
        assertTrue(err.toString().contains("--peer"), err::toString);
        assertEquals(2, DkvMain.commandLine().setErr(new PrintWriter(err)).execute("meta", "--node-slots", "1000"));
        assertTrue(err.toString().contains("nodeSlots"), err::toString);
    }
}
