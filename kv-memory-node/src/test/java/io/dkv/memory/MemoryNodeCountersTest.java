package io.dkv.memory;

import io.dkv.agent.CountersFile;
import io.dkv.agent.CountersFileDescriptor;
import io.dkv.agent.CountersStat;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.memory.command.MemoryNodeCommand;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node counts the requests it serves, by kind, in its process's counters file beside its driver's counters,
 * where {@code ./dkv memory-node --counters} reads them while it runs.
 */
class MemoryNodeCountersTest
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @Test
    void theRequestsANodeServesAreCountedByKindAndPrintedByItsCommand()
    {
        final long nodeId = ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41);
        final Path directory = CountersFile.hostDirectory(new VerbsContext().shmDirectory());
        final Path path = CountersFile.fileOf(directory, MemoryNode.errorFileName(nodeId));
        final StaticDirectory cluster = new StaticDirectory();
        try (CountersFile file = CountersFile.create(path, CountersFileDescriptor.MAX_COUNTERS_DEFAULT,
            SystemEpochClock.INSTANCE);
            Raas raas = RaasDriver.start(KvCluster.context("shm", nodeId).countersManager(file.manager()), cluster);
            Raas client = RaasDriver.start(KvCluster.context("shm", nodeId + 1), cluster))
        {
            final MemoryNode node = MemoryNode.start(raas, new MemoryNodeContext().indexGroups(1024)
                .chunkBytes(1 << 20).heapChunks(8).countersManager(file.manager()));
            try
            {
                final Connection connection = client.connect(nodeId, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE,
                    null);
                for (int i = 0; i < 6; i++)
                {
                    assertEquals(MemoryNodeProtocol.OK, ask(connection, MemoryNodeProtocol.ALLOCATE, 4096, 32));
                }
                assertEquals(MemoryNodeProtocol.BAD_REQUEST, ask(connection, 99, 0, 32));
                assertEquals(MemoryNodeProtocol.BAD_REQUEST, ask(connection, MemoryNodeProtocol.ALLOCATE, 0, 16));

                final CountersStat stat = CountersStat.open(path);
                assertEquals(6, stat.value(MemoryNodeCounter.REQUESTS_ALLOCATE.label()));
                assertEquals(2, stat.value(MemoryNodeCounter.REQUESTS_MALFORMED.label()));
                assertEquals(1, stat.value(MemoryNodeCounter.CLIENTS_ACCEPTED.label()));
                assertEquals(0, stat.value(MemoryNodeCounter.ERRORS.label()));
                assertEquals(0, stat.value(DriverCounter.ERRORS.label()), "the driver's counters in the same file");
                assertTrue(stat.value(DriverCounter.REQUESTS_SEND_WITH_IMM.label()) +
                    stat.value(DriverCounter.REQUESTS_WRITE_WITH_IMM.label()) >= 8, "a reply to each: " +
                    stat.report("memory node"));
                assertEquals(6, node.counters().get(MemoryNodeCounter.REQUESTS_ALLOCATE).get());

                final String printed = counters("--counters", "--node-id", Long.toString(nodeId));
                assertTrue(printed.startsWith("memory-node-" + nodeId + " (pid "), printed);
                for (final MemoryNodeCounter counter : MemoryNodeCounter.values())
                {
                    assertTrue(printed.contains(counter.label()), counter + " in\n" + printed);
                }
                assertTrue(printed.matches("(?s).*\\n +\\d+  Requests: ALLOCATE +6\\n.*"), printed);
            }
            finally
            {
                node.close();
            }
        }
        final StringWriter err = new StringWriter();
        final CommandLine line = DkvCommandLine.of(new MemoryNodeCommand());
        line.setErr(new PrintWriter(err));
        assertEquals(1, line.execute("--counters", "--node-id", Long.toString(nodeId)));
        assertTrue(err.toString().contains("no counters file " + path), err.toString());
    }

    /** @return the status of the node's answer to one request. */
    private static int ask(final Connection connection, final int type, final int argument, final int length)
    {
        final MemorySegment request = MemorySegment.ofArray(new byte[MemoryNodeProtocol.REQUEST_LENGTH]);
        request.set(INT, MemoryNodeProtocol.TYPE_OFFSET, type);
        request.set(INT, MemoryNodeProtocol.ARGUMENT_OFFSET, argument);
        connection.send(request, 0, length, Flags.ADAPTIVE);
        final MemorySegment reply = MemorySegment.ofArray(new byte[MemoryNodeProtocol.REPLY_LENGTH]);
        assertEquals(MemoryNodeProtocol.REPLY_LENGTH,
            connection.recv(reply, 0, MemoryNodeProtocol.REPLY_LENGTH, Duration.ofSeconds(10)));
        return reply.get(INT, MemoryNodeProtocol.STATUS_OFFSET);
    }

    /** @return what the command printed, as its command line runs it. */
    private static String counters(final String... args)
    {
        final StringWriter out = new StringWriter();
        assertEquals(0, DkvCommandLine.of(new MemoryNodeCommand()).setOut(new PrintWriter(out)).execute(args));
        return out.toString();
    }
}
