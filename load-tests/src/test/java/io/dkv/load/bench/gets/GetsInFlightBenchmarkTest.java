package io.dkv.load.bench.gets;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv bench gets} end to end with tiny counts: a row for the synchronous GET and two for each
 * number in flight on every provider asked for, each a ratio to the synchronous GETs; bad options
 * are refused naming the value.
 */
class GetsInFlightBenchmarkTest
{
    private final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

    @Test
    @Timeout(120)
    void reportsTheSynchronousOperationAndEachNumberInFlightWaitedForBothWays()
    {
        final int exitCode = bench.run("gets", "--provider", "shm,tcp", "--in-flight", "1,4", "--keys", "200",
            "--gets", "300", "--rounds", "2");

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final Map<String, List<String[]>> tables =
            ReportTables.tables(bench.out(), List.of("GETs of one thread", "PUTs of one thread"));
        for (final String operation : List.of("get", "put"))
        {
            final List<String[]> rows = tables.get(operation.toUpperCase() + "s of one thread");
            final List<String> settings = rows.stream().map(row -> row[0] + " " + row[1] + " " + row[2]).toList();
            assertEquals(List.of(
                "shm 1 " + operation + " (synchronous)", "shm 1 " + operation + "Async, join",
                "shm 1 " + operation + "Async, poll", "shm 4 " + operation + "Async, join",
                "shm 4 " + operation + "Async, poll",
                "tcp 1 " + operation + " (synchronous)", "tcp 1 " + operation + "Async, join",
                "tcp 1 " + operation + "Async, poll", "tcp 4 " + operation + "Async, join",
                "tcp 4 " + operation + "Async, poll"), settings, bench::out);
            assertEquals("1.00x", rows.get(0)[5]);
            assertEquals("1.00x", rows.get(5)[5]);
        }
        assertTrue(bench.out().contains("shm: synchronous GET p50 "), bench::out);
        assertTrue(bench.out().contains("tcp: synchronous PUT p50 "), bench::out);
    }

    @Test
    void refusesAnOperationItDoesNotKnow()
    {
        final int exitCode = bench.run("gets", "--operations", "get,scan");

        assertTrue(exitCode != 0, bench::out);
        assertTrue(bench.err().contains("--operations scan: get or put"), bench::err);
    }

    @Test
    void refusesANumberInFlightOutOfRange()
    {
        final int exitCode = bench.run("gets", "--in-flight", "1,0");

        assertTrue(exitCode != 0, bench::out);
        assertTrue(bench.err().contains("--in-flight 0: 1 to 1024"), bench::err);
    }
}
