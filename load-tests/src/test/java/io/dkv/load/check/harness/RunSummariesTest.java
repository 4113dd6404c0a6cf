package io.dkv.load.check.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The summary of {@code dkv check --runs N}: a row per run, on file after each run, the totals, why a run did not
 * recover or could not be made, and the worst run's exit code.
 */
class RunSummariesTest
{
    @TempDir
    Path dir;

    @Test
    void aRowPerRunOnFileAfterEachWithTotalsAndTheWorstExitCode() throws Exception
    {
        final Path file = dir.resolve("soak").resolve(RunSummaries.FILE);
        final RunSummaries summaries = new RunSummaries(file);

        summaries.add(run(1, Verdict.VALID, ""));
        assertTrue(Files.readString(file).contains("|      1 | kill,pause"), () -> read(file));
        assertEquals(0, summaries.exitCode());

        summaries.add(run(2, Verdict.UNRECOVERED, "NOT recovered: client 1 r3 (timed out)"));
        summaries.add(RunSummaries.Run.error(3, "kill,pause", new IllegalStateException("memory node did not start")));
        assertEquals(Verdict.UNRECOVERED.exitCode(), summaries.exitCode(), "a run that did not recover is worse " +
            "than one that could not be made");
        summaries.add(run(4, Verdict.INVALID, ""));
        assertEquals(Verdict.INVALID.exitCode(), summaries.exitCode(), "a violation is the worst");

        final String table = read(file);
        assertEquals(2 + 4 + 1 + 2, table.lines().count(), table);
        assertTrue(table.contains("4 runs: 3,000 operations ok, 30 failed, 6 of unknown outcome; 9 faults; " +
            "2 recovered; 1 valid, 3 not"), table);
        assertTrue(table.contains("seed 2: NOT recovered: client 1 r3 (timed out)"), table);
        assertTrue(table.contains("seed 3: java.lang.IllegalStateException: memory node did not start"), table);
        assertTrue(table.contains("| ERROR "), table);
    }

    private static RunSummaries.Run run(final long seed, final Verdict verdict, final String note)
    {
        final boolean recovered = note.isEmpty();
        return new RunSummaries.Run(seed, "kill,pause", 1_000, 10, 2, 3, recovered, recovered ? "yes 1.5 s" : "NO",
            verdict.name(), verdict.exitCode(), 2_500_000_000L, note);
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
