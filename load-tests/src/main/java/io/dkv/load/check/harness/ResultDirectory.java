package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.timeline.Fault;
import io.dkv.checker.timeline.Judgement;
import io.dkv.checker.timeline.TimelineHtml;

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
 * Checks a recorded history and writes what a run leaves: {@code history.jsonl}, {@code verdict.txt},
 * {@code nemesis.log} and {@code timeline.html}.
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
        try
        {
            Files.createDirectories(directory);
            HistoryJson.write(history, directory.resolve(HISTORY));
            final CheckResult result = Checkers.check(workload, history, budget);
            Files.writeString(directory.resolve(VERDICT),
                result.verdict() + " (" + result.checker() + ")\n" + result.text() + "\n",
                StandardCharsets.UTF_8);
            Files.write(directory.resolve(NEMESIS), faultLines(faults, notes), StandardCharsets.UTF_8);
            final String timeline = TimelineHtml.render(title, history, judgement(result), timelineFaults(faults));
            Files.writeString(directory.resolve(TIMELINE), timeline, StandardCharsets.UTF_8);
            return result;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the results to " + directory + ": " + ex.getMessage(), ex);
        }
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
