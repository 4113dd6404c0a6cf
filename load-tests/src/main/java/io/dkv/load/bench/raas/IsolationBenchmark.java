package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.ServiceClass;
import io.dkv.raas.driver.RaasDriver;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code isolation}: two applications attached to one standalone driver ({@code dkv driver}, a JVM of its own):
 * a latency application reading 8 B synchronously, and a bulk application writing 64 KiB with
 * {@value #BULK_WINDOW} WRITEs in flight. The latency application's READs are timed alone, then beside the bulk
 * application attached without a class (the driver's default, latency: every request taken as read, as with
 * {@code --isolation off}) and attached as bulk; the bulk application's throughput alone and in each of those.
 */
final class IsolationBenchmark
{
    static final int READ_SIZE = 8;
    static final int WRITE_SIZE = 64 * 1024;
    static final int BULK_WINDOW = 64;
    static final String REGION_NAME = "dkv-bench-isolation";
    static final long MEMORY_NODE_ID = 3;
    /** Each round's solo bulk run lasts at least this long, however quickly the solo READs went. */
    static final long MIN_BULK_MILLIS = 100;
    static final int ROUNDS = 5;
    static final int MIN_BLOCK_READS = 100;

    private final PartSettings settings;
    private final int reads;

    IsolationBenchmark(final PartSettings settings, final int reads)
    {
        this.settings = settings;
        this.reads = reads;
    }

    IsolationRow run(final Provider provider)
    {
        settings.progress().printf(Locale.ROOT, "isolation: %s%n", provider);
        settings.progress().flush();
        try (StandaloneCluster cluster = new StandaloneCluster(provider))
        {
            final RaasDriver memoryNode = cluster.startMemoryNode(MEMORY_NODE_ID, true, settings.driverSettings());
            final long regionLength = Math.max(settings.regionLength(), 4L * WRITE_SIZE);
            memoryNode.malloc(MEMORY_NODE_ID, regionLength, REGION_NAME);
            // the conductor yields rather than parks when idle: a latency application alone would otherwise time the
            // conductor's wake-ups from its back-off, which a busy driver never pays
            final DriverProcess driver = cluster.startDriver("isolation", Map.of(
                RaasConfiguration.ISOLATION_PROP_NAME, "true",
                RaasConfiguration.CONDUCTOR_IDLE_STRATEGY_PROP_NAME, "yield"));
            try
            {
                final Raas latency = cluster.attach(driver, new RaasContext().clientClass(ServiceClass.LATENCY));
                final Raas plain = cluster.attach(driver, new RaasContext().requestSlots(256));
                final Raas bulk = cluster.attach(driver,
                    new RaasContext().clientClass(ServiceClass.BULK).requestSlots(256));
                final Reader reader = new Reader(latency, regionLength);
                final Writer plainWriter = new Writer(plain, regionLength);
                final Writer bulkWriter = new Writer(bulk, regionLength);

                // warm-up: every subject, discarded
                reader.time(reads / 4);
                plainWriter.runFor(settings.warmupMillis());
                bulkWriter.runFor(settings.warmupMillis());

                final int perBlock = Math.max(MIN_BLOCK_READS, reads / ROUNDS);
                final long[][] solo = new long[ROUNDS][];
                final long[][] shared = new long[ROUNDS][];
                final long[][] isolated = new long[ROUNDS][];
                final double[] bulkSolo = new double[ROUNDS];
                final double[] bulkShared = new double[ROUNDS];
                final double[] bulkIsolated = new double[ROUNDS];
                // rounds take every subject in turn, so that a change in the machine's load falls on all alike
                for (int round = 0; round < ROUNDS; round++)
                {
                    solo[round] = reader.time(perBlock);
                    bulkSolo[round] = bulkWriter.runFor(Math.max(MIN_BULK_MILLIS, reader.lastNanos / 1_000_000));
                    shared[round] = beside(reader, plainWriter, perBlock);
                    bulkShared[round] = plainWriter.lastMegabytesPerSecond;
                    isolated[round] = beside(reader, bulkWriter, perBlock);
                    bulkIsolated[round] = bulkWriter.lastMegabytesPerSecond;
                }
                return new IsolationRow(provider, medians(solo), medians(shared), medians(isolated),
                    Medians.of(bulkSolo), Medians.of(bulkShared), Medians.of(bulkIsolated));
            }
            catch (final RuntimeException ex)
            {
                throw cluster.withDriverLogs(ex);
            }
        }
    }

    /** @return the median of each column: p50s and p99s of the rounds. */
    private static long[] medians(final long[][] rounds)
    {
        final long[] p50 = new long[rounds.length];
        final long[] p99 = new long[rounds.length];
        for (int i = 0; i < rounds.length; i++)
        {
            p50[i] = rounds[i][0];
            p99[i] = rounds[i][1];
        }
        Arrays.sort(p50);
        Arrays.sort(p99);
        return new long[] {p50[rounds.length / 2], p99[rounds.length / 2]};
    }


    /** Time the reader while the writer writes flat out; the writer's throughput over the same span is kept. */
    private static long[] beside(final Reader reader, final Writer writer, final int count)
    {
        final AtomicBoolean stop = new AtomicBoolean();
        final CompletableFuture<Double> writing = CompletableFuture.supplyAsync(() -> writer.runUntil(stop));
        writer.awaitStarted();
        final long[] figures = reader.time(count);
        stop.set(true);
        writing.join();
        return figures;
    }

    /** The latency application: synchronous 8 B READs at offsets spread over the region. */
    private static final class Reader
    {
        private final Connection connection;
        private final RemoteRegion region;
        private final MemorySegment into;
        private final long regionLength;
        long lastNanos;

        Reader(final Raas raas, final long regionLength)
        {
            this.region = raas.lookup(REGION_NAME);
            this.connection = raas.open(MEMORY_NODE_ID, null);
            this.into = raas.allocateBuffer(64);
            this.regionLength = regionLength;
        }

        /** @return p50 and p99 of {@code count} READs, ns. */
        long[] time(final int count)
        {
            final long[] nanos = new long[count];
            final long start = System.nanoTime();
            for (int i = 0; i < count; i++)
            {
                final long offset = ((i * 7919L) * 64) % (regionLength - 64);
                final long before = System.nanoTime();
                connection.read(region, offset, into, 0, READ_SIZE);
                nanos[i] = System.nanoTime() - before;
            }
            lastNanos = System.nanoTime() - start;
            Arrays.sort(nanos);
            return new long[] {nanos[count / 2], nanos[(int)(count * 0.99)]};
        }
    }

    /** The bulk application: 64 KiB WRITEs, a window of them in flight, from registered memory. */
    private static final class Writer
    {
        private final Raas raas;
        private final Connection connection;
        private final RemoteRegion region;
        private final MemorySegment source;
        private final long slots;
        private final AtomicLong completed = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final AtomicBoolean started = new AtomicBoolean();
        volatile double lastMegabytesPerSecond;

        Writer(final Raas raas, final long regionLength)
        {
            this.raas = raas;
            this.region = raas.lookup(REGION_NAME);
            this.connection = raas.open(MEMORY_NODE_ID, (token, status, value) ->
            {
                if (status == RaasStatus.SUCCESS)
                {
                    completed.incrementAndGet();
                }
                else
                {
                    failed.incrementAndGet();
                }
            });
            this.source = raas.allocateBuffer(WRITE_SIZE);
            this.source.fill((byte)1);
            this.slots = regionLength / WRITE_SIZE;
        }

        double runFor(final long millis)
        {
            final long end = System.nanoTime() + millis * 1_000_000L;
            return run(() -> System.nanoTime() >= end);
        }

        double runUntil(final AtomicBoolean stop)
        {
            return run(stop::get);
        }

        void awaitStarted()
        {
            while (!started.get())
            {
                Thread.onSpinWait();
            }
        }

        private double run(final java.util.function.BooleanSupplier done)
        {
            final long firstCompleted = completed.get() + failed.get();
            final org.agrona.concurrent.IdleStrategy idle = Waiting.newIdleStrategy();
            long issued = 0;
            final long start = System.nanoTime();
            started.set(true);
            while (!done.getAsBoolean())
            {
                if (issued - (completed.get() + failed.get() - firstCompleted) < BULK_WINDOW)
                {
                    connection.writeAsync(region, (issued % slots) * WRITE_SIZE, source, 0, WRITE_SIZE, issued);
                    connection.flush();
                    issued++;
                    idle.reset();
                }
                else
                {
                    idle.idle(raas.poll());
                }
            }
            final long elapsed = System.nanoTime() - start;
            final long done2 = completed.get() + failed.get() - firstCompleted;
            while (completed.get() + failed.get() - firstCompleted < issued)
            {
                raas.poll();
            }
            started.set(false);
            if (failed.get() > 0)
            {
                throw new IllegalStateException(failed.get() + " bulk WRITEs failed");
            }
            lastMegabytesPerSecond = done2 * (double)WRITE_SIZE / elapsed * 1e9 / 1e6;
            return lastMegabytesPerSecond;
        }
    }

    static String describe(final int reads, final long warmupMillis)
    {
        return String.format(Locale.ROOT, "isolation: per provider, a MetaServer and a memory node in this process, " +
            "one standalone driver (dkv driver, isolation on, its conductor yielding when idle, in a JVM of its own) " +
            "and three handles of this process attached to it: the latency application (class latency) times %,d " +
            "synchronous %d B READs at spread offsets, in %d rounds of three blocks each: alone, then beside a bulk " +
            "application writing %d KiB from registered memory with %d WRITEs in flight, attached first without a " +
            "class (the driver's default, latency: its requests taken as read, as with isolation off) and then as " +
            "bulk (weight %d: that many of its requests taken per duty cycle); the bulk application's MB/s alone " +
            "(for as long as the round's solo READs took, at least %d ms) and over each shared span; p50, p99 and " +
            "MB/s: the median of the rounds'; both applications wait between empty polls as every measured loop " +
            "does; %,d ms of each subject discarded first", reads, READ_SIZE, ROUNDS, WRITE_SIZE / 1024, BULK_WINDOW,
            RaasConfiguration.DEFAULT_WEIGHT_DEFAULT, MIN_BULK_MILLIS, warmupMillis);
    }
}
