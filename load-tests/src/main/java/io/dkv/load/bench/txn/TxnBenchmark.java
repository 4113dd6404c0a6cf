package io.dkv.load.bench.txn;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.txn.Transaction;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import site.ycsb.generator.ZipfianGenerator;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code dkv bench txn}: transactions of 1, 2 and 4 keys (read-write: read every key, write every key; read-only:
 * read every key) against the single-key operations they are made of (PUT, GET, and a read-modify-write by version),
 * on an in-process store of three memory nodes, uniform keys (low contention) and Zipfian ones (high), by several
 * client threads. Each latency is reported beside the PUT's of the same setting in the same run.
 */
@Command(name = "txn", mixinStandardHelpOptions = true,
    description = {
        "Transactions of 1, 2 and 4 keys (read-write and read-only) against single-key PUT, GET and a versioned " +
            "read-modify-write, each as a ratio to the PUT's latency in the same run.",
        "An in-process store of three memory nodes (shm, or tcp over loopback), uniform and Zipfian keys, 1 and " +
            "several client threads."
    })
public final class TxnBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench txn";
    private static final long HIGHEST_NANOS = 10_000_000_000L;
    private static final int MEMORY_NODES = 3;

    @Spec
    private CommandSpec spec;

    @Option(names = "--keys", defaultValue = "10000", description = "Keys loaded (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--operations", defaultValue = "3000",
        description = "Operations of each kind per thread in each setting (default: ${DEFAULT-VALUE}).")
    private int operations;

    @Option(names = "--threads", split = ",", defaultValue = "1,4",
        description = "Client threads, comma-separated (default: ${DEFAULT-VALUE}).")
    private int[] threads;

    @Option(names = "--replicas", split = ",", defaultValue = "1,2",
        description = "Copies of each key, comma-separated (default: ${DEFAULT-VALUE}).")
    private int[] replicas;

    @Option(names = "--value-bytes", defaultValue = "100",
        description = "Bytes of each value (default: ${DEFAULT-VALUE}).")
    private int valueBytes;

    @Option(names = "--smallbank-customers", defaultValue = "2000",
        description = "Customers of SmallBank (two accounts each; nine in ten of its transactions on the hot one " +
            "customer in 25), run after the other kinds at each thread count; 0: none (default: ${DEFAULT-VALUE}).")
    private int smallbankCustomers;

    @Option(names = "--provider", defaultValue = "shm",
        description = "Verbs provider of the store: shm (a request costs the CPU that carries it) or tcp (over " +
            "loopback: a request costs a round trip, as on a network) (default: ${DEFAULT-VALUE}).")
    private String provider;

    @Mixin
    private MarkdownOption markdown;

    /** What one operation of a setting does. */
    enum Kind
    {
        PUT("PUT", 1, false),
        GET("GET", 1, false),
        RMW("read-modify-write (getVersioned, compareAndSetVersion)", 1, false),
        RW1("transaction, 1 key read and written", 1, true),
        RW2("transaction, 2 keys read and written", 2, true),
        RW4("transaction, 4 keys read and written", 4, true),
        RO2("transaction, 2 keys read only", 2, false),
        RO4("transaction, 4 keys read only", 4, false);

        final String label;
        final int keys;
        final boolean writes;

        Kind(final String label, final int keys, final boolean writes)
        {
            this.label = label;
            this.keys = keys;
            this.writes = writes;
        }
    }

    /** One measured setting: its latencies and conflicts over every thread. */
    private record Result(int replicas, int threads, boolean zipfian, Kind kind, Histogram latency, long nanos,
        long done, long conflicts)
    {
    }

    /** SmallBank at one thread count. */
    private record BankResult(int replicas, int threads, Histogram latency, long nanos, long done, long conflicts)
    {
    }

    public Integer call() throws Exception
    {
        if (!"shm".equals(provider) && !"tcp".equals(provider))
        {
            throw new IllegalArgumentException("--provider " + provider + ": shm or tcp");
        }
        if (keys < 8 || operations < 1 || valueBytes < 1 || smallbankCustomers < 0 || smallbankCustomers == 1)
        {
            throw new IllegalArgumentException("--keys " + keys + " (8 or more), --operations " + operations +
                ", --value-bytes " + valueBytes + ", --smallbank-customers " + smallbankCustomers +
                " (0, or 2 or more): out of range");
        }
        final PrintWriter err = spec.commandLine().getErr();
        final List<Result> results = new ArrayList<>();
        final List<BankResult> banks = new ArrayList<>();
        for (final int copies : replicas)
        {
            final long writes = 3L * operations * Kind.values().length * max(threads) * 4 + keys;
            try (InProcessStore store = InProcessStore.start(InProcessStore.sizedFor(keys + 2L * smallbankCustomers,
                writes * (2L * valueBytes + 256), max(threads), MEMORY_NODES), 1, MEMORY_NODES, copies, provider))
            {
                final KvClient client = store.client();
                final byte[][] keyBytes = load(client);
                err.println("txn r=" + copies + ": " + keys + " keys loaded on " + MEMORY_NODES + " memory nodes");
                for (final Kind kind : Kind.values())
                {
                    // an uncounted warm-up of each kind: its paths compile before they are timed
                    run(client, keyBytes, kind, 1, false, Math.min(operations, 1_000), copies);
                }
                for (final int threadCount : threads)
                {
                    for (final boolean zipfian : new boolean[]{false, true})
                    {
                        for (final Kind kind : Kind.values())
                        {
                            results.add(run(client, keyBytes, kind, threadCount, zipfian, operations, copies));
                        }
                        err.println("txn r=" + copies + ": " + threadCount + " threads, " +
                            (zipfian ? "zipfian" : "uniform") + " keys done");
                    }
                }
                if (smallbankCustomers > 0)
                {
                    Smallbank.load(client, smallbankCustomers);
                    for (final int threadCount : threads)
                    {
                        banks.add(smallbank(client, threadCount, copies));
                        err.println("txn r=" + copies + ": SmallBank, " + threadCount + " threads done");
                    }
                }
            }
        }
        markdown.publish(report(results, banks), spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
    }

    private byte[][] load(final KvClient client)
    {
        final byte[][] keyBytes = new byte[keys][];
        final byte[] value = new byte[valueBytes];
        for (int k = 0; k < keys; k++)
        {
            keyBytes[k] = ("account" + k).getBytes(StandardCharsets.UTF_8);
            client.put(keyBytes[k], value);
        }
        return keyBytes;
    }

    private Result run(final KvClient client, final byte[][] keyBytes, final Kind kind, final int threadCount,
        final boolean zipfian, final int count, final int copies) throws InterruptedException
    {
        final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        final AtomicLong conflicts = new AtomicLong();
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        final List<Thread> workers = new ArrayList<>();
        final long start = System.nanoTime();
        for (int t = 0; t < threadCount; t++)
        {
            workers.add(Thread.ofPlatform().start(() ->
            {
                final Histogram mine = new Histogram(HIGHEST_NANOS, 3);
                final ZipfianGenerator zipf = zipfian ? new ZipfianGenerator(keyBytes.length) : null;
                final byte[] value = new byte[valueBytes];
                final byte[][] chosen = new byte[kind.keys][];
                try
                {
                    for (int i = 0; i < count; i++)
                    {
                        pick(keyBytes, zipf, chosen);
                        final long began = System.nanoTime();
                        conflicts.addAndGet(once(client, kind, chosen, value));
                        mine.recordValue(Math.min(System.nanoTime() - began, HIGHEST_NANOS));
                    }
                }
                catch (final RuntimeException ex)
                {
                    failure.compareAndSet(null, ex);
                }
                synchronized (latency)
                {
                    latency.add(mine);
                }
            }));
        }
        for (final Thread worker : workers)
        {
            worker.join();
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException(kind.label + " failed (" + copies + " copies, " + threadCount +
                " threads): " + failure.get().getMessage(), failure.get());
        }
        return new Result(copies, threadCount, zipfian, kind, latency, System.nanoTime() - start,
            (long)count * threadCount, conflicts.get());
    }

    private BankResult smallbank(final KvClient client, final int threadCount, final int copies)
        throws InterruptedException
    {
        final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        final AtomicLong conflicts = new AtomicLong();
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        final List<Thread> workers = new ArrayList<>();
        final long start = System.nanoTime();
        for (int t = 0; t < threadCount; t++)
        {
            final long seed = t + 1;
            workers.add(Thread.ofPlatform().start(() ->
            {
                final Histogram mine = new Histogram(HIGHEST_NANOS, 3);
                final Smallbank bank = new Smallbank(client, smallbankCustomers, seed);
                try
                {
                    for (int i = 0; i < operations; i++)
                    {
                        final long began = System.nanoTime();
                        bank.next();
                        mine.recordValue(Math.min(System.nanoTime() - began, HIGHEST_NANOS));
                    }
                }
                catch (final RuntimeException ex)
                {
                    failure.compareAndSet(null, ex);
                }
                conflicts.addAndGet(bank.conflicts());
                synchronized (latency)
                {
                    latency.add(mine);
                }
            }));
        }
        for (final Thread worker : workers)
        {
            worker.join();
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException("SmallBank failed (" + copies + " copies, " + threadCount + " threads): " +
                failure.get().getMessage(), failure.get());
        }
        return new BankResult(copies, threadCount, latency, System.nanoTime() - start, (long)operations * threadCount,
            conflicts.get());
    }

    /** Distinct keys, by the distribution. */
    private static void pick(final byte[][] keyBytes, final ZipfianGenerator zipf, final byte[][] chosen)
    {
        for (int i = 0; i < chosen.length; i++)
        {
            byte[] key;
            boolean repeated;
            do
            {
                key = keyBytes[zipf == null ? ThreadLocalRandom.current().nextInt(keyBytes.length) :
                    (int)(zipf.nextValue() % keyBytes.length)];
                repeated = false;
                for (int j = 0; j < i; j++)
                {
                    repeated |= chosen[j] == key;
                }
            }
            while (repeated);
            chosen[i] = key;
        }
    }

    /** @return conflicts met before the operation took effect. */
    private static long once(final KvClient client, final Kind kind, final byte[][] chosen, final byte[] value)
    {
        switch (kind)
        {
            case PUT ->
            {
                client.put(chosen[0], value);
                return 0;
            }
            case GET ->
            {
                client.get(chosen[0]);
                return 0;
            }
            case RMW ->
            {
                for (long lost = 0; ; lost++)
                {
                    final Versioned read = client.getVersioned(chosen[0]);
                    if (client.compareAndSetVersion(chosen[0], read, value))
                    {
                        return lost;
                    }
                }
            }
            default ->
            {
                for (long lost = 0; ; lost++)
                {
                    final Transaction tx = client.begin();
                    final List<byte[]> read = tx.getAll(List.of(chosen));
                    if (kind.writes)
                    {
                        for (int i = 0; i < chosen.length; i++)
                        {
                            tx.put(chosen[i], read.get(i) == null ? value : read.get(i));
                        }
                    }
                    try
                    {
                        tx.commit();
                        return lost;
                    }
                    catch (final TransactionConflictException ex)
                    {
                        // counted, then run again at once: the figure includes what conflicts cost
                    }
                }
            }
        }
    }

    private SectionedReport report(final List<Result> results, final List<BankResult> banks)
    {
        final List<ReportSection> sections = new ArrayList<>();
        if (!banks.isEmpty())
        {
            final TextTable table = new TextTable(List.of(
                new TextTable.Column("copies", false),
                new TextTable.Column("threads", true),
                new TextTable.Column("txns/s", true),
                new TextTable.Column("p50 us", true),
                new TextTable.Column("p99 us", true),
                new TextTable.Column("conflicts per txn", true),
                new TextTable.Column("/ PUTs/s", true)));
            for (final BankResult bank : banks)
            {
                final double rate = bank.done * 1e9 / bank.nanos;
                final double puts = results.stream().filter(result -> result.kind == Kind.PUT &&
                    result.replicas == bank.replicas && result.threads == bank.threads && !result.zipfian)
                    .mapToDouble(result -> result.done * 1e9 / result.nanos).findFirst().orElse(Double.NaN);
                table.addRow(Integer.toString(bank.replicas), Integer.toString(bank.threads),
                    String.format("%,.0f", rate), String.format("%.1f", bank.latency.getValueAtPercentile(50) / 1e3),
                    String.format("%.1f", bank.latency.getValueAtPercentile(99) / 1e3),
                    String.format("%.3f", (double)bank.conflicts / bank.done), String.format("%.2fx", rate / puts));
            }
            sections.add(new ReportSection("SmallBank", List.of(String.format("%,d customers (two accounts each), " +
                "H-Store's mix, 90%% of transactions on the 4%% hot customers; / PUTs/s: over the uniform PUTs of " +
                "the same copies and threads in this run", smallbankCustomers)), table));
        }
        for (final int copies : replicas)
        {
            for (final int threadCount : threads)
            {
                for (final boolean zipfian : new boolean[]{false, true})
                {
                    final TextTable table = new TextTable(List.of(
                        new TextTable.Column("operation", false),
                        new TextTable.Column("ops/s", true),
                        new TextTable.Column("p50 us", true),
                        new TextTable.Column("p99 us", true),
                        new TextTable.Column("p50 / PUT's", true),
                        new TextTable.Column("conflicts", true)));
                    double putP50 = 0;
                    for (final Result result : results)
                    {
                        if (result.replicas != copies || result.threads != threadCount || result.zipfian != zipfian)
                        {
                            continue;
                        }
                        final double p50 = result.latency.getValueAtPercentile(50) / 1e3;
                        if (result.kind == Kind.PUT)
                        {
                            putP50 = p50;
                        }
                        table.addRow(result.kind.label, String.format("%,.0f", result.done * 1e9 / result.nanos),
                            String.format("%.1f", p50),
                            String.format("%.1f", result.latency.getValueAtPercentile(99) / 1e3),
                            String.format("%.2fx", p50 / putP50), Long.toString(result.conflicts));
                    }
                    sections.add(new ReportSection("r = " + copies + ", " + threadCount + " thread" +
                        (threadCount == 1 ? "" : "s") + ", " + (zipfian ? "Zipfian" : "uniform") + " keys",
                        List.of("p50 / PUT's: the operation's median latency over a PUT's in the same setting; " +
                            "lower is better"), table));
                }
            }
        }
        final List<String> method = List.of(
            "store: in-process, " + MEMORY_NODES + " memory nodes (" + provider + "), " + String.format("%,d", keys) +
                " keys of " + valueBytes + " B values; keys of one operation distinct, uniform or Zipfian (YCSB's, " +
                "constant 0.99)",
            "each thread runs " + String.format("%,d", operations) + " operations of a kind, kinds in turn, after " +
                "an uncounted warm-up of each; a transaction reads its keys together (Transaction.getAll), writes " +
                "each back, commits, and runs again on a conflict (its latency includes the runs it took)",
            "read-modify-write: getVersioned then compareAndSetVersion, again on a lost race");
        return new SectionedReport(TITLE, MachineInfo.current(), method, sections, List.of());
    }

    private static int max(final int[] values)
    {
        int max = 1;
        for (final int value : values)
        {
            max = Math.max(max, value);
        }
        return max;
    }
}
