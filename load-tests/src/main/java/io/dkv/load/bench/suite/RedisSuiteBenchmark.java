package io.dkv.load.bench.suite;

import io.dkv.compute.ComputeNode;
import io.dkv.compute.ComputeNodeContext;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Redis's own test suite against a compute node: its tcl harness in external mode ({@code runtest --host --port}),
 * file by file, with the tags that skip what needs DEBUG, replication, saving or maxmemory, and a table of what passed
 * and why the rest failed.
 */
@Command(name = "redis-suite", mixinStandardHelpOptions = true,
    description = {
        "Redis's own tcl tests against a compute node over an in-process store, in external mode, file by file: how " +
            "many pass, and the first line of why each other one fails.",
        "Needs a redis source tree of the version the node answers as (7.0), e.g. " +
            "git clone --depth 1 --branch 7.0.15 https://github.com/redis/redis, and tclsh (apt-get install tcl)."
    })
public final class RedisSuiteBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench redis-suite";
    /** Tags that leave out what a compute node does not have: DEBUG, replication, SAVE, maxmemory and the like. */
    static final List<String> SKIPPED_TAGS = List.of("needs:debug", "needs:repl", "needs:save",
        "needs:config-maxmemory", "needs:pfdebug", "needs:local-process", "needs:latency", "needs:reset");
    /** redis 7.0's external harness flushes functions before each file; dkv has none yet (FUNCTION is refused). */

    @Spec
    private CommandSpec spec;

    @Option(names = "--redis-source", required = true, paramLabel = "DIR",
        description = "A redis source tree: its runtest and tests/ are copied and run from a folder of their own.")
    private Path source;

    @Option(names = "--files", split = ",", paramLabel = "FILE", defaultValue = "unit/type/string,unit/type/incr," +
        "unit/expire,unit/keyspace,unit/scan,unit/info-command,unit/protocol,unit/quit,unit/multi,unit/type/hash," +
        "unit/type/set", description = "Test files, comma-separated (default: ${DEFAULT-VALUE}).")
    private List<String> files;

    @Option(names = "--timeout-seconds", defaultValue = "600",
        description = "Longest run of one file (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Option(names = "--tclsh", defaultValue = "tclsh", description = "The tcl shell (default: ${DEFAULT-VALUE}).")
    private String tclsh;

    @Option(names = "--skip-test", paramLabel = "PATTERN", description = "A test's name, or a regexp after '/', " +
        "that runtest leaves out (its --skiptest); repeatable. E.g. '/B(LPOP|RPOP|LMPOP|LMOVE|RPOPLPUSH|ZPOP|ZMPOP)' " +
        "for the blocking pops a compute node does not serve yet, so that what they leave behind on the " +
        "connection (a MULTI never ended) does not fail the tests after them.")
    private List<String> skipTests = new ArrayList<>();

    @Option(names = "--io-threads", defaultValue = "1", description = "Event loops of the compute node under " +
        "test (default: ${DEFAULT-VALUE}, as redis-server serves commands on one thread: redis's tests send commands " +
        "on several connections without waiting for answers and assume they run in the order they were sent).")
    private int ioThreads;

    @Mixin
    private MarkdownOption markdown;

    public Integer call() throws Exception
    {
        final PrintWriter err = spec.commandLine().getErr();
        if (!Files.isRegularFile(source.resolve("tests/test_helper.tcl")) ||
            !Files.isRegularFile(source.resolve("runtest")))
        {
            throw new IllegalArgumentException("--redis-source " + source + ": no redis source tree there (no " +
                "runtest and tests/test_helper.tcl); get one with git clone --depth 1 --branch 7.0.15 " +
                "https://github.com/redis/redis");
        }
        final Path work = Files.createTempDirectory("dkv-redis-suite-");
        copy(source, work);
        final List<Result> results = new ArrayList<>();
        try (InProcessStore store = InProcessStore.start(InProcessStore.sizedFor(200_000, 1L << 30, 2));
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).bindAddress("127.0.0.1")
                .ioThreads(ioThreads).client(store.client())))
        {
            for (final String file : files)
            {
                err.printf("redis-suite: %s against a compute node on port %d...%n", file, node.port());
                err.flush();
                final SuiteOutput output = run(work, file, node.port());
                results.add(new Result(file, output));
                err.printf("redis-suite: %s: %d passed, %d failed, %d left out by tag%s%n", file,
                    output.passed().size(), output.failed().size(), output.skipped(),
                    output.finished() ? "" : " (did not run to its end)");
                err.flush();
            }
        }
        finally
        {
            deleteTree(work);
        }
        markdown.publish(report(results), spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
    }

    private record Result(String file, SuiteOutput output)
    {
    }

    private SuiteOutput run(final Path work, final String file, final int port) throws IOException,
        InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(tclsh, "tests/test_helper.tcl", "--host", "127.0.0.1",
            "--port", Integer.toString(port), "--singledb", "--single", file, "--ignore-encoding", "--ignore-digest",
            "--durable", "--clients", "1"));
        for (final String tag : SKIPPED_TAGS)
        {
            command.add("--tags");
            command.add("-" + tag);
        }
        for (final String pattern : skipTests)
        {
            command.add("--skiptest");
            command.add(pattern);
        }
        final Path log = Files.createTempFile(work, "run-", ".log");
        final Process process = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        {
            process.destroyForcibly().waitFor();
        }
        return SuiteOutput.parse(Files.readString(log, StandardCharsets.ISO_8859_1));
    }

    private SectionedReport report(final List<Result> results)
    {
        final TextTable summary = new TextTable(List.of(new TextTable.Column("file", false),
            new TextTable.Column("passed", true), new TextTable.Column("failed", true),
            new TextTable.Column("left out by tag", true), new TextTable.Column("ran to its end", false)));
        final TextTable failures = new TextTable(List.of(new TextTable.Column("file", false),
            new TextTable.Column("test", false), new TextTable.Column("why", false)));
        int passed = 0;
        int failed = 0;
        for (final Result result : results)
        {
            final SuiteOutput output = result.output();
            passed += output.passed().size();
            failed += output.failed().size();
            summary.addRow(result.file(), Integer.toString(output.passed().size()),
                Integer.toString(output.failed().size()), Integer.toString(output.skipped()),
                output.finished() ? "yes" : "no");
            for (final String[] failure : output.failed())
            {
                failures.addRow(result.file(), failure[0], failure[1].replace('|', '/'));
            }
        }
        summary.addRow("all", Integer.toString(passed), Integer.toString(failed), "", "");
        final List<String> notes = new ArrayList<>(List.of(
            "a compute node with " + ioThreads + " event loop(s) over an in-process store (one memory node, shm); " +
                "redis's tcl harness in external mode, " +
                "one file at a time (--singledb --ignore-encoding --ignore-digest --durable), tags left out: " +
                String.join(", ", SKIPPED_TAGS),
            "nothing of redis's tests is changed"));
        if (!skipTests.isEmpty())
        {
            notes.add("tests left out by name (--skiptest, counted with those left out by tag): " +
                String.join(", ", skipTests));
        }
        final List<ReportSection> sections = new ArrayList<>();
        sections.add(new ReportSection("Redis's tests, file by file", List.of(), summary));
        sections.add(new ReportSection("Why each failed test failed", List.of(), failures));
        return new SectionedReport(TITLE, MachineInfo.current(), notes, sections, List.of());
    }

    /** Copy the harness and the tests, so that a run keeps its files apart. */
    private static void copy(final Path from, final Path to) throws IOException
    {
        Files.copy(from.resolve("runtest"), to.resolve("runtest"));
        try (Stream<Path> paths = Files.walk(from.resolve("tests")))
        {
            for (final Path path : (Iterable<Path>)paths::iterator)
            {
                final Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(path, target);
                }
            }
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList())
            {
                Files.deleteIfExists(path);
            }
        }
    }
}
