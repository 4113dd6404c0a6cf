package io.dkv.raas;

import io.dkv.agent.CountersFile;
import io.dkv.agent.CountersStat;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.command.DriverCommand;
import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.ChildProcess;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver counts what it does in counters another process reads: requests by opcode, credit waits, the clients a
 * standalone driver attached; {@code ./dkv driver --counters} prints them from the driver's counters file.
 */
class DriverCountersTest
{
    @TempDir
    Path directory;

    @Test
    void anEmbeddedDriverCountsEachRequestByItsOpcodeInTheFileItWasGiven()
    {
        final Path path = CountersFile.fileOf(directory, "driver-1");
        try (CountersFile file = CountersFile.create(path, 64, SystemEpochClock.INSTANCE);
            RaasPair pair = new RaasPair("shm", context -> context.nodeId() == 1 ?
                context.countersManager(file.manager()).connectionCredits(1) : context))
        {
            final RemoteRegion region = pair.publishedByB("counted", 4096);
            final Connection connection = pair.a.open(2, null);
            final MemorySegment local = MemorySegment.ofArray(new byte[64]);
            for (int i = 0; i < 25; i++)
            {
                connection.read(region, 0, local, 0, 64);
            }
            for (int i = 0; i < 10; i++)
            {
                connection.write(region, 64, local, 0, 64);
            }
            for (int i = 0; i < 3; i++)
            {
                connection.cas(region, 128, i, i + 1);
            }
            for (int i = 0; i < 4; i++)
            {
                connection.faa(region, 136, 1);
            }
            final AtomicInteger completed = new AtomicInteger();
            final Connection async = pair.a.open(2, (token, status, value) -> completed.incrementAndGet());
            try (Arena arena = Arena.ofShared())
            {
                final MemorySegment shared = arena.allocate(64);
                for (int i = 0; i < 40; i++)
                {
                    async.readAsync(region, 0, shared, 0, 64, i);
                }
                async.flush();
                while (completed.get() < 40)
                {
                    Thread.onSpinWait();
                }
            }

            final CountersStat stat = CountersStat.open(path);
            assertEquals(65, stat.value("Requests: READ"), "25 on the caller's lane, 40 through the pipeline");
            assertEquals(10, stat.value("Requests: WRITE"));
            assertEquals(3, stat.value("Requests: CAS"));
            assertEquals(4, stat.value("Requests: FAA"));
            assertEquals(0, stat.value("Requests failed"));
            assertTrue(stat.value("Connection credit waits") > 0, "40 requests on one credit: " +
                stat.report("driver"));
            final RaasDriver driver = (RaasDriver)pair.a;
            assertEquals(65, driver.counters().value(DriverCounter.REQUESTS_READ), "the same counters, read here");
            assertEquals(0, ((RaasDriver)pair.b).counters().value(DriverCounter.REQUESTS_READ),
                "the target only answers");
        }
    }

    @Test
    void driverCountersPrintsTheCountersOfADriverRunningInAnotherProcess() throws Exception
    {
        final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
        final Path driverDirectory = CncDescriptor.driverDirectory(new RaasContext().cncDirectory(), name);
        try (ChildProcess driverProcess = ChildProcess.start("driver", List.of(), RaasChild.class))
        {
            driverProcess.call("driver shm " + name + " 9");
            try (Raas attached = AttachedRaas.attach(new RaasContext().driverName(name).requestSlots(1024)
                .clientDataBytes(1 << 20).timeoutMs(10_000)))
            {
                final RemoteRegion region = attached.lookup("shared");
                final Connection connection = attached.open(9, null);
                final MemorySegment buffer = attached.allocateBuffer(64);
                for (int i = 0; i < 12; i++)
                {
                    connection.read(region, 0, buffer, 0, 8);
                }
                for (int i = 0; i < 5; i++)
                {
                    connection.faa(region, 8, 1);
                }
            }

            final CountersStat stat = CountersStat.open(driverDirectory.resolve(CncDescriptor.COUNTERS_FILE));
            assertEquals(12, stat.value(DriverCounter.REQUESTS_READ.label()));
            assertEquals(5, stat.value(DriverCounter.REQUESTS_FAA.label()));
            assertEquals(1, stat.value(DriverCounter.CLIENTS_ATTACHED.label()));
            assertEquals(0, stat.value(DriverCounter.ERRORS.label()));

            final String printed = run("--counters", "--name", name);
            assertTrue(printed.startsWith("driver '" + name + "' (pid "), printed);
            assertTrue(printed.contains(", running, "), printed);
            for (final DriverCounter counter : DriverCounter.values())
            {
                assertTrue(printed.contains(counter.label()), counter + " in\n" + printed);
            }
            assertTrue(printed.matches("(?s).*\\n +12  Requests: READ +12\\n.*"), printed);
            assertTrue(printed.matches("(?s).*\\n +13  Requests: CAS +0\\n.*"), printed);
            assertTrue(printed.matches("(?s).*\\n +14  Requests: FAA +5\\n.*"), printed);
        }
        finally
        {
            // a driver killed by the test's end leaves its files for the next of its name: this test has no next one
            if (Files.isDirectory(driverDirectory))
            {
                try (var files = Files.list(driverDirectory))
                {
                    for (final Path file : files.toList())
                    {
                        Files.deleteIfExists(file);
                    }
                }
                Files.deleteIfExists(driverDirectory);
            }
        }
    }

    @Test
    void driverCountersNamesTheDriverThatDoesNotRun()
    {
        final StringWriter err = new StringWriter();
        final CommandLine line = DkvCommandLine.of(new DriverCommand());
        line.setErr(new PrintWriter(err));
        assertEquals(1, line.execute("--counters", "--name", "no-such-driver"));
        assertTrue(err.toString().contains("no driver named 'no-such-driver' runs on this host (no "), err.toString());
        assertTrue(err.toString().contains("no-such-driver/" + CncDescriptor.COUNTERS_FILE), err.toString());
    }

    /** @return what the command printed, as its command line runs it. */
    private static String run(final String... args)
    {
        final StringWriter out = new StringWriter();
        assertEquals(0, DkvCommandLine.of(new DriverCommand()).setOut(new PrintWriter(out)).execute(args));
        return out.toString();
    }
}
