package io.dkv.load.bench.raas;

import io.dkv.load.bench.Formats;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.Provider;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import io.dkv.raas.ControlHeader;
import io.dkv.raas.RaasConfiguration;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.dkv.load.bench.Formats.count;
import static io.dkv.load.bench.Formats.nanos;
import static io.dkv.load.bench.Formats.opsPerSecond;

/**
 * Builds the report of {@code dkv bench raas}: a table per part measured, the threshold crossovers
 * and the goals, in the frame of a {@link SectionedReport}.
 */
final class RaasReport
{
    static final String TITLE = "dkv bench raas";
    static final String NOT_APPLICABLE = "-";
    static final String DECISIVE_NOTE = String.format(Locale.ROOT, "no slower: in how many of the alternating blocks " +
        "its median was at most the other's; faster: the way that was so in at least %.0f%% of them with a p50 at " +
        "least %.0f%% lower, else a tie", Crossover.DECISIVE_SHARE * 100, Crossover.MIN_GAIN * 100);

    private RaasReport()
    {
    }

    /**
     * @param machine        where it ran.
     * @param method         how it measured, one point per line.
     * @param results        what it measured.
     * @param providers      the providers selected.
     * @param paths          the paths selected.
     * @param maxSendPayload the largest message a SEND carried.
     */
    static SectionedReport of(
        final MachineInfo machine,
        final List<String> method,
        final RaasResults results,
        final List<Provider> providers,
        final List<RaasPath> paths,
        final int maxSendPayload)
    {
        final List<ReportSection> sections = new ArrayList<>();
        if (!results.join.isEmpty())
        {
            sections.add(join(results));
        }
        if (!results.scale.isEmpty())
        {
            sections.add(scaleThroughput(results));
            sections.add(scaleMemory(results));
        }
        if (!results.sharing.isEmpty())
        {
            sections.add(sharing(results, machine.cores()));
        }
        if (!results.overhead.isEmpty())
        {
            sections.add(overhead(results));
        }
        if (!results.thresholds.isEmpty())
        {
            sections.add(sendOrWrite(results, maxSendPayload));
            sections.add(copyOrRegister(results));
            sections.add(crossovers(results, maxSendPayload));
        }
        if (results.parts.contains(Part.STREAMS))
        {
            sections.add(streams(results));
        }
        if (results.parts.contains(Part.ISOLATION))
        {
            sections.add(isolation(results));
        }
        if (results.parts.contains(Part.LITE))
        {
            sections.add(liteRpc(results));
            sections.add(liteMemory(results));
        }
        return new SectionedReport(TITLE, machine, method, sections, RaasGoals.evaluate(results, providers, paths));
    }

    private static ReportSection join(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("nodes", true),
            new TextTable.Column("RaaS p50", true),
            new TextTable.Column("fresh RC p50", true),
            new TextTable.Column("p50 ratio", true),
            new TextTable.Column("RaaS p99", true),
            new TextTable.Column("fresh RC p99", true),
            new TextTable.Column("p99 ratio", true),
            new TextTable.Column("RaaS no slower", true),
            new TextTable.Column("DC floor p50", true),
            new TextTable.Column("RaaS - floor", true),
            new TextTable.Column("lookup p50", true),
            new TextTable.Column("open p50", true),
            new TextTable.Column("READ p50", true),
            new TextTable.Column("fresh driver p50", true)));
        for (final JoinRow row : results.join)
        {
            table.addRow(
                row.provider().toString(),
                count(row.raas().samples()),
                nanos(row.raas().p50Nanos()),
                nanos(row.raw().p50Nanos()),
                ratio(row.raas().p50Ratio(row.raw())),
                nanos(row.raas().p99Nanos()),
                nanos(row.raw().p99Nanos()),
                ratio(row.raas().p99Ratio(row.raw())),
                blocks(row.raas(), row.raw()),
                nanos(row.floor().p50Nanos()),
                signed(row.addedToFloorP50Nanos()),
                nanos(row.lookup().p50Nanos()),
                nanos(row.open().p50Nanos()),
                nanos(row.read().p50Nanos()),
                row.freshDriverP50Nanos() < 0 ? "-" : nanos(row.freshDriverP50Nanos()));
        }
        return new ReportSection("join: first 8 B READ from a node never talked to, through a standalone driver " +
            "(RaaS) or a fresh RC queue pair (raw), ns",
            List.of("RaaS: region and node read from the MetaServer by the driver, logical connection opened, READ; " +
                    "fresh RC: a queue pair on each end created and connected, READ; ratio: RaaS / fresh RC, lower " +
                    "is better",
                "no slower: in how many batches of nodes the RaaS median was at most the fresh RC one",
                "DC floor: the first READ from a ready raw DC initiator of this process, handed the node's DC " +
                    "target: what the provider costs to meet a device it never met (shm maps the device's control " +
                    "file and the region's file; tcp opens a connection), which every way pays; RaaS - floor: what " +
                    "RaaS adds to it",
                "lookup, open, READ: the RaaS join's steps, each timed alone (their medians need not add up to the " +
                    "whole's); the READ is where the driver's provider meets the node's device",
                "fresh driver: the RaaS median over the first batch of warm-up nodes, the first nodes the " +
                    "just-started driver ever meets: its join path still runs interpreted, as on a compute node that " +
                    "has just started"), table);
    }

    private static ReportSection scaleThroughput(final RaasResults results)
    {
        final int fewest = results.scale.get(0).connections();
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("path", false),
            new TextTable.Column("connections", true),
            new TextTable.Column("READs", true),
            new TextTable.Column("RaaS ops/s", true),
            new TextTable.Column("RaaS / " + fewest + " conn", true),
            new TextTable.Column("raw ops/s", true),
            new TextTable.Column("raw / " + fewest + " QP", true),
            new TextTable.Column("RaaS / raw", true)));
        final List<String> notes = new ArrayList<>();
        for (final ScaleRow group : results.scaleGroups())
        {
            final List<ScaleRow> rows = results.scale(group.provider(), group.path());
            final ScaleRow first = rows.get(0);
            for (final ScaleRow row : rows)
            {
                table.addRow(
                    row.provider().toString(),
                    row.path().toString(),
                    count(row.connections()),
                    count(row.operations()),
                    opsPerSecond(row.raasOpsPerSecond()),
                    ratio(row.raasOpsPerSecond() / first.raasOpsPerSecond()),
                    row.hasRaw() ? opsPerSecond(row.rawOpsPerSecond()) : NOT_APPLICABLE,
                    row.hasRaw() && first.hasRaw() ? ratio(row.rawOpsPerSecond() / first.rawOpsPerSecond()) :
                    NOT_APPLICABLE,
                    row.hasRaw() ? ratio(row.raasToRaw()) : NOT_APPLICABLE);
                if (!row.hasRaw())
                {
                    final String failure =
                        String.format(Locale.ROOT, "%s raw verbs with %,d queue pairs could not be set up: %s",
                        row.provider(), row.connections(), row.rawFailure());
                    if (!notes.contains(failure))
                    {
                        notes.add(failure);
                    }
                }
            }
        }
        notes.add("path: the driver's queue pairs the RaaS requests travelled on; the raw figures were measured once " +
            "per count and are repeated for each path");
        notes.add("RaaS / " + fewest + " conn and raw / " + fewest +
            " QP: throughput against the fewest connections of the same side; RaaS / raw: against the raw queue " +
            "pairs at the same count; higher is better");
        return new ReportSection("scale: 64 B READs over N logical connections (RaaS) or N RC queue pairs (raw)", notes,
            table);
    }

    private static ReportSection scaleMemory(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("connections", true),
            new TextTable.Column("RaaS heap B/conn", true),
            new TextTable.Column("RaaS mapped B/conn", true),
            new TextTable.Column("raw heap B/QP", true),
            new TextTable.Column("raw mapped B/QP", true),
            new TextTable.Column("raw shm resident B/QP", true),
            new TextTable.Column("raw / RaaS heap", true)));
        final List<RaasPath> shown = new ArrayList<>();
        for (final ScaleRow row : results.scale)
        {
            final RaasPath firstPath = results.scaleGroups().stream()
                .filter(group -> group.provider() == row.provider()).findFirst().orElseThrow().path();
            if (row.path() != firstPath)
            {
                continue;
            }
            if (!shown.contains(firstPath))
            {
                shown.add(firstPath);
            }
            final MemoryFootprint raas = row.raasMemory();
            final MemoryFootprint raw = row.rawMemory();
            table.addRow(
                row.provider().toString(),
                count(row.connections()),
                count(raas.heapBytes()),
                count(raas.mappedBytes()),
                raw == null ? NOT_APPLICABLE : count(raw.heapBytes()),
                raw == null ? NOT_APPLICABLE : count(raw.mappedBytes()),
                raw == null || raw.shmResidentBytes() < 0 ? NOT_APPLICABLE : count(raw.shmResidentBytes()),
                raw == null || raas.heapBytes() <= 0 ? NOT_APPLICABLE :
                ratio((double)raw.heapBytes() / raas.heapBytes()));
        }
        final List<String> notes = new ArrayList<>();
        notes.add("growth from before to after opening them, divided by the count: heap live after full collections " +
            "(the heap pools' usage after collection), files mapped (the mapped buffer pool, virtual size) and " +
            "resident shared memory (RssShmem); a count of 1 also carries state made once");
        notes.add("a raw connection is two queue pairs, one per end, and the figures are per queue pair; a logical " +
            "connection holds nothing on the target");
        notes.add("RaaS figures from the runs over " + shown.stream().map(RaasPath::toString).distinct().toList() +
            "; what a connection holds does not depend on the path");
        for (final var entry : results.driverHeapBytes.entrySet())
        {
            notes.add(String.format(Locale.ROOT, "%s: a started driver holds %,d B of heap before any connection " +
                "(its tables, request slots and pools), whatever the number of connections", entry.getKey(),
                entry.getValue()));
        }
        return new ReportSection("scale: memory per logical connection (RaaS) and per queue pair (raw)", notes, table);
    }

    private static ReportSection sharing(final RaasResults results, final int cores)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("path", false),
            new TextTable.Column("threads", true),
            new TextTable.Column("RaaS ops/s", true),
            new TextTable.Column("locked QP ops/s", true),
            new TextTable.Column("RaaS / locked", true),
            new TextTable.Column("RaaS slowest thread", true),
            new TextTable.Column("locked slowest thread", true)));
        int maxThreads = 0;
        for (final SharingRow row : results.sharing)
        {
            maxThreads = Math.max(maxThreads, row.threads());
            table.addRow(
                row.provider().toString(),
                row.path().toString(),
                count(row.threads()),
                opsPerSecond(row.raas().opsPerSecond()),
                opsPerSecond(row.locked().opsPerSecond()),
                ratio(row.ratio()),
                ratio(row.raas().slowestShare()),
                ratio(row.locked().slowestShare()));
        }
        final List<String> notes = new ArrayList<>();
        notes.add("slowest thread: its reads against an even share of the total (1.00x = all threads did as many); " +
            "the locked figures were measured once per thread count and are repeated for each path");
        if (maxThreads > cores)
        {
            notes.add("this machine has " + cores + " cores: up to " + maxThreads +
                " reading threads (and the drivers' and providers' own threads) take turns on them, so these figures " +
                "show contention more than parallelism");
        }
        return new ReportSection("sharing: threads issuing 64 B READs, a logical connection each (RaaS) or one RC " +
            "queue pair under a lock (raw)", notes, table);
    }

    private static ReportSection overhead(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("path", false),
            new TextTable.Column("driver", false),
            new TextTable.Column("size", true),
            new TextTable.Column("RaaS p50", true),
            new TextTable.Column("raw p50", true),
            new TextTable.Column("p50 ratio", true),
            new TextTable.Column("added p50 ns", true),
            new TextTable.Column("RaaS p99", true),
            new TextTable.Column("raw p99", true),
            new TextTable.Column("p99 ratio", true),
            new TextTable.Column("added p99 ns", true)));
        for (final OverheadRow row : results.overhead)
        {
            table.addRow(
                row.provider().toString(),
                row.path().toString(),
                row.driver().toString(),
                row.size() + " B",
                nanos(row.raas().p50Nanos()),
                nanos(row.raw().p50Nanos()),
                ratio(row.raas().p50Ratio(row.raw())),
                signed(row.addedP50Nanos()),
                nanos(row.raas().p99Nanos()),
                nanos(row.raw().p99Nanos()),
                ratio(row.raas().p99Ratio(row.raw())),
                signed(row.addedP99Nanos()));
        }
        return new ReportSection("overhead: synchronous READ through the driver, embedded or standalone, against the " +
            "raw verbs READ, ns",
            List.of("ratio: RaaS / raw, lower is better; added: RaaS - raw; the raw READs were timed in the same " +
                "alternating blocks as every path's and are repeated for each"), table);
    }

    private static ReportSection sendOrWrite(final RaasResults results, final int maxSendPayload)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("path", false),
            new TextTable.Column("size", true),
            new TextTable.Column("SEND p50", true),
            new TextTable.Column("WRITE p50", true),
            new TextTable.Column("WRITE / SEND p50", true),
            new TextTable.Column("SEND p99", true),
            new TextTable.Column("WRITE p99", true),
            new TextTable.Column("SEND no slower", true),
            new TextTable.Column("faster", false)));
        for (final ThresholdRow row : results.thresholds)
        {
            if (row.hasSend())
            {
                table.addRow(
                    row.provider().toString(),
                    row.path().toString(),
                    count(row.size()) + " B",
                    nanos(row.send().p50Nanos()),
                    nanos(row.writeCopy().p50Nanos()),
                    ratio(row.writeCopy().p50Ratio(row.send())),
                    nanos(row.send().p99Nanos()),
                    nanos(row.writeCopy().p99Nanos()),
                    blocks(row.send(), row.writeCopy()),
                    verdict(new Crossover.Point(row.size(), row.send(), row.writeCopy()), "SEND", "WRITE"));
            }
        }
        return new ReportSection("thresholds: message round trip, SEND against WRITE_WITH_IMM (both copied), ns",
            List.of(String.format(Locale.ROOT,
                "sizes a SEND carries: up to %,d B (a receive buffer less the %d-byte header)",
                maxSendPayload, ControlHeader.LENGTH), DECISIVE_NOTE), table);
    }

    private static ReportSection copyOrRegister(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("path", false),
            new TextTable.Column("size", true),
            new TextTable.Column("COPY p50", true),
            new TextTable.Column("REGISTER p50", true),
            new TextTable.Column("REGISTER / COPY p50", true),
            new TextTable.Column("COPY p99", true),
            new TextTable.Column("REGISTER p99", true),
            new TextTable.Column("COPY no slower", true),
            new TextTable.Column("faster", false)));
        for (final ThresholdRow row : results.thresholds)
        {
            table.addRow(
                row.provider().toString(),
                row.path().toString(),
                count(row.size()) + " B",
                nanos(row.writeCopy().p50Nanos()),
                nanos(row.writeRegister().p50Nanos()),
                ratio(row.writeRegister().p50Ratio(row.writeCopy())),
                nanos(row.writeCopy().p99Nanos()),
                nanos(row.writeRegister().p99Nanos()),
                blocks(row.writeCopy(), row.writeRegister()),
                verdict(new Crossover.Point(row.size(), row.writeCopy(), row.writeRegister()), "COPY", "REGISTER"));
        }
        return new ReportSection("thresholds: message round trip by WRITE_WITH_IMM, COPY against REGISTER (native " +
            "buffers), ns",
            List.of("REGISTER sends from the caller's buffer, registered on first use and found in the driver's " +
                "cache after",
                DECISIVE_NOTE), table);
    }

    private static ReportSection crossovers(final RaasResults results, final int maxSendPayload)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("path", false),
            new TextTable.Column("SEND -> WRITE_WITH_IMM", false),
            new TextTable.Column("SEND_THRESHOLD", true),
            new TextTable.Column("COPY -> REGISTER", false),
            new TextTable.Column("COPY_THRESHOLD", true)));
        final List<String> notes = new ArrayList<>();
        for (final ThresholdRow group : results.thresholdGroups())
        {
            final Provider provider = group.provider();
            final List<ThresholdRow> rows = results.thresholds(provider, group.path());
            final Crossover send = ThresholdBenchmark.sendCrossover(rows);
            final Crossover copy = ThresholdBenchmark.copyCrossover(rows);
            table.addRow(
                provider.toString(),
                group.path().toString(),
                send == null ? NOT_APPLICABLE : send.describe("SEND", "WRITE_WITH_IMM"),
                send == null ? NOT_APPLICABLE : count(send.threshold()),
                copy.describe("COPY", "REGISTER"),
                count(copy.threshold()));
            if (send != null && send.smallWayThroughout() && send.largestSize() < maxSendPayload)
            {
                notes.add(provider + " " + group.path() +
                    ": SEND was chosen up to the largest size measured that a SEND carries; a SEND carries up to " +
                    count(maxSendPayload) + " B, sizes between were not measured");
            }
            if (copy.smallWayThroughout())
            {
                notes.add(provider + " " + group.path() +
                    ": COPY was chosen at every size measured; the threshold is at least the largest size");
            }
        }
        notes.add("threshold: the largest measured size still sent the first way, chosen to lose the least latency " +
            "summed over the sizes where one way was decisively faster (each weighed by how much slower the way " +
            "chosen for it was), the largest of equally good ones (on a tie the first way is the cheaper for the " +
            "system); 0 = never the first way");
        notes.add(String.format(Locale.ROOT,
            "defaults now (RaasConfiguration, per provider): shm SEND %,d, COPY %,d; tcp SEND %,d, COPY %,d",
            RaasConfiguration.SEND_THRESHOLD_SHM_DEFAULT, RaasConfiguration.COPY_THRESHOLD_SHM_DEFAULT,
            RaasConfiguration.SEND_THRESHOLD_TCP_DEFAULT, RaasConfiguration.COPY_THRESHOLD_TCP_DEFAULT));
        return new ReportSection("thresholds: crossovers, what the defaults should be per provider (and path)", notes,
            table);
    }

    private static ReportSection liteRpc(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("size", true),
            new TextTable.Column("RPC p50", true),
            new TextTable.Column("echo p50", true),
            new TextTable.Column("p50 ratio", true),
            new TextTable.Column("RPC p99", true),
            new TextTable.Column("echo p99", true),
            new TextTable.Column("p99 ratio", true)));
        for (final LiteRow row : results.lite)
        {
            if (row.isRpc())
            {
                table.addRow(
                    row.provider().toString(),
                    String.format(Locale.ROOT, "%,d B", row.size()),
                    nanos(row.rpc().p50Nanos()),
                    nanos(row.echo().p50Nanos()),
                    ratio(row.rpc().p50Ratio(row.echo())),
                    nanos(row.rpc().p99Nanos()),
                    nanos(row.echo().p99Nanos()),
                    ratio(row.rpc().p99Ratio(row.echo())));
            }
        }
        return new ReportSection("lite: RPC round trip against a message echo's, ns",
            List.of("ratio: RPC / echo, lower is better"), table);
    }

    private static ReportSection liteMemory(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("bytes", true),
            new TextTable.Column("memcpy MB/s", true),
            new TextTable.Column("READ+WRITE MB/s", true),
            new TextTable.Column("ratio", true),
            new TextTable.Column("memset MB/s", true)));
        for (final LiteRow row : results.lite)
        {
            if (!row.isRpc())
            {
                table.addRow(
                    row.provider().toString(),
                    String.format(Locale.ROOT, "%,d B", row.size()),
                    String.format(Locale.ROOT, "%,.1f", row.memcpyMBps()),
                    String.format(Locale.ROOT, "%,.1f", row.readWriteMBps()),
                    ratio(row.memcpyMBps() / row.readWriteMBps()),
                    String.format(Locale.ROOT, "%,.1f", row.memsetMBps()));
            }
        }
        return new ReportSection("lite: memcpy and memset between regions of another node, MB/s",
            List.of("ratio: memcpy / one READ and one WRITE of the whole range, higher is better"), table);
    }

    private static ReportSection isolation(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("READ p50 alone", true),
            new TextTable.Column("p99 alone", true),
            new TextTable.Column("p50 shared", true),
            new TextTable.Column("p99 shared", true),
            new TextTable.Column("p50 isolated", true),
            new TextTable.Column("p99 isolated", true),
            new TextTable.Column("p99 shared / alone", true),
            new TextTable.Column("p99 isolated / alone", true),
            new TextTable.Column("bulk MB/s alone", true),
            new TextTable.Column("shared", true),
            new TextTable.Column("isolated", true),
            new TextTable.Column("bulk kept", true)));
        for (final IsolationRow row : results.isolation)
        {
            table.addRow(
                row.provider().toString(),
                nanos(row.solo()[0]),
                nanos(row.solo()[1]),
                nanos(row.shared()[0]),
                nanos(row.shared()[1]),
                nanos(row.isolated()[0]),
                nanos(row.isolated()[1]),
                ratio(row.sharedP99Ratio()),
                ratio(row.isolatedP99Ratio()),
                String.format(Locale.ROOT, "%,.1f", row.bulkSolo()),
                String.format(Locale.ROOT, "%,.1f", row.bulkShared()),
                String.format(Locale.ROOT, "%,.1f", row.bulkIsolated()),
                String.format(Locale.ROOT, "%.0f%%", row.bulkKept() * 100));
        }
        return new ReportSection("isolation: a latency application's 8 B READs beside a bulk application's 64 KiB " +
            "WRITEs through one standalone driver, ns", List.of("shared: the bulk application served as latency " +
            "(its requests taken as read, as with isolation off); isolated: served as bulk; bulk kept: its MB/s " +
            "isolated / alone"), table);
    }

    private static ReportSection streams(final RaasResults results)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("provider", false),
            new TextTable.Column("write", true),
            new TextTable.Column("stream MB/s", true),
            new TextTable.Column("socket MB/s", true),
            new TextTable.Column("ratio", true),
            new TextTable.Column("direct share", true),
            new TextTable.Column("direct", true),
            new TextTable.Column("indirect", true),
            new TextTable.Column("stale adverts", true)));
        for (final StreamRow row : results.streams)
        {
            table.addRow(
                row.provider().toString(),
                String.format(Locale.ROOT, "%,d B", row.size()),
                String.format(Locale.ROOT, "%,.1f", row.raasBytesPerSec() / 1e6),
                String.format(Locale.ROOT, "%,.1f", row.socketBytesPerSec() / 1e6),
                ratio(row.ratio()),
                String.format(Locale.ROOT, "%.0f%%", row.directShare() * 100),
                String.format(Locale.ROOT, "%,d", row.directTransfers()),
                String.format(Locale.ROOT, "%,d", row.indirectTransfers()),
                String.format(Locale.ROOT, "%,d", row.staleAdverts()));
        }
        return new ReportSection("streams: a RaaS byte stream against a SocketChannel pair over loopback, one " +
            "writer and one reader thread", List.of("ratio: stream / socket, higher is better; direct share: bytes " +
            "written into buffers the reader advertised; direct, indirect, stale adverts: counted over the timed " +
            "rounds"), table);
    }

    private static String blocks(final Latency first, final Latency second)
    {
        return first.blocksNoSlowerThan(second) + "/" + first.blocksWith(second);
    }

    private static String verdict(final Crossover.Point point, final String smallWay, final String largeWay)
    {
        return switch (point.verdict())
        {
            case 1 -> smallWay;
            case -1 -> largeWay;
            default -> "tie";
        };
    }

    /**
     * @return a ratio such as {@code 1.05x}; below 0.1 with two significant digits, such as
     * {@code 0.0044x}, since a raw baseline can be hundreds of times slower.
     */
    static String ratio(final double ratio)
    {
        if (ratio > 0 && ratio < 0.1)
        {
            return new BigDecimal(ratio).round(new MathContext(2)).toPlainString() + "x";
        }
        return Formats.ratio(ratio);
    }

    private static String signed(final long nanos)
    {
        return String.format(Locale.ROOT, "%+,d", nanos);
    }
}
