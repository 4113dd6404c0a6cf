package io.dkv.load.bench.gets;

import io.dkv.client.KvClient;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.Provider;
import io.dkv.load.bench.ProvidersOption;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import io.dkv.raas.Raas;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * {@code dkv bench gets}: one thread reads random keys of an in-process store (one memory node, the
 * client's driver embedded) synchronously, then with 1, 4, 16 ... GETs in flight through
 * {@link KvClient#getAsync}, waiting for the oldest by {@code join} (the driver's Poller delivers the
 * completions) or by polling the driver itself (as an event loop would); then the same for PUTs of random keys
 * (updates) through {@link KvClient#putAsync}. Each figure is a ratio to the synchronous operations of the same
 * run; the settings take turns in rounds so that a drift of the machine touches them alike.
 */
@Command(name = "gets", mixinStandardHelpOptions = true,
    description = {
        "GETs and PUTs per second of one client thread: synchronous, and with several in flight through getAsync " +
            "and putAsync, which their requests' completions carry; each beside the synchronous operations of the " +
            "same run.",
        "An in-process store: one memory node, the client's driver embedded, on each provider asked for."
    })
public final class GetsInFlightBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench gets";
    private static final long HIGHEST_NANOS = 3_600_000_000L;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ProvidersOption providers;

    @Option(names = "--in-flight", split = ",", defaultValue = "1,4,16",
        description = "GETs one thread keeps in flight, comma-separated (default: ${DEFAULT-VALUE}).")
    private int[] inFlight;

    @Option(names = "--keys", defaultValue = "100000", description = "Keys loaded (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--value-bytes", defaultValue = "100",
        description = "Bytes of each value (default: ${DEFAULT-VALUE}).")
    private int valueBytes;

    @Option(names = "--gets", defaultValue = "100000",
        description = "Operations of each setting in each round (default: ${DEFAULT-VALUE}).")
    private int gets;

    @Option(names = "--operations", split = ",", defaultValue = "get,put",
        description = "Operations measured, comma-separated: get, put (default: ${DEFAULT-VALUE}).")
    private String[] operations;

    @Option(names = "--rounds", defaultValue = "3",
        description = "Rounds; each runs every setting once, in turn (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Mixin
    private MarkdownOption markdown;

    /** How a setting waits for the oldest operation in flight. */
    private enum Wait
    {
        SYNCHRONOUS("(synchronous)"),
        JOIN("Async, join"),
        POLL("Async, poll");

        final String label;

        Wait(final String label)
        {
            this.label = label;
        }
    }

    /** What a setting measures: a GET of a loaded key, or a PUT over one. */
    private enum Operation
    {
        GET("get", "GETs"),
        PUT("put", "PUTs");

        final String name;
        final String plural;

        Operation(final String name, final String plural)
        {
            this.name = name;
            this.plural = plural;
        }

        String label(final Wait waiting)
        {
            return waiting == Wait.SYNCHRONOUS ? name + " " + waiting.label : name + waiting.label;
        }
    }

    /** One setting's total over the rounds. */
    private record Setting(Provider provider, Operation operation, int window, Wait waiting, long[] nanos)
    {
    }

    public Integer call() throws Exception
    {
        for (final int window : inFlight)
        {
            if (window < 1 || window > 1024)
            {
                throw new IllegalArgumentException("--in-flight " + window + ": 1 to 1024");
            }
        }
        final List<Operation> measured = new ArrayList<>();
        for (final String name : operations)
        {
            measured.add(switch (name.trim().toLowerCase())
            {
                case "get" -> Operation.GET;
                case "put" -> Operation.PUT;
                default -> throw new IllegalArgumentException("--operations " + name + ": get or put");
            });
        }
        if (keys < 1 || gets < 1 || rounds < 1 || valueBytes < 0)
        {
            throw new IllegalArgumentException("--keys " + keys + ", --gets " + gets + ", --rounds " + rounds +
                ", --value-bytes " + valueBytes + ": out of range");
        }
        final List<Setting> settings = new ArrayList<>();
        final List<String> latencies = new ArrayList<>();
        for (final Provider provider : providers.selected())
        {
            latencies.addAll(measure(provider, measured, settings));
        }
        final SectionedReport report = report(measured, settings, latencies);
        markdown.publish(report, spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** @return each synchronous operation's latency, one line each. */
    private List<String> measure(final Provider provider, final List<Operation> measured,
        final List<Setting> settings)
    {
        final PrintWriter err = spec.commandLine().getErr();
        final byte[][] keyBytes = new byte[keys][];
        final List<Setting> mine = new ArrayList<>();
        for (final Operation operation : measured)
        {
            mine.add(new Setting(provider, operation, 1, Wait.SYNCHRONOUS, new long[1]));
            for (final int window : inFlight)
            {
                mine.add(new Setting(provider, operation, window, Wait.JOIN, new long[1]));
                mine.add(new Setting(provider, operation, window, Wait.POLL, new long[1]));
            }
        }
        settings.addAll(mine);
        final Histogram[] latency = {new Histogram(HIGHEST_NANOS, 3), new Histogram(HIGHEST_NANOS, 3)};
        final int warmup = Math.min(gets, 50_000);
        // a PUT leaves the block it replaced for the node to take back after its grace period: room for them all
        final long puts =
            measured.contains(Operation.PUT) ? (1L + 2 * inFlight.length) * (warmup + (long)rounds * gets) : 0;
        final long blockBytes = ((long)keys + puts) * (valueBytes + 128);
        try (InProcessStore store = InProcessStore.start(
            InProcessStore.sizedFor(keys, blockBytes, 1), 1, 1, 1, provider.verbsName()))
        {
            final KvClient client = store.client();
            final Raas raas = store.clientRaas();
            final byte[] value = new byte[valueBytes];
            for (int k = 0; k < keys; k++)
            {
                keyBytes[k] = ("user" + k).getBytes(StandardCharsets.UTF_8);
                client.put(keyBytes[k], value);
            }
            err.println("gets " + provider.verbsName() + ": " + keys + " keys loaded; " + rounds + " rounds of " +
                gets + " operations a setting");
            final SplittableRandom random = new SplittableRandom(1);
            // a warm-up of each setting, not counted: the paths compile before they are timed
            for (final Setting setting : mine)
            {
                run(client, raas, setting, keyBytes, value, random, warmup, new Histogram(HIGHEST_NANOS, 3));
            }
            for (int round = 0; round < rounds; round++)
            {
                for (final Setting setting : mine)
                {
                    setting.nanos[0] += run(client, raas, setting, keyBytes, value, random, gets,
                        latency[setting.operation.ordinal()]);
                }
                err.println("gets " + provider.verbsName() + ": round " + (round + 1) + " of " + rounds + " done");
            }
        }
        final List<String> lines = new ArrayList<>();
        for (final Operation operation : measured)
        {
            final Histogram histogram = latency[operation.ordinal()];
            lines.add(provider.verbsName() + ": synchronous " + operation.name.toUpperCase() + " p50 " +
                micros(histogram.getValueAtPercentile(50)) + " us, p99 " + micros(histogram.getValueAtPercentile(99)) +
                " us");
        }
        return lines;
    }

    private static long run(
        final KvClient client, final Raas raas, final Setting setting, final byte[][] keys, final byte[] value,
        final SplittableRandom random, final int count, final Histogram latency)
    {
        return setting.waiting == Wait.SYNCHRONOUS ?
            synchronous(client, setting.operation, keys, value, random, count, latency) :
            asynchronous(client, raas, setting, keys, value, random, count);
    }

    private static long synchronous(
        final KvClient client, final Operation operation, final byte[][] keys, final byte[] value,
        final SplittableRandom random, final int count, final Histogram latency)
    {
        final long start = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            final long began = System.nanoTime();
            final byte[] key = keys[random.nextInt(keys.length)];
            if (operation == Operation.PUT)
            {
                client.put(key, value);
            }
            else if (client.get(key) == null)
            {
                throw new IllegalStateException("a loaded key read absent");
            }
            latency.recordValue(Math.min(System.nanoTime() - began, HIGHEST_NANOS));
        }
        return System.nanoTime() - start;
    }

    /** @return nanoseconds for {@code count} operations, never more than the setting's window of them in flight. */
    private static long asynchronous(
        final KvClient client, final Raas raas, final Setting setting, final byte[][] keys, final byte[] value,
        final SplittableRandom random, final int count)
    {
        final int window = setting.window;
        final boolean put = setting.operation == Operation.PUT;
        final CompletableFuture<?>[] ring = new CompletableFuture[window];
        final long start = System.nanoTime();
        for (int i = 0; i < count + window; i++)
        {
            final int at = i % window;
            if (i >= window)
            {
                if (setting.waiting == Wait.POLL)
                {
                    while (!ring[at].isDone())
                    {
                        // the caller delivers completions itself while it waits, as an event loop would
                        raas.poll();
                    }
                }
                if (ring[at].join() == null && !put)
                {
                    throw new IllegalStateException("a loaded key read absent");
                }
            }
            if (i < count)
            {
                final byte[] key = keys[random.nextInt(keys.length)];
                ring[at] = put ? client.putAsync(key, value) : client.getAsync(key);
            }
        }
        return System.nanoTime() - start;
    }

    private SectionedReport report(final List<Operation> measured, final List<Setting> settings,
        final List<String> latencies)
    {
        final long total = (long)gets * rounds;
        final List<ReportSection> sections = new ArrayList<>();
        for (final Operation operation : measured)
        {
            final TextTable table = new TextTable(List.of(
                new TextTable.Column("provider", false),
                new TextTable.Column("in flight", true),
                new TextTable.Column("how", false),
                new TextTable.Column(operation.plural + "/s", true),
                new TextTable.Column("us per " + operation.name.toUpperCase(), true),
                new TextTable.Column("/ synchronous", true)));
            double syncRate = 0;
            for (final Setting setting : settings)
            {
                if (setting.operation != operation)
                {
                    continue;
                }
                final double rate = total * 1e9 / setting.nanos[0];
                if (setting.waiting == Wait.SYNCHRONOUS)
                {
                    syncRate = rate;
                }
                table.addRow(setting.provider.verbsName(), Integer.toString(setting.window),
                    operation.label(setting.waiting), String.format("%,.0f", rate),
                    String.format("%.2f", setting.nanos[0] / 1e3 / total), String.format("%.2fx", rate / syncRate));
            }
            sections.add(new ReportSection(operation.plural + " of one thread", List.of(
                "/ synchronous: " + operation.plural + "/s over those of the synchronous " + operation.plural +
                    " on the same provider in the same run; higher is better"), table));
        }
        final List<String> method = new ArrayList<>();
        method.add("store: in-process, one memory node, " + String.format("%,d", keys) + " keys of " + valueBytes +
            " B values, uniform random keys (seed 1); a PUT writes a loaded key again");
        method.add("one client thread; " + rounds + " rounds, each of " + String.format("%,d", gets) +
            " operations per setting, settings in turn, after an uncounted warm-up of each");
        method.add("join: the thread parks on the oldest operation, the driver's Poller delivers completions; " +
            "poll: the thread polls the driver while the oldest is not done");
        method.addAll(latencies);
        return new SectionedReport(TITLE, MachineInfo.current(), method, sections, List.of());
    }

    private static String micros(final long nanos)
    {
        return String.format("%.2f", nanos / 1e3);
    }
}
