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
 * completions) or by polling the driver itself (as an event loop would). Each figure is a ratio to the
 * synchronous GETs of the same run; the settings take turns in rounds so that a drift of the machine
 * touches them alike.
 */
@Command(name = "gets", mixinStandardHelpOptions = true,
    description = {
        "GETs per second of one client thread: synchronous, and with several in flight through getAsync, which " +
            "its reads' completions carry; each beside the synchronous GETs of the same run.",
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
        description = "GETs of each setting in each round (default: ${DEFAULT-VALUE}).")
    private int gets;

    @Option(names = "--rounds", defaultValue = "3",
        description = "Rounds; each runs every setting once, in turn (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Mixin
    private MarkdownOption markdown;

    /** How a setting waits for the oldest GET in flight. */
    private enum Wait
    {
        SYNCHRONOUS("get (synchronous)"),
        JOIN("getAsync, join"),
        POLL("getAsync, poll");

        final String label;

        Wait(final String label)
        {
            this.label = label;
        }
    }

    /** One setting's total over the rounds. */
    private record Setting(Provider provider, int window, Wait waiting, long[] nanos)
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
        if (keys < 1 || gets < 1 || rounds < 1 || valueBytes < 0)
        {
            throw new IllegalArgumentException("--keys " + keys + ", --gets " + gets + ", --rounds " + rounds +
                ", --value-bytes " + valueBytes + ": out of range");
        }
        final List<Setting> settings = new ArrayList<>();
        final List<String> latencies = new ArrayList<>();
        for (final Provider provider : providers.selected())
        {
            latencies.add(measure(provider, settings));
        }
        final SectionedReport report = report(settings, latencies);
        markdown.publish(report, spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** @return the synchronous GET's latency, one line. */
    private String measure(final Provider provider, final List<Setting> settings)
    {
        final PrintWriter err = spec.commandLine().getErr();
        final byte[][] keyBytes = new byte[keys][];
        final Setting synchronous = new Setting(provider, 1, Wait.SYNCHRONOUS, new long[1]);
        settings.add(synchronous);
        final List<Setting> asynchronous = new ArrayList<>();
        for (final int window : inFlight)
        {
            asynchronous.add(new Setting(provider, window, Wait.JOIN, new long[1]));
            asynchronous.add(new Setting(provider, window, Wait.POLL, new long[1]));
        }
        settings.addAll(asynchronous);
        final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        try (InProcessStore store = InProcessStore.start(
            InProcessStore.sizedFor(keys, (long)keys * (valueBytes + 128), 1), 1, 1, 1, provider.verbsName()))
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
                gets + " GETs a setting");
            final SplittableRandom random = new SplittableRandom(1);
            final int warmup = Math.min(gets, 50_000);
            // a warm-up of each setting, not counted: the paths compile before they are timed
            syncGets(client, keyBytes, random, warmup, new Histogram(HIGHEST_NANOS, 3));
            for (final Setting setting : asynchronous)
            {
                asyncGets(client, raas, setting, keyBytes, random, warmup);
            }
            for (int round = 0; round < rounds; round++)
            {
                synchronous.nanos[0] += syncGets(client, keyBytes, random, gets, latency);
                for (final Setting setting : asynchronous)
                {
                    setting.nanos[0] += asyncGets(client, raas, setting, keyBytes, random, gets);
                }
                err.println("gets " + provider.verbsName() + ": round " + (round + 1) + " of " + rounds + " done");
            }
        }
        return provider.verbsName() + ": synchronous GET p50 " + micros(latency.getValueAtPercentile(50)) +
            " us, p99 " + micros(latency.getValueAtPercentile(99)) + " us";
    }

    private static long syncGets(
        final KvClient client, final byte[][] keys, final SplittableRandom random, final int count,
        final Histogram latency)
    {
        final long start = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            final long began = System.nanoTime();
            if (client.get(keys[random.nextInt(keys.length)]) == null)
            {
                throw new IllegalStateException("a loaded key read absent");
            }
            latency.recordValue(Math.min(System.nanoTime() - began, HIGHEST_NANOS));
        }
        return System.nanoTime() - start;
    }

    /** @return nanoseconds for {@code count} GETs, never more than the setting's window of them in flight. */
    private static long asyncGets(
        final KvClient client, final Raas raas, final Setting setting, final byte[][] keys,
        final SplittableRandom random, final int count)
    {
        final int window = setting.window;
        @SuppressWarnings("unchecked")
        final CompletableFuture<byte[]>[] ring = new CompletableFuture[window];
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
                if (ring[at].join() == null)
                {
                    throw new IllegalStateException("a loaded key read absent");
                }
            }
            if (i < count)
            {
                ring[at] = client.getAsync(keys[random.nextInt(keys.length)]);
            }
        }
        return System.nanoTime() - start;
    }

    private SectionedReport report(final List<Setting> settings, final List<String> latencies)
    {
        final long total = (long)gets * rounds;
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("in flight", true),
            new TextTable.Column("how", false),
            new TextTable.Column("GETs/s", true),
            new TextTable.Column("us per GET", true),
            new TextTable.Column("/ synchronous", true)));
        double syncRate = 0;
        for (final Setting setting : settings)
        {
            final double rate = total * 1e9 / setting.nanos[0];
            if (setting.waiting == Wait.SYNCHRONOUS)
            {
                syncRate = rate;
            }
            table.addRow(setting.provider.verbsName(), Integer.toString(setting.window), setting.waiting.label,
                String.format("%,.0f", rate), String.format("%.2f", setting.nanos[0] / 1e3 / total),
                String.format("%.2fx", rate / syncRate));
        }
        final List<String> method = new ArrayList<>();
        method.add("store: in-process, one memory node, " + String.format("%,d", keys) + " keys of " + valueBytes +
            " B values, uniform random keys (seed 1)");
        method.add("one client thread; " + rounds + " rounds, each of " + String.format("%,d", gets) +
            " GETs per setting, settings in turn, after an uncounted warm-up of each");
        method.add("join: the thread parks on the oldest GET, the driver's Poller delivers completions; poll: the " +
            "thread polls the driver while the oldest is not done");
        method.addAll(latencies);
        return new SectionedReport(TITLE, MachineInfo.current(), method,
            List.of(new ReportSection("GETs of one thread", List.of(
                "/ synchronous: GETs/s over those of the synchronous GETs on the same provider in the same run; " +
                    "higher is better"), table)),
            List.of());
    }

    private static String micros(final long nanos)
    {
        return String.format("%.2f", nanos / 1e3);
    }
}
