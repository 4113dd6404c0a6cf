package io.dkv.load.bench.hostile;

import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.tcp.TcpDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import static io.dkv.load.bench.Formats.count;
import static io.dkv.load.bench.Formats.ratio;

/**
 * {@code dkv bench hostile}: a cluster on the tcp provider (MetaServer, memory node, client) is
 * attacked through its NIC engines with garbage, mutated and unauthorized requests, made-up DC
 * initiators and connection floods, while legitimate clients write, read back and swap values and
 * check every one; then what the attack left behind is measured against what the process held
 * before it, in the same run.
 */
@Command(name = "hostile", mixinStandardHelpOptions = true,
    description = {
        "Attack a cluster on the tcp provider as a peer on the network would (garbage, near-valid mutated " +
            "requests, unauthorized WRITEs and atomics, valid READs from made-up DC initiators, connections that " +
            "never speak, MetaServer RPCs without the cluster secret, a flood of RaaS CONNECTs) while legitimate " +
            "clients run and check every value; report crashes, unauthorized accesses that succeeded, the clients' " +
            "errors, and heap and file descriptors after the attack against before it.",
        "Goals: 0 crashes, 0 successful unauthorized accesses, 0 errors or wrong values for legitimate clients, heap " +
            "and fds back within 10%% of their start. Exits 3 when a goal is missed."
    })
public final class HostileBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench hostile";
    private static final double TOLERANCE = 1.10;

    @Spec
    private CommandSpec spec;

    @Option(names = "--frames", defaultValue = "1000000",
        description = "Request frames to send in all (default: ${DEFAULT-VALUE}).")
    private long frames;

    @Option(names = "--connections", defaultValue = "1000",
        description = "Connections of the garbage attack, and of the flood that never says HELLO " +
            "(default: ${DEFAULT-VALUE}).")
    private int connections;

    @Option(names = "--rpcs", defaultValue = "10000",
        description = "MetaServer RPCs without the cluster secret (default: ${DEFAULT-VALUE}).")
    private int rpcs;

    @Option(names = "--connects", defaultValue = "2000",
        description = "RaaS CONNECTs to the MetaServer's service, held and never used (default: ${DEFAULT-VALUE}).")
    private int connects;

    @Option(names = "--clients", defaultValue = "2",
        description = "Legitimate client threads (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--seed", defaultValue = "1",
        description = "Seed of the attacks' random choices (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Mixin
    private MarkdownOption markdown;

    public Integer call() throws Exception
    {
        if (frames < 1000 || connections < 1 || clients < 1 || rpcs < 1 || connects < 1)
        {
            throw new IllegalArgumentException("--frames " + frames + " (at least 1000), --connections " + connections +
                ", --rpcs " + rpcs + ", --connects " + connects + ", --clients " + clients + ": out of range");
        }
        final PrintWriter err = spec.commandLine().getErr();
        final Path dataDir = Files.createTempDirectory("dkv-bench-hostile");
        final Map<AttackKind, AttackTally> tallies = new EnumMap<>(AttackKind.class);
        for (final AttackKind kind : AttackKind.values())
        {
            tallies.put(kind, new AttackTally(kind));
        }
        final SectionedReport report;
        try (HostileCluster cluster = new HostileCluster(dataDir))
        {
            final Targets targets = targets(cluster);
            try (LegitimateClients legitimate = new LegitimateClients(cluster.client(), clients))
            {
                err.println("hostile: legitimate clients warming up...");
                Thread.sleep(2_000);
                final ProcessFigures before = ProcessFigures.now();
                final EngineFigures enginesBefore = EngineFigures.of(cluster);
                final long baselineOps = legitimate.operations();
                final long baselineStart = System.nanoTime();
                Thread.sleep(3_000);
                final double baselineRate =
                    (legitimate.operations() - baselineOps) * 1e9 / (System.nanoTime() - baselineStart);

                final NodeRecord memoryBefore = cluster.meta().node(HostileCluster.MEMORY_ID);
                final EnginePeaks peaks = new EnginePeaks(cluster);
                final long attackOps = legitimate.operations();
                final long attackStart = System.nanoTime();
                attack(targets, tallies, err);
                final long joinNanos = attackMeta(cluster, tallies, err);
                final long attackNanos = System.nanoTime() - attackStart;
                final NodeRecord memoryAfter = cluster.meta().node(HostileCluster.MEMORY_ID);
                final boolean recordsKept = memoryAfter != null && memoryBefore.withLease(0)
                    .equals(memoryAfter.withLease(0)) &&
                    cluster.meta().region(cluster.memoryNode().indexRegion().name()) != null &&
                    cluster.meta().region(cluster.memoryNode().heapRegion().name()) != null;
                final double attackRate = (legitimate.operations() - attackOps) * 1e9 / attackNanos;
                peaks.close();

                err.println("hostile: attack over; waiting for the engines to give back what it held...");
                final boolean reclaimed = EngineFigures.awaitBack(cluster, enginesBefore, 60_000);
                final ProcessFigures after = ProcessFigures.now();
                final EngineFigures enginesAfter = EngineFigures.of(cluster);
                final boolean alive = cluster.memoryDevice().engineThread().isAlive() &&
                    cluster.metaDevice().engineThread().isAlive() && cluster.meta()
                        .node(HostileCluster.MEMORY_ID) != null;
                legitimate.close();
                report = report(tallies, before, after, enginesBefore, peaks, enginesAfter, reclaimed, alive,
                    legitimate,
                    baselineRate, attackRate, attackNanos, recordsKept, joinNanos, cluster.meta()
                        .unauthenticatedRequests());
            }
        }
        finally
        {
            deleteQuietly(dataDir);
        }
        markdown.publish(report, spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return report.goalLines().stream().anyMatch(line -> line.contains("MISSED")) ? 3 : 0;
    }

    /** What an attacker knows of the cluster: the engines' addresses, DC targets and keys, and regions' rkeys. */
    private record Targets(Target metaTables, Target memoryIndex, Target memoryHeap)
    {
    }

    private static Targets targets(final HostileCluster cluster)
    {
        final MetaEndpoint meta = cluster.meta().endpoint();
        final RemoteRegion tables = cluster.meta().tables();
        final NodeRecord memory = cluster.memoryRecord();
        final RemoteRegion index = cluster.memoryNode().indexRegion();
        final RemoteRegion heap = cluster.memoryNode().heapRegion();
        return new Targets(
            new Target("MetaServer tables (read-only)", meta.address(), meta.dctNumber(), meta.dcKey(),
                tables.address(),
                tables.rkey(), tables.length()),
            new Target("memory node index", memory.address(), memory.dctNumber(), memory.dcKey(), index.address(),
                index.rkey(),
                index.length()),
            new Target("memory node heap", memory.address(), memory.dctNumber(), memory.dcKey(), heap.address(),
                heap.rkey(),
                heap.length()));
    }

    private void attack(final Targets targets, final Map<AttackKind, AttackTally> tallies, final PrintWriter err)
        throws InterruptedException, java.io.IOException
    {
        final TcpAttacker attacker = new TcpAttacker(seed);
        final long mutated = frames / 10;
        final long unauthorized = frames / 5;
        final long madeUp = frames - mutated - unauthorized;
        err.printf(Locale.ROOT, "hostile: %,d connections of garbage...%n", connections);
        attacker.garbage(targets.memoryIndex(), tallies.get(AttackKind.GARBAGE), connections / 2);
        attacker.garbage(targets.metaTables(), tallies.get(AttackKind.GARBAGE), connections - connections / 2);
        err.printf(Locale.ROOT, "hostile: %,d mutated requests...%n", mutated);
        attacker.requests(AttackKind.MUTATED, List.of(targets.metaTables(), targets.memoryHeap()),
            tallies.get(AttackKind.MUTATED),
            mutated);
        err.printf(Locale.ROOT, "hostile: %,d unauthorized requests...%n", unauthorized);
        attacker.requests(AttackKind.UNAUTHORIZED, List.of(targets.metaTables(), targets.memoryHeap()),
            tallies.get(AttackKind.UNAUTHORIZED), unauthorized);
        err.printf(Locale.ROOT, "hostile: %,d READs from made-up DC initiators...%n", madeUp);
        attacker.requests(AttackKind.MADE_UP_QPNS, List.of(targets.memoryIndex()), tallies.get(AttackKind.MADE_UP_QPNS),
            madeUp);
        err.printf(Locale.ROOT, "hostile: %,d connections that never say HELLO...%n", connections);
        attacker.connectionFlood(targets.memoryIndex(), tallies.get(AttackKind.CONNECTION_FLOOD), connections,
            "127.0.0.2");
    }

    /**
     * RPCs without the secret against the memory node's records, then a CONNECT flood held while a
     * new node joins.
     *
     * @return how long the new node took to join during the flood, or -1 when it could not.
     */
    private long attackMeta(final HostileCluster cluster, final Map<AttackKind, AttackTally> tallies,
        final PrintWriter err)
    {
        try (MetaAttacker attacker = new MetaAttacker(cluster.meta().endpoint(), seed))
        {
            err.printf(Locale.ROOT, "hostile: %,d MetaServer RPCs without the cluster secret...%n", rpcs);
            attacker.rpcs(tallies.get(AttackKind.UNAUTHENTICATED_RPCS), cluster.meta().node(HostileCluster.MEMORY_ID),
                cluster.memoryNode().indexRegion(), rpcs);
            err.printf(Locale.ROOT, "hostile: %,d CONNECTs to the MetaServer, held, and a new node joining...%n",
                connects);
            attacker.connects(tallies.get(AttackKind.CONNECT_FLOOD), connects);
            try
            {
                return cluster.joinNewNode(HostileCluster.NEWCOMER_ID);
            }
            catch (final RuntimeException ex)
            {
                err.println("hostile: the new node could not join during the flood: " + ex.getMessage());
                return -1;
            }
        }
    }

    private SectionedReport report(
        final Map<AttackKind, AttackTally> tallies,
        final ProcessFigures before,
        final ProcessFigures after,
        final EngineFigures enginesBefore,
        final EnginePeaks peaks,
        final EngineFigures enginesAfter,
        final boolean reclaimed,
        final boolean alive,
        final LegitimateClients legitimate,
        final double baselineRate,
        final double attackRate,
        final long attackNanos,
        final boolean recordsKept,
        final long joinNanos,
        final long unauthenticatedRefused)
    {
        final TextTable attacks = new TextTable(List.of(
            new TextTable.Column("attack", false),
            new TextTable.Column("frames", true),
            new TextTable.Column("connections", true),
            new TextTable.Column("answers", true),
            new TextTable.Column("SUCCESS answers", true),
            new TextTable.Column("unauthorized SUCCESS", true),
            new TextTable.Column("links cut or refused", true)));
        long totalFrames = 0;
        long breaches = 0;
        for (final AttackTally tally : tallies.values())
        {
            totalFrames += tally.frames.get();
            breaches += tally.breaches();
            attacks.addRow(tally.kind.label(), count(tally.frames.get()), count(tally.connections.get()),
                count(tally.responses.get()), count(tally.successes.get()),
                    tally.kind.unauthorized() ? count(tally.breaches()) : "-",
                count(tally.cutOff.get() + tally.refused.get()));
        }
        final TextTable held = new TextTable(List.of(
            new TextTable.Column("figure", false),
            new TextTable.Column("before", true),
            new TextTable.Column("attack peak", true),
            new TextTable.Column("after", true),
            new TextTable.Column("after / before", true)));
        held.addRow("heap live after a full GC (KiB)", count(before.heapBytes() >> 10), "-",
            count(after.heapBytes() >> 10),
            ratio((double)after.heapBytes() / before.heapBytes()));
        held.addRow("open file descriptors", count(before.fds()), "-", count(after.fds()),
            ratio((double)after.fds() / before.fds()));
        held.addRow("threads", count(before.threads()), "-", count(after.threads()),
            ratio((double)after.threads() / before.threads()));
        held.addRow("links peers opened (memory node + MetaServer)", count(enginesBefore.links()), count(peaks.links()),
            count(enginesAfter.links()), ratio((double)enginesAfter.links() / Math.max(1, enginesBefore.links())));
        held.addRow("their staging buffers (KiB)", count(enginesBefore.bufferBytes() >> 10),
            count(peaks.bufferBytes() >> 10),
            count(enginesAfter.bufferBytes() >> 10),
            ratio((double)enginesAfter.bufferBytes() / Math.max(1, enginesBefore.bufferBytes())));
        held.addRow("DC initiators with state", count(enginesBefore.dcSources()), count(peaks.dcSources()),
            count(enginesAfter.dcSources()), "-");
        held.addRow("MetaServer's inbound RaaS connections", count(enginesBefore.metaInbound()),
            count(peaks.metaInbound()),
            count(enginesAfter.metaInbound()), "-");
        final TextTable clientsTable = new TextTable(List.of(
            new TextTable.Column("legitimate clients", false),
            new TextTable.Column("value", true)));
        clientsTable.addRow("operations in all", count(legitimate.operations()));
        clientsTable.addRow("errors", count(legitimate.errors()));
        clientsTable.addRow("wrong values", count(legitimate.wrongValues()));
        clientsTable.addRow("ops/s before the attack", count((long)baselineRate));
        clientsTable.addRow("ops/s during the attack", count((long)attackRate));
        clientsTable.addRow("during / before", ratio(attackRate / baselineRate));

        final boolean heapBack = after.heapBytes() <= before.heapBytes() * TOLERANCE;
        final boolean fdsBack = after.fds() <= before.fds() * TOLERANCE;
        final List<String> goals = new ArrayList<>();
        goals.add(goal(String.format(Locale.ROOT, "every attack frame asked for sent (--frames %,d; sent %,d)", frames,
            totalFrames), totalFrames >= frames));
        goals.add(goal("0 crashes: both NIC engines alive and the memory node still in the directory", alive));
        goals.add(goal(String.format(Locale.ROOT,
            "0 successful unauthorized accesses (%,d; the MetaServer refused %,d " +
            "RPCs as unauthenticated)", breaches, unauthenticatedRefused), breaches == 0));
        goals.add(goal("the memory node's record and regions in the MetaServer are as they were", recordsKept));
        goals.add(goal(String.format(Locale.ROOT, "a new node joins during the CONNECT flood (%s)",
            joinNanos < 0 ? "it could not" : String.format(Locale.ROOT, "in %.1f ms", joinNanos / 1e6)),
                joinNanos >= 0));
        goals.add(goal(String.format(Locale.ROOT,
            "0 errors or wrong values for legitimate clients (%,d errors, %,d wrong%s)",
            legitimate.errors(), legitimate.wrongValues(),
            legitimate.firstProblem() == null ? "" : "; first: " + legitimate.firstProblem()),
            legitimate.errors() == 0 && legitimate.wrongValues() == 0));
        goals.add(goal(String.format(Locale.ROOT, "heap back within 10%% of its start (%s)",
            ratio((double)after.heapBytes() / before.heapBytes())), heapBack));
        goals.add(goal(String.format(Locale.ROOT, "fds back within 10%% of their start (%,d -> %,d)", before.fds(),
            after.fds()),
            fdsBack));
        goals.add(goal("the engines gave back every link and DC initiator the attack made them hold", reclaimed));
        final List<String> method = List.of(
            "cluster: a MetaServer, a memory node and a client node in this JVM, each with a tcp NIC engine on " +
                "127.0.0.1",
            String.format(Locale.ROOT,
                "legitimate clients: %d threads, each writing values never written before to keys of " +
                "its own, reading each back, swapping it by compare-and-set and reading again", clients),
            "attacks, one after another from this process: random bytes; WRITEs and atomics with a byte or two " +
                "changed; WRITEs (empty or not), adds of 0 and swaps of a word for itself on the MetaServer's " +
                "read-only tables with its real DC key, and on the memory node's heap with made-up rkeys; valid " +
                "READs of the index from DC initiators numbered at random; connections from 127.0.0.2 that never say " +
                "HELLO; MetaServer RPCs that re-register, deregister, evict or strip the memory node, sealed with a " +
                "wrong secret (one in eight also mutated); RaaS CONNECTs to the MetaServer held and never used, " +
                "while a new node joins",
            String.format(Locale.ROOT,
                "attack time %.1f s; figures before and after are taken after System.gc(), with the " +
                "legitimate clients running", attackNanos / 1e9));
        return new SectionedReport(TITLE, MachineInfo.current(), method, List.of(
            new ReportSection("attacks",
                List.of("unauthorized SUCCESS: answers of SUCCESS to a frame the peer had no right " +
                "to send (must be 0)"), attacks),
            new ReportSection("what the process held", List.of("peaks are sampled every 10 ms during the attack"),
                held),
            new ReportSection("legitimate clients", List.of(), clientsTable)), goals);
    }

    private static String goal(final String text, final boolean met)
    {
        return text + ": " + (met ? "MET" : "MISSED");
    }

    private static void deleteQuietly(final Path dir)
    {
        try (var paths = Files.walk(dir))
        {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final java.io.IOException ignore)
        {
            // a temporary directory left behind is harmless
        }
    }

    /** Links, link buffers and DC initiator state of both engines, and the MetaServer's connections, at one moment. */
    private record EngineFigures(long links, long bufferBytes, long dcSources, long metaInbound)
    {
        static EngineFigures of(final HostileCluster cluster)
        {
            final TcpDevice memory = cluster.memoryDevice();
            final TcpDevice meta = cluster.metaDevice();
            return new EngineFigures(memory.inboundLinkCount() + meta.inboundLinkCount(),
                memory.inboundLinkBufferBytes() + meta.inboundLinkBufferBytes(),
                memory.dcSourceStates() + meta.dcSourceStates(), cluster.metaDriver().inboundConnections());
        }

        static boolean awaitBack(final HostileCluster cluster, final EngineFigures before, final long timeoutMs)
            throws InterruptedException
        {
            final long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline)
            {
                final EngineFigures now = of(cluster);
                if (now.links <= before.links && now.bufferBytes <= before.bufferBytes && now.dcSources == 0 &&
                    now.metaInbound <= before.metaInbound)
                {
                    return true;
                }
                Thread.sleep(50);
            }
            return false;
        }
    }

    /** The most the engines held while the attack ran, sampled by a thread of its own. */
    private static final class EnginePeaks implements AutoCloseable
    {
        private volatile boolean running = true;
        private long links;
        private long bufferBytes;
        private long dcSources;
        private long metaInbound;
        private final Thread sampler;

        EnginePeaks(final HostileCluster cluster)
        {
            sampler = Thread.ofPlatform().daemon().name("hostile-peaks").start(() ->
            {
                while (running)
                {
                    final EngineFigures now = EngineFigures.of(cluster);
                    synchronized (this)
                    {
                        links = Math.max(links, now.links);
                        bufferBytes = Math.max(bufferBytes, now.bufferBytes);
                        dcSources = Math.max(dcSources, now.dcSources);
                        metaInbound = Math.max(metaInbound, now.metaInbound);
                    }
                    try
                    {
                        Thread.sleep(10);
                    }
                    catch (final InterruptedException ex)
                    {
                        return;
                    }
                }
            });
        }

        synchronized long links()
        {
            return links;
        }

        synchronized long bufferBytes()
        {
            return bufferBytes;
        }

        synchronized long dcSources()
        {
            return dcSources;
        }

        synchronized long metaInbound()
        {
            return metaInbound;
        }

        public void close() throws InterruptedException
        {
            running = false;
            sampler.join();
        }
    }
}
