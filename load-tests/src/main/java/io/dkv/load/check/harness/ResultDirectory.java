package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.timeline.Fault;
import io.dkv.checker.timeline.Judgement;
import io.dkv.checker.timeline.Phase;
import io.dkv.checker.timeline.TimelineHtml;
import io.dkv.load.check.nemesis.NemesisEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Checks a recorded history and writes what a run leaves: {@code history.jsonl}, {@code verdict.txt} (with the
 * recovery phase's finding, where the run had one), {@code nemesis.log} and {@code timeline.html}.
 */
public final class ResultDirectory
{
    public static final String HISTORY = "history.jsonl";
    public static final String VERDICT = "verdict.txt";
    public static final String NEMESIS = "nemesis.log";
    public static final String TIMELINE = "timeline.html";

    private ResultDirectory()
    {
    }

    /**
     * @param workload which workload recorded it, which says the checker to use.
     * @param faults   what the nemesis did.
     * @param notes    lines of the nemesis as it ran (strikes, skipped kinds).
     */
    public static CheckResult checkAndWrite(
        final Path directory,
        final String title,
        final String workload,
        final History history,
        final List<NemesisEvent> faults,
        final List<String> notes,
        final Duration budget)
    {
        return checkAndWrite(directory, title, workload, history, faults, notes, budget, null);
    }

    /**
     * @param recovery what the run's recovery phase found, or null where it had none: a run that did not recover is
     *                 {@link Verdict#UNRECOVERED} unless the checker found a violation.
     */
    static CheckResult checkAndWrite(
        final Path directory,
        final String title,
        final String workload,
        final History history,
        final List<NemesisEvent> faults,
        final List<String> notes,
        final Duration budget,
        final FinalReadsCheck.Recovery recovery)
    {
        try
        {
            Files.createDirectories(directory);
            HistoryJson.write(history, directory.resolve(HISTORY));
            final CheckResult result = withRecovery(Checkers.check(workload, history, budget), recovery);
            Files.writeString(directory.resolve(VERDICT),
                result.verdict() + " (" + result.checker() + ")\n" + result.text() + "\n",
                StandardCharsets.UTF_8);
            Files.write(directory.resolve(NEMESIS), faultLines(faults, notes), StandardCharsets.UTF_8);
            final String timeline =
                TimelineHtml.render(title, history, judgement(result), timelineFaults(faults), phases(recovery));
            Files.writeString(directory.resolve(TIMELINE), timeline, StandardCharsets.UTF_8);
            return result;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the results to " + directory + ": " + ex.getMessage(), ex);
        }
    }

    private static CheckResult withRecovery(final CheckResult checked, final FinalReadsCheck.Recovery recovery)
    {
        if (recovery == null)
        {
            return checked;
        }
        final Verdict verdict = checked.verdict() == Verdict.INVALID || recovery.recovered() ? checked.verdict() :
            Verdict.UNRECOVERED;
        return new CheckResult(checked.checker(), verdict, checked.text() + "\n" + recovery.text(), checked.failing());
    }

    private static List<Phase> phases(final FinalReadsCheck.Recovery recovery)
    {
        if (recovery == null)
        {
            return List.of();
        }
        final FinalReadsCheck.Phases phases = recovery.phases();
        return List.of(
            new Phase("heal", phases.healFrom(), phases.readsFrom(), "every fault healed, every role waited for"),
            new Phase("final reads", phases.readsFrom(), phases.end(), recovery.text()));
    }

    /** @return the result in the timeline's terms: the checker library knows neither the harness nor its verdicts. */
    private static Judgement judgement(final CheckResult result)
    {
        return new Judgement(result.checker(), result.verdict().name(), result.text(), result.failing());
    }

    /** @return the nemesis's faults in the timeline's terms. */
    private static List<Fault> timelineFaults(final List<NemesisEvent> faults)
    {
        final List<Fault> timelineFaults = new ArrayList<>(faults.size());
        for (final NemesisEvent fault : faults)
        {
            timelineFaults.add(new Fault(fault.kind(), fault.target(), fault.start(), fault.end(), fault.detail()));
        }
        return timelineFaults;
    }

    private static List<String> faultLines(final List<NemesisEvent> faults, final List<String> notes)
    {
        final List<String> lines = new ArrayList<>(notes);
        lines.add("");
        for (final NemesisEvent fault : faults)
        {
            lines.add(String.format(Locale.ROOT, "%9.3f s .. %9.3f s  %-5s %s %s", fault.start() / 1e9,
                fault.end() / 1e9,
                fault.kind(), fault.target(), fault.detail()));
        }
        return lines;
    }
}
