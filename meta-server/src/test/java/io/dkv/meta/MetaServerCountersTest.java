package io.dkv.meta;

import io.dkv.agent.CountersFile;
import io.dkv.agent.CountersStat;
import io.dkv.meta.command.MetaCommand;
import io.dkv.raas.Raas;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.driver.DriverCounter;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Given the host's counters directory, a MetaServer counts the RPCs it serves, by kind, in
 * {@code meta-server-<id>.counters} there beside its driver's counters, where {@code ./dkv meta --counters} reads
 * them while it runs; a clean stop leaves no file.
 */
class MetaServerCountersTest
{
    @TempDir
    Path dir;

    @Test
    void theRpcsAServerServesAreCountedByKindAndPrintedByItsCommand()
    {
        final long serverId = ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41);
        final Path counters = CountersFile.hostDirectory(new VerbsContext().shmDirectory());
        final Path file = CountersFile.fileOf(counters, MetaServer.errorFileName(serverId));
        try (MetaServer server = MetaServer.start(MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"),
            serverId, dir.resolve("data")).countersDirectory(counters)))
        {
            try (Raas node = MetaTestSupport.node("shm", serverId + 1, server.endpoint()))
            {
                node.malloc(node.self().id(), 4096, "counted-region");
            }
            final CountersStat stat = CountersStat.open(file);
            assertEquals(1, stat.value(MetaServerCounter.REQUESTS_REGISTER_NODE.label()));
            assertEquals(1, stat.value(MetaServerCounter.REQUESTS_PUBLISH_REGION.label()));
            assertEquals(1, stat.value(MetaServerCounter.REQUESTS_DEREGISTER_NODE.label()));
            assertTrue(stat.value(MetaServerCounter.FRAMES.label()) >= 3, stat.report("meta"));
            assertEquals(0, stat.value(MetaServerCounter.ERRORS.label()));
            assertEquals(0, stat.value(DriverCounter.ERRORS.label()), "the driver's counters in the same file");
            assertEquals(1, server.counter(MetaServerCounter.REQUESTS_REGISTER_NODE));

            final String printed = run("--counters", "--node-id", Long.toString(serverId));
            assertTrue(printed.startsWith("meta-server-" + serverId + " (pid "), printed);
            for (final MetaServerCounter counter : MetaServerCounter.values())
            {
                assertTrue(printed.contains(counter.label()), counter + " in\n" + printed);
            }
            assertTrue(printed.matches("(?s).*\\n +\\d+  Requests: REGISTER_NODE +1\\n.*"), printed);
        }
        assertFalse(Files.exists(file), "a clean stop leaves no counters file");
        final StringWriter err = new StringWriter();
        final CommandLine line = DkvCommandLine.of(new MetaCommand());
        line.setErr(new PrintWriter(err));
        assertEquals(1, line.execute("--counters", "--node-id", Long.toString(serverId)));
        assertTrue(err.toString().contains("no counters file " + file), err.toString());
    }

    /** @return what the command printed, as its command line runs it. */
    private static String run(final String... args)
    {
        final StringWriter out = new StringWriter();
        assertEquals(0, DkvCommandLine.of(new MetaCommand()).setOut(new PrintWriter(out)).execute(args));
        return out.toString();
    }
}
