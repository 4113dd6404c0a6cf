package io.dkv.load.bench.membership;

import io.dkv.client.KvClientConfiguration;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.SectionedReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code dkv bench membership}: a memory node joins a loaded cluster and is drained from it again while clients run;
 * the time to move the keys, and the clients' latency and throughput during each change beside before it.
 */
@Command(name = "membership", mixinStandardHelpOptions = true,
    description = {
        "Membership change online: a MetaServer and --memory-nodes memory nodes, each a process, are loaded with " +
            "--bytes of keys; under a steady load of reads and updates a memory node joins (./dkv memory-node " +
            "--join) and is drained again (./dkv memory-node --drain). Reports the time each change took and spent " +
            "copying keys, the MiB moved and the time per GiB (extrapolated from what moved), and the clients' " +
            "p50, p99, p99.9 and ops/s during each change beside a window before it."
    })
public final class MembershipBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench membership";

    @Spec
    private CommandSpec spec;

    @Option(names = "--bytes", defaultValue = "256m", converter = ByteSize.class, paramLabel = "SIZE",
        description = "Values' bytes to load, with k, m or g for KiB, MiB, GiB (default: ${DEFAULT-VALUE}).")
    private long bytes;

    @Option(names = "--value-size", defaultValue = "1024",
        description = "Bytes of each value (default: ${DEFAULT-VALUE}).")
    private int valueSize;

    @Option(names = "--memory-nodes", defaultValue = "2",
        description = "Memory nodes before the join (default: ${DEFAULT-VALUE}).")
    private int memoryNodes;

    @Option(names = "--replicas", defaultValue = "1",
        description = "Copies of each key, at most --memory-nodes (default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--provider", defaultValue = "shm",
        description = "Verbs provider of every process: shm or tcp (default: ${DEFAULT-VALUE}).")
    private String provider;

    @Option(names = "--loaders", defaultValue = "2",
        description = "Threads that load the keys and read them back at the end (default: ${DEFAULT-VALUE}).")
    private int loaders;

    @Option(names = "--rate", defaultValue = "2000",
        description = "Operations a second of the steady load, all threads together (default: ${DEFAULT-VALUE}).")
    private int rate;

    @Option(names = "--readers", defaultValue = "2",
        description = "Threads of the steady load that read random keys (default: ${DEFAULT-VALUE}).")
    private int readers;

    @Option(names = "--writers", defaultValue = "2",
        description = "Threads of the steady load that update random keys (default: ${DEFAULT-VALUE}).")
    private int writers;

    @Option(names = "--window-ms", defaultValue = "10000",
        description = "Length of the window before the change, and of the load's warm-up before it " +
            "(default: ${DEFAULT-VALUE}).")
    private long windowMs;

    @Option(names = "--timeout-ms", defaultValue = "" + KvClientConfiguration.TIMEOUT_MS_DEFAULT,
        description = "Every client's operation timeout, the changes' drivers' too: each phase of a change waits " +
            "the view lease (3 s) plus this (default: ${DEFAULT-VALUE}).")
    private int timeoutMs;

    @Option(names = "--drain", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Drain the joined memory node again and measure that too (--no-drain: join only).")
    private boolean drain;

    @Option(names = "--change-timeout-s", defaultValue = "900",
        description = "How long a change may take before the run gives up (default: ${DEFAULT-VALUE}).")
    private long changeTimeoutS;

    @Mixin
    private MarkdownOption markdown;

    public Integer call() throws Exception
    {
        validate();
        final MembershipRun.Settings settings = new MembershipRun.Settings(provider, memoryNodes, replicas,
            KeySpace.ofBytes(bytes, valueSize), loaders, rate, readers, writers, windowMs, timeoutMs, drain,
            changeTimeoutS * 1000);
        final double loadAtStart = MachineInfo.loadAverage();
        final Path directory = Files.createTempDirectory("dkv-bench-membership-");
        final MembershipRun.Result result = new MembershipRun(settings, spec.commandLine().getErr()).run(directory);
        final SectionedReport report = new SectionedReport(TITLE, MachineInfo.current(),
            method(result, loadAtStart), MembershipReport.sections(result), MembershipReport.goals(result));
        markdown.publish(report, spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
    }

    private void validate()
    {
        final List<String> wrong = new ArrayList<>();
        if (valueSize < KeySpace.MIN_VALUE_SIZE)
        {
            wrong.add("--value-size " + valueSize + " (at least " + KeySpace.MIN_VALUE_SIZE + ")");
        }
        else if (bytes < valueSize || bytes / valueSize > Integer.MAX_VALUE)
        {
            wrong.add("--bytes " + bytes + " (at least one value of " + valueSize + " B, at most " +
                Integer.MAX_VALUE + " values)");
        }
        if (memoryNodes < 1)
        {
            wrong.add("--memory-nodes " + memoryNodes + " (at least 1)");
        }
        if (replicas < 1 || replicas > memoryNodes)
        {
            wrong.add("--replicas " + replicas + " (1 to --memory-nodes, " + memoryNodes + ")");
        }
        if (!"shm".equals(provider) && !"tcp".equals(provider))
        {
            wrong.add("--provider " + provider + " (shm or tcp)");
        }
        if (loaders < 1 || readers < 0 || writers < 0 || readers + writers < 1)
        {
            wrong.add("--loaders " + loaders + ", --readers " + readers + ", --writers " + writers +
                " (a loader and a reader or writer at least)");
        }
        if (rate < 1 || windowMs < 1 || timeoutMs < 1 || changeTimeoutS < 1)
        {
            wrong.add("--rate " + rate + ", --window-ms " + windowMs + ", --timeout-ms " + timeoutMs +
                ", --change-timeout-s " + changeTimeoutS + " (each positive)");
        }
        if (!wrong.isEmpty())
        {
            throw new ParameterException(spec.commandLine(), String.join("; ", wrong));
        }
    }

    private static List<String> method(final MembershipRun.Result result, final double loadAtStart)
    {
        final MembershipRun.Settings settings = result.settings();
        final KeySpace keySpace = settings.keySpace();
        final List<String> method = new ArrayList<>();
        method.add(String.format(Locale.ROOT, "cluster: a MetaServer (--replicas %d) and %d memory nodes, each a " +
            "process on %s, heaps of %s MiB; then memory node %d joins (./dkv memory-node --join, a heap of %s " +
            "MiB)%s; logs in %s", settings.replicas(), settings.memoryNodes(), settings.provider(),
            ByteSize.mebibytes(result.heapBytes()), result.join().nodeId(),
            ByteSize.mebibytes(result.joinerHeapBytes()),
            settings.drain() ? " and is drained again (./dkv memory-node --drain)" : "", result.logs()));
        method.add(String.format(Locale.ROOT, "keys: %,d of %d B with %d B values (%s MiB of values), put through " +
            "one client in this process on %d threads", keySpace.keys(), keySpace.keyLength(), keySpace.valueSize(),
            ByteSize.mebibytes(keySpace.valueBytes()), settings.loaders()));
        method.add(String.format(Locale.ROOT, "steady load: %,d operations/s, %d threads reading and %d updating " +
            "random keys through the same client (open loop); %,d ms of warm-up, then a window of %,d ms before " +
            "the change; operation timeout %,d ms everywhere", settings.rate(), settings.readers(),
            settings.writers(), settings.windowMs(), settings.windowMs(), settings.timeoutMs()));
        method.add(String.format(Locale.ROOT, "load average (1 min): %.2f at start, %.2f at end", loadAtStart,
            MachineInfo.loadAverage()));
        return method;
    }
}
