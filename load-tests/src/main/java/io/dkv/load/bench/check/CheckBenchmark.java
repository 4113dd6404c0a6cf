package io.dkv.load.bench.check;

import io.dkv.checker.elle.ElleChecker;
import io.dkv.checker.elle.ElleResult;
import io.dkv.checker.elle.ListAppendHistoryGenerator;
import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.linear.LinearizabilityChecker;
import io.dkv.checker.linear.LinearizabilityResult;
import io.dkv.checker.linear.RegisterHistoryGenerator;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.LongFunction;

import static io.dkv.load.bench.Formats.count;
import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * {@code dkv bench check}: how long the linearizability checker and the list-append checker take
 * on valid generated histories (all of each must be searched, nothing cut short by a violation),
 * beside the time to read the same history from its JSON lines, measured in the same run.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {
        "Time the consistency checkers on generated valid histories: the linearizability checker on registers (read, " +
            "write, compare-and-set) and the list-append checker on transactions of appends and reads, each beside " +
            "reading the same history from JSON lines (the least any check of a recorded history costs).",
        "Goal: 100,000 operations over 1,000 keys checked in under 10 s."
    })
public final class CheckBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench check";
    static final String TIMES = "checkers: valid generated histories, median of the timed runs";
    private static final long GOAL_NANOS = 10_000_000_000L;

    @Spec
    private CommandSpec spec;

    @Option(names = "--operations", defaultValue = "100000",
        description = "Operations of each history (default: ${DEFAULT-VALUE}).")
    private int operations;

    @Option(names = "--keys", defaultValue = "1000", description = "Keys of each history (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--processes", defaultValue = "10",
        description = "Concurrent processes (default: ${DEFAULT-VALUE}).")
    private int processes;

    @Option(names = "--runs", defaultValue = "3",
        description = "Timed runs of each checker, after one untimed (default: ${DEFAULT-VALUE}).")
    private int runs;

    @Mixin
    private MarkdownOption markdown;

    public Integer call() throws Exception
    {
        if (operations < 1 || keys < 1 || processes < 1 || runs < 1)
        {
            throw new IllegalArgumentException("--operations " + operations + ", --keys " + keys + ", --processes " +
                processes +
                ", --runs " + runs + ": all must be positive");
        }
        final List<Row> rows = new ArrayList<>();
        rows.add(measure("linearizability (registers)",
            seed -> RegisterHistoryGenerator.generate(seed, operations, keys, processes),
            history ->
            {
                final LinearizabilityResult result = new LinearizabilityChecker(Duration.ofMinutes(5)).check(history);
                return result.verdict().name();
            }));
        rows.add(measure("list-append (Elle)",
            seed -> ListAppendHistoryGenerator.generate(seed, operations, keys, processes),
            history ->
            {
                final ElleResult result = new ElleChecker().check(history);
                return result.isValid() ? "VALID" : "INVALID " + result.anomalyNames();
            }));

        final TextTable table = new TextTable(List.of(
            new TextTable.Column("checker", false),
            new TextTable.Column("operations", true),
            new TextTable.Column("keys", true),
            new TextTable.Column("verdict", false),
            new TextTable.Column("check ms", true),
            new TextTable.Column("fastest ms", true),
            new TextTable.Column("ops/s checked", true),
            new TextTable.Column("read ms", true),
            new TextTable.Column("check / read", true)));
        final List<String> goals = new ArrayList<>();
        for (final Row row : rows)
        {
            table.addRow(row.name, count(row.operations), count(keys), row.verdict, millis(row.medianNanos),
                millis(row.fastestNanos),
                opsPerSecond(row.operations * 1e9 / row.medianNanos), millis(row.readNanos),
                ratio((double)row.medianNanos / row.readNanos));
            goals.add(String.format(Locale.ROOT,
                "%s: %,d operations over %,d keys checked in under 10 s: %s (measured %.2f s)",
                row.name, row.operations, keys,
                row.medianNanos < GOAL_NANOS && "VALID".equals(row.verdict) ? "MET" : "MISSED",
                row.medianNanos / 1e9));
        }
        final Runtime runtime = Runtime.getRuntime();
        final SectionedReport report = new SectionedReport(TITLE, MachineInfo.current(), List.of(
            String.format(Locale.ROOT,
                "histories: generated valid ones (a simulated store that takes each operation at a point inside its " +
                "interval), %,d operations over %,d keys by %d concurrent processes, some of unknown outcome; a new " +
                "seed for every run", operations, keys, processes),
            "linearizability: per-key decomposition, then a WGL search with memoisation on the checker's threads; " +
                "list-append: version orders from reads, dependency graph (ww, wr, rw, real time), cycle search",
            "read: the same history from JSON lines into memory (parsing and pairing), the floor under checking a " +
            "recorded one",
            String.format(Locale.ROOT, "runs: one untimed, then %d timed; JVM heap at most %,d MiB", runs,
                runtime.maxMemory() >> 20)),
            List.of(new ReportSection(TIMES,
                List.of("check / read: the checker's time over reading the history, lower is better"),
                table)), goals);
        markdown.publish(report, spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
    }

    private Row measure(final String name, final LongFunction<History> generator,
        final Function<History, String> checker)
        throws Exception
    {
        spec.commandLine().getErr()
            .printf("%s: generating and checking %d histories of %,d operations...%n", name, runs + 1, operations);
        checker.apply(generator.apply(1));
        final long[] nanos = new long[runs];
        String verdict = null;
        long readNanos = Long.MAX_VALUE;
        int size = 0;
        for (int run = 0; run < runs; run++)
        {
            final History generated = generator.apply(run + 2);
            final Path file = Files.createTempFile("dkv-bench-check", ".jsonl");
            try
            {
                HistoryJson.write(generated, file);
                final long readStart = System.nanoTime();
                final History history = HistoryJson.read(file);
                readNanos = Math.min(readNanos, System.nanoTime() - readStart);
                size = history.operations().size();
                final long start = System.nanoTime();
                final String outcome = checker.apply(history);
                nanos[run] = System.nanoTime() - start;
                verdict = verdict == null || verdict.equals(outcome) ? outcome : verdict + ", " + outcome;
            }
            finally
            {
                Files.deleteIfExists(file);
            }
        }
        Arrays.sort(nanos);
        return new Row(name, size, verdict, nanos[runs / 2], nanos[0], readNanos);
    }

    private static String millis(final long nanos)
    {
        return String.format(Locale.ROOT, "%,.0f", nanos / 1e6);
    }

    private record Row(String name, int operations, String verdict, long medianNanos, long fastestNanos, long readNanos)
    {
    }
}
