package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Operation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The summary table of {@code dkv check --runs N}: a row per run, rewritten to its file after each run so that a soak
 * stopped part way leaves the rows so far; the exit code is the worst run's.
 */
final class RunSummaries
{
    static final String FILE = "summary.txt";
    /** The narrowest nemesis column: as wide as its heading. */
    private static final int NEMESIS_WIDTH = 7;

    private final Path file;
    private final List<Run> runs = new ArrayList<>();

    RunSummaries(final Path file)
    {
        this.file = file;
    }

    /** Add a run's row and write the table so far. */
    void add(final Run run)
    {
        runs.add(run);
        try
        {
            Files.createDirectories(file.getParent());
            Files.writeString(file, table() + "\n", StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the summary " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** @return the table: a header, a row per run, and a line of totals. */
    String table()
    {
        final String header = String.format(Locale.ROOT,
            "| %6s | %-" + nemesisWidth() + "s | %8s | %6s | %7s | %6s | %-13s | %-11s | %9s |",
            "seed", "nemesis", "ok", "fail", "unknown", "faults", "recovery", "verdict", "checker");
        final StringBuilder table = new StringBuilder().append(header).append('\n')
            .append(header.replaceAll("[^|]", "-")).append('\n');
        long ok = 0;
        long fail = 0;
        long unknown = 0;
        long faults = 0;
        int recovered = 0;
        int valid = 0;
        for (final Run run : runs)
        {
            table.append(line(run)).append('\n');
            ok += run.ok();
            fail += run.fail();
            unknown += run.unknown();
            faults += run.faults();
            recovered += run.recovered() ? 1 : 0;
            valid += "VALID".equals(run.verdict()) ? 1 : 0;
        }
        table.append(String.format(Locale.ROOT, "%d runs: %,d operations ok, %,d failed, %,d of unknown " +
            "outcome; %,d faults; %d recovered; %d valid, %d not", runs.size(), ok, fail, unknown, faults, recovered,
            valid, runs.size() - valid));
        for (final Run run : runs)
        {
            if (!run.note().isEmpty())
            {
                table.append("\nseed ").append(run.seed()).append(": ").append(run.note());
            }
        }
        return table.toString();
    }

    /** @return the row of one run. */
    String line(final Run run)
    {
        final int width = Math.max(nemesisWidth(), run.nemesis().length());
        return String.format(Locale.ROOT, "| %6d | %-" + width + "s | %,8d | %,6d | %,7d | %6d | %-13s | %-11s | " +
            "%7.1f s |", run.seed(), run.nemesis(), run.ok(), run.fail(), run.unknown(), run.faults(), run.recovery(),
            run.verdict(), run.checkerNanos() / 1e9);
    }

    /** @return the width of the nemesis column: its longest entry, or its heading. */
    private int nemesisWidth()
    {
        int width = NEMESIS_WIDTH;
        for (final Run run : runs)
        {
            width = Math.max(width, run.nemesis().length());
        }
        return width;
    }

    /** @return the worst run's exit code: a violation, then a run that did not recover, could not run, or unknown. */
    int exitCode()
    {
        int worst = Verdict.VALID.exitCode();
        for (final Run run : runs)
        {
            worst = rank(run.exitCode()) > rank(worst) ? run.exitCode() : worst;
        }
        return worst;
    }

    private static int rank(final int exitCode)
    {
        return List.of(Verdict.VALID.exitCode(), Verdict.UNKNOWN.exitCode(), 1, Verdict.UNRECOVERED.exitCode(),
            Verdict.INVALID.exitCode()).indexOf(exitCode);
    }

    /**
     * One run's row.
     *
     * @param recovery     "yes" and how long the final reads took, "NO", or "-" for a run that could not be made.
     * @param verdict      the verdict, or ERROR for a run that could not be made.
     * @param checkerNanos how long checking took.
     * @param note         why a run did not recover or could not be made, listed under the table; else empty.
     */
    record Run(long seed, String nemesis, long ok, long fail, long unknown, int faults, boolean recovered,
        String recovery, String verdict, int exitCode, long checkerNanos, String note)
    {
        static Run of(final long seed, final String nemesis, final History history, final int faults,
            final FinalReadsCheck.Recovery recovery, final Verdict verdict, final long checkerNanos)
        {
            long ok = 0;
            long fail = 0;
            long unknown = 0;
            for (final Operation operation : history.operations())
            {
                if (operation.isOk())
                {
                    ok++;
                }
                else if (operation.isFail())
                {
                    fail++;
                }
                else
                {
                    unknown++;
                }
            }
            final FinalReadsCheck.Phases phases = recovery.phases();
            final String recoveryText = recovery.recovered() ?
                String.format(Locale.ROOT, "yes %.1f s", (phases.end() - phases.healFrom()) / 1e9) : "NO";
            return new Run(seed, nemesis, ok, fail, unknown, faults, recovery.recovered(), recoveryText,
                verdict.name(), verdict.exitCode(), checkerNanos, recovery.recovered() ? "" : recovery.text());
        }

        /** @return the row of a run that could not be made (its cluster did not start, say). */
        static Run error(final long seed, final String nemesis, final Exception cause)
        {
            return new Run(seed, nemesis, 0, 0, 0, 0, false, "-", "ERROR", 1, 0, String.valueOf(cause));
        }
    }
}
