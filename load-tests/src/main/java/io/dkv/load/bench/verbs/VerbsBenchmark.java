package io.dkv.load.bench.verbs;

import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.Measurement;
import io.dkv.load.bench.Provider;
import io.dkv.load.bench.ProvidersOption;
import io.dkv.load.bench.RandomOffsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import static io.dkv.load.bench.OptionRange.require;

/**
 * {@code dkv bench verbs}: p50/p99 latency and single-thread throughput of READ, WRITE and CAS on
 * each provider, each beside a floor measured in the same run.
 */
@Command(
    name = "verbs",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Measure one-sided verbs (READ, WRITE, CAS) on the software providers, or an RNIC (--provider verbs): p50 " +
            "and p99 latency with one request in flight, and single-thread throughput with a window in flight.",
        "Each figure is reported as a ratio to a floor measured in the same run: for shm and verbs the same " +
            "accesses on local memory, for tcp a blocking TCP ping-pong over 127.0.0.1. All traffic stays on " +
            "127.0.0.1 (verbs: on the RNIC's own port, looped back).",
        "Provider settings come from the dkv.verbs.* system properties, e.g. -Ddkv.verbs.tcp.engine.spin.us."
    })
public final class VerbsBenchmark implements Callable<Integer>
{
    static final int MAX_SIZE = 64 * 1024;
    static final int MAX_WINDOW = 1024;
    static final int MAX_REGION_MIB = 16 * 1024;
    static final long MAX_WARMUP_MILLIS = 600_000;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ProvidersOption providers;

    @Option(names = "--sizes", split = ",", defaultValue = "8,64", paramLabel = "BYTES",
        description = "READ and WRITE sizes in bytes, comma-separated (default: ${DEFAULT-VALUE}); CAS is always 8 B.")
    private List<Integer> sizes;

    @Option(names = "--ops", split = ",", defaultValue = "READ,WRITE,CAS", paramLabel = "OP",
        description = "Operations to measure, comma-separated: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private List<Operation> operations;

    @Option(names = "--warmup", defaultValue = "500", paramLabel = "MILLIS",
        description =
            "Milliseconds of operations run and discarded before each timed part (default: ${DEFAULT-VALUE}).")
    private long warmupMillis;

    @Option(names = "--iterations", defaultValue = "100000", paramLabel = "OPS",
        description =
            "Operations of each timed part: the latency run and the throughput run (default: ${DEFAULT-VALUE}).")
    private int iterations;

    @Option(names = "--window", defaultValue = "16", paramLabel = "REQUESTS",
        description = "Requests in flight during throughput runs (default: ${DEFAULT-VALUE}).")
    private int window;

    @Option(names = "--poll-idle", defaultValue = "spin", paramLabel = "MODE",
        description = "What the benchmark thread does when a CQ poll finds nothing: ${COMPLETION-CANDIDATES} " +
            "(default: ${DEFAULT-VALUE}).")
    private PollIdle pollIdle;

    @Option(names = "--region-mib", defaultValue = "64", paramLabel = "MIB",
        description =
            "Size of the remote region, and of the shm floor's local region, in MiB (default: ${DEFAULT-VALUE}).")
    private int regionMib;

    @Option(names = "--seed", defaultValue = "42",
        description = "Seed of the random offsets, so that runs access the same ones (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Mixin
    private MarkdownOption markdown;

    public Integer call() throws IOException
    {
        validate();
        final long regionLength = (long)regionMib << 20;
        final List<Provider> selectedProviders = providers.selected();
        final List<Operation> selectedOperations = List.copyOf(new LinkedHashSet<>(operations));
        final List<Integer> selectedSizes = List.copyOf(new LinkedHashSet<>(sizes));
        final int rowCount = selectedProviders.size() * rowsPerProvider(selectedOperations, selectedSizes);
        final ProbeRunner runner = new ProbeRunner(warmupMillis, iterations);
        final List<ResultRow> rows = new ArrayList<>();

        for (final Provider provider : selectedProviders)
        {
            measureProvider(provider, selectedOperations, selectedSizes, regionLength, runner, rows, rowCount);
        }

        final ResultsReport report =
            new ResultsReport(MachineInfo.current(), method(regionLength), rows, Goal.VERBS_GOALS);
        markdown.publish(report, spec.commandLine().getOut());
        return 0;
    }

    private void measureProvider(
        final Provider provider,
        final List<Operation> operations,
        final List<Integer> sizes,
        final long regionLength,
        final ProbeRunner runner,
        final List<ResultRow> rows,
        final int rowCount)
    {
        final PrintWriter progress = spec.commandLine().getErr();
        final Map<Integer, long[]> offsetsBySize = new HashMap<>();
        for (final Operation operation : operations)
        {
            for (final int size : operation.sizes(sizes))
            {
                offsetsBySize.computeIfAbsent(size, length -> RandomOffsets.generate(seed, regionLength, length));
            }
        }
        // start from an empty young generation: the loops allocate nothing, so no collection pauses a timed run
        System.gc();

        final int maxSize = maxSize(operations, sizes);
        try (ProbeFactory verbs = new VerbsLoopback(provider, regionLength, window, maxSize, pollIdle);
            ProbeFactory floor = floor(provider, regionLength, maxSize))
        {
            for (final Operation operation : operations)
            {
                for (final int size : operation.sizes(sizes))
                {
                    progress.printf("[%d/%d] %s %s %d B%n", rows.size() + 1, rowCount, provider, operation, size);
                    progress.flush();
                    final long[] offsets = offsetsBySize.get(size);
                    final Measurement verbsFigures = measure(runner, verbs, operation, size, offsets);
                    final Measurement floorFigures = measure(runner, floor, operation, size, offsets);
                    final String floorName = floor.describe(operation, size);
                    rows.add(new ResultRow(provider, operation, size, floorName, verbsFigures, floorFigures));
                }
            }
        }
    }

    private void validate()
    {
        require(spec, "--iterations", iterations, 1, Integer.MAX_VALUE);
        require(spec, "--warmup", warmupMillis, 0, MAX_WARMUP_MILLIS);
        require(spec, "--window", window, 1, MAX_WINDOW);
        require(spec, "--region-mib", regionMib, 1, MAX_REGION_MIB);
        for (final int size : sizes)
        {
            require(spec, "--sizes", size, 1, MAX_SIZE);
        }
    }

    private static int maxSize(final List<Operation> operations, final List<Integer> sizes)
    {
        int max = 0;
        for (final Operation operation : operations)
        {
            for (final int size : operation.sizes(sizes))
            {
                max = Math.max(max, size);
            }
        }
        return max;
    }

    private static int rowsPerProvider(final List<Operation> operations, final List<Integer> sizes)
    {
        int rows = 0;
        for (final Operation operation : operations)
        {
            rows += operation.sizes(sizes).size();
        }
        return rows;
    }

    private ProbeFactory floor(final Provider provider, final long regionLength, final int maxSize)
    {
        return switch (provider)
        {
            case SHM, VERBS -> new LocalMemoryFloor(regionLength, maxSize);
            case TCP -> new PingPongFloor(window);
        };
    }

    private static Measurement measure(
        final ProbeRunner runner, final ProbeFactory factory, final Operation operation, final int size,
        final long[] offsets)
    {
        try (Probe probe = factory.probe(operation, size, offsets))
        {
            return runner.measure(probe);
        }
    }

    private List<String> method(final long regionLength)
    {
        final String counts = iterations + " ops after " + warmupMillis + " ms of warm-up";
        return List.of(
            "latency: one request in flight, posted signaled, CQ polled until it completes (" + pollIdle.call() +
                " after an empty poll); System.nanoTime around each; " + counts,
            "throughput: single thread, " + window +
                " signaled requests in flight; the completions of each CQ poll are replaced by one doorbell (one " +
                "chained postSend), polling as for latency; " + counts,
            "targets: random 8-byte-aligned offsets in a " + (regionLength >> 20) +
                " MiB remote region, drawn before timing (seed " + seed + "); the floor uses the same offsets",
            "shm floor: the same accesses by the same thread on a local region of the same size (MemorySegment.copy; " +
                "CAS: VarHandle compareAndExchange on a big-endian word), timed per op for latency and back to back " +
                "for throughput",
            "tcp floor: blocking SocketChannel ping-pong over 127.0.0.1 with TCP_NODELAY and an echo thread; READ " +
            "sends " +
                PingPongExchange.READ_REQUEST_LENGTH +
                " B and gets the size back, WRITE and CAS send and get the size; throughput with the same window, " +
                "the replies of each read replaced by one write",
            "ratio: verbs / floor; latency ratios lower is better, ops/s ratio higher is better");
    }
}
