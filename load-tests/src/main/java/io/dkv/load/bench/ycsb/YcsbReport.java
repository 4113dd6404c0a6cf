package io.dkv.load.bench.ycsb;

import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.dkv.load.bench.Formats.count;
import static io.dkv.load.bench.Formats.micros;
import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * Builds the report of {@code dkv bench ycsb}: throughput and latency of every phase on dkv beside
 * Redis, the GET's memory floor and the goals, in the frame of a {@link SectionedReport}.
 */
final class YcsbReport
{
    static final String TITLE = "dkv bench ycsb";
    static final String THROUGHPUT = "throughput: YCSB operations per second, dkv beside Redis";
    static final String LATENCY = "latency: every call into the store, us";
    static final String CPU = "cpu: what an operation costs in CPU time, us";
    static final String FLOOR = "floor: a dkv GET against its three memory accesses alone, us";
    static final String NOT_RUN = "-";

    private YcsbReport()
    {
    }

    /**
     * @param passes one per replica count, the baseline (fewest copies) first: its runs are the ones
     *               beside Redis and the floor; with more than one, a section and goals compare them.
     */
    static SectionedReport of(final MachineInfo machine, final List<String> method, final List<ReplicaPass> passes,
        final GetFloors floor, final boolean redis)
    {
        final List<SideBySide> runs = passes.getFirst().runs();
        final List<ReportSection> sections = new ArrayList<>();
        sections.add(throughput(runs));
        sections.add(latency(runs));
        sections.add(cpu(runs));
        sections.add(floor(runs, floor));
        final List<String> goals = new ArrayList<>(YcsbGoals.evaluate(runs, floor, redis));
        if (passes.size() > 1)
        {
            sections.add(ReplicationCost.section(passes));
            goals.addAll(ReplicationCost.goals(passes));
        }
        return new SectionedReport(TITLE, machine, method, sections, goals);
    }

    private static ReportSection throughput(final List<SideBySide> runs)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("workload", false),
            new TextTable.Column("threads", true),
            new TextTable.Column("operations", true),
            new TextTable.Column("dkv ops/s", true),
            new TextTable.Column("Redis ops/s", true),
            new TextTable.Column("dkv / Redis", true),
            new TextTable.Column("dkv ops/s/thread", true),
            new TextTable.Column("Redis ops/s/thread", true)));
        for (final SideBySide run : runs)
        {
            table.addRow(
                run.title(),
                count(run.threads()),
                count(run.dkv().operations()),
                opsPerSecond(run.dkv().opsPerSecond()),
                run.hasRedis() ? opsPerSecond(run.redis().opsPerSecond()) : NOT_RUN,
                run.hasRedis() ? ratio(run.throughputRatio()) : NOT_RUN,
                opsPerSecond(run.dkv().opsPerSecondPerThread()),
                run.hasRedis() ? opsPerSecond(run.redis().opsPerSecondPerThread()) : NOT_RUN);
        }
        return new ReportSection(THROUGHPUT, List.of(
            "dkv / Redis: throughput ratio at the same thread count, higher is better for dkv; per thread: ops/s " +
                "over client threads",
            "load: the records inserted before the workloads, through YCSB's load phase"), table);
    }

    private static ReportSection latency(final List<SideBySide> runs)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("workload", false),
            new TextTable.Column("threads", true),
            new TextTable.Column("dkv p50", true),
            new TextTable.Column("Redis p50", true),
            new TextTable.Column("p50 dkv / Redis", true),
            new TextTable.Column("dkv p99", true),
            new TextTable.Column("Redis p99", true),
            new TextTable.Column("p99 dkv / Redis", true),
            new TextTable.Column("dkv failed", true),
            new TextTable.Column("Redis failed", true)));
        final List<String> notes = new ArrayList<>();
        notes.add("every read, update and insert timed alone (a read-modify-write is a read and an update); ratio: " +
            "dkv / Redis, lower is better for dkv");
        for (final SideBySide run : runs)
        {
            table.addRow(
                run.title(),
                count(run.threads()),
                micros(run.dkv().p50Nanos()),
                run.hasRedis() ? micros(run.redis().p50Nanos()) : NOT_RUN,
                run.hasRedis() ? ratio(run.p50Ratio()) : NOT_RUN,
                micros(run.dkv().p99Nanos()),
                run.hasRedis() ? micros(run.redis().p99Nanos()) : NOT_RUN,
                run.hasRedis() ? ratio(run.p99Ratio()) : NOT_RUN,
                count(run.dkv().failures()),
                run.hasRedis() ? count(run.redis().failures()) : NOT_RUN);
            failureNote(run, run.dkv(), notes);
            if (run.hasRedis())
            {
                failureNote(run, run.redis(), notes);
            }
        }
        return new ReportSection(LATENCY, notes, table);
    }

    private static ReportSection cpu(final List<SideBySide> runs)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("workload", false),
            new TextTable.Column("threads", true),
            new TextTable.Column("dkv client", true),
            new TextTable.Column("dkv all", true),
            new TextTable.Column("dkv cores busy", true),
            new TextTable.Column("Redis client", true),
            new TextTable.Column("Redis all", true),
            new TextTable.Column("Redis cores busy", true),
            new TextTable.Column("dkv ops/s per client core", true),
            new TextTable.Column("that / Redis ops/s/thread", true)));
        for (final SideBySide run : runs)
        {
            final double dkvPerClientCore = 1e9 / run.dkv().clientCpuNanosPerOperation();
            table.addRow(
                run.title(),
                count(run.threads()),
                micros(Math.round(run.dkv().clientCpuNanosPerOperation())),
                micros(Math.round(run.dkv().allCpuNanosPerOperation())),
                cores(run.dkv().coresBusy()),
                run.hasRedis() ? micros(Math.round(run.redis().clientCpuNanosPerOperation())) : NOT_RUN,
                run.hasRedis() ? micros(Math.round(run.redis().allCpuNanosPerOperation())) : NOT_RUN,
                run.hasRedis() ? cores(run.redis().coresBusy()) : NOT_RUN,
                opsPerSecond(dkvPerClientCore),
                run.hasRedis() ? ratio(dkvPerClientCore / run.redis().opsPerSecondPerThread()) : NOT_RUN);
        }
        return new ReportSection(CPU, List.of(
            "client: CPU time of the client threads (YCSB's generator, the binding and the store's client library) " +
                "per operation; all: of every thread of the benchmark's process over the run (for dkv this includes " +
                "its drivers' agents and the memory node) plus, for Redis, redis-server's process (both in 10 ms " +
                "clock ticks)",
            "cores busy: all CPU time over the run's wall time; near the machine's cores, the run was short of CPU, " +
                "and per-thread throughput then falls with every thread added whatever the store does",
            "dkv ops/s per client core: what one client thread would do with a core of its own (1 / client CPU per " +
                "operation; a dkv client thread waits for completions by spinning, so its CPU time is its working " +
                "time), beside Redis's per-thread throughput in the same run"), table);
    }

    private static String cores(final double cores)
    {
        return String.format(Locale.ROOT, "%.2f", cores);
    }

    private static void failureNote(final SideBySide run, final RunResult result, final List<String> notes)
    {
        if (result.failures() > 0)
        {
            notes.add(String.format(Locale.ROOT, "%s %s, %d threads: %,d calls did not answer OK; the first: %s",
                result.store(), run.title(), run.threads(), result.failures(), result.firstFailure()));
        }
    }

    private static ReportSection floor(final List<SideBySide> runs, final GetFloors floors)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("GET from", false),
            new TextTable.Column("GET p50", true),
            new TextTable.Column("floor p50", true),
            new TextTable.Column("floor p99", true),
            new TextTable.Column("GET p50 / floor p50", true),
            new TextTable.Column("floor", false)));
        final SideBySide reads = YcsbGoals.readsForFloor(runs);
        floorRow(table, reads, floors.raas(), "through the driver");
        floorRow(table, reads, floors.raw(), "raw verbs");
        return new ReportSection(FLOOR, List.of(
            "floor: three synchronous one-sided READs one after the other: two " + MemoryFloor.BUCKET_READ +
                " B combined buckets of the index and a block-sized READ of the heap, at random places among those " +
                "in use; through the driver: the client node's RaaS, as the client reads; raw verbs: an RC queue " +
                "pair of the client node's device connected to one of the memory node's, no RaaS",
            "GET: a YCSB read through the binding (KvClient.get and decoding the record's fields), with the fewest " +
                "threads that ran; it reads both candidate buckets in one batch, so it can come under the floor"),
                table);
    }

    private static void floorRow(final TextTable table, final SideBySide reads, final Histogram floor,
        final String kind)
    {
        final long floorP50 = floor.getValueAtPercentile(50.0);
        table.addRow(
            reads == null ? NOT_RUN :
            reads.title() + ", " + reads.threads() + " thread" + (reads.threads() == 1 ? "" : "s"),
            reads == null ? NOT_RUN : micros(reads.dkv().readP50Nanos()),
            micros(floorP50),
            micros(floor.getValueAtPercentile(99.0)),
            reads == null ? NOT_RUN : ratio((double)reads.dkv().readP50Nanos() / floorP50),
            kind);
    }
}
