package io.dkv.meta;

import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.CachedNanoClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * MetaServers and nodes for tests: small drivers, fixed device addresses (so that a restarted
 * server keeps its endpoint) and waiting with a deadline.
 */
final class MetaTestSupport
{
    /** The cluster secret of the tests' servers and nodes. */
    static final byte[] SECRET = java.util.HexFormat.of().parseHex(
        "6b1f0c2a9e8d7c6b5a49382716050f1e2d3c4b5a69788796a5b4c3d2e1f00112");

    private MetaTestSupport()
    {
    }

    /** A device address that a restart can take again: a free tcp port, or an shm device id. */
    static VerbsContext fixedAddress(final String provider)
    {
        final VerbsContext verbs = new VerbsContext().provider(provider);
        if ("tcp".equals(provider))
        {
            return verbs.tcpAddress("127.0.0.1:" + freePort());
        }
        return verbs.tcpAddress("127.0.0.1:0").shmDeviceId(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
    }

    static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static MetaServerContext serverContext(final VerbsContext verbs, final long nodeId, final Path dataDir)
    {
        final MetaServerContext context = new MetaServerContext()
            .nodeId(nodeId)
            .clusterSecret(SECRET)
            .dataDir(dataDir)
            .nodeSlots(256)
            .regionSlots(512)
            .leaseMs(5000)
            .leaseCheckMs(50)
            .peerRetryMs(200)
            .catchUpTimeoutMs(5000);
        context.raas().verbs(verbs).receiveBuffers(128).requestSlots(256).dciCount(2).timeoutMs(3000);
        return context;
    }

    /** A MetaServer, node 100, at an address of its own and keeping its tables in {@code dataDir}. */
    static MetaServer startServer(final String provider, final Path dataDir)
    {
        return MetaServer.start(serverContext(fixedAddress(provider), 100, dataDir));
    }

    /** Two MetaServers that replicate each other, A started last so that it has taken B's state. */
    record Pair(MetaServer a, MetaServer b, VerbsContext addressA, Path dirA, long[] founders) implements AutoCloseable
    {
        /** Start A again, as it was configured. */
        MetaServer restartA()
        {
            return MetaServer.start(
                serverContext(addressA, a.endpoint().nodeId(), dirA).peer(b.endpoint()).founders(founders));
        }

        public void close()
        {
            a.close();
            b.close();
        }
    }

    /**
     * Each server needs the other's endpoint, which exists once the other started: start A alone
     * to learn its endpoint, start B with it, start A again with B's; A's endpoint stays the same.
     */
    static Pair startPair(final String provider, final Path dirA, final Path dirB)
    {
        return startPair(provider, dirA, dirB, new long[0]);
    }

    /** Two MetaServers as {@link #startPair(String, Path, Path)}, both naming these founders of the store. */
    static Pair startPair(final String provider, final Path dirA, final Path dirB, final long... founders)
    {
        final VerbsContext addressA = fixedAddress(provider);
        final MetaEndpoint endpointA;
        try (MetaServer alone = MetaServer.start(serverContext(addressA, 101, dirA).founders(founders)))
        {
            endpointA = alone.endpoint();
        }
        final MetaServer b = MetaServer.start(
            serverContext(fixedAddress(provider), 102, dirB).peer(endpointA).founders(founders));
        try
        {
            final MetaServer a =
                MetaServer.start(serverContext(addressA, 101, dirA).peer(b.endpoint()).founders(founders));
            if (!a.endpoint().equals(endpointA))
            {
                a.close();
                throw new AssertionError("A's endpoint moved across a restart: " + endpointA + " then " + a.endpoint());
            }
            return new Pair(a, b, addressA, dirA, founders);
        }
        catch (final RuntimeException ex)
        {
            b.close();
            throw ex;
        }
    }

    static RaasContext nodeContext(final String provider, final long nodeId)
    {
        return nodeContext(new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0"), nodeId);
    }

    static RaasContext nodeContext(final VerbsContext verbs, final long nodeId)
    {
        return new RaasContext()
            .verbs(verbs)
            .nodeId(nodeId)
            .receiveBuffers(128)
            .requestSlots(256)
            .dciCount(2)
            .advertisedBytes(128 * 1024)
            .timeoutMs(3000);
    }

    static MetaDirectoryContext directoryContext(final MetaEndpoint... endpoints)
    {
        return new MetaDirectoryContext().clusterSecret(SECRET).endpoints(endpoints).epochCheckMs(20).relinkMs(200)
            .rpcTimeoutMs(2000).heartbeatMs(300);
    }

    /** A node whose directory is the MetaServer(s) at these endpoints. */
    static Raas node(final String provider, final long nodeId, final MetaEndpoint... endpoints)
    {
        return node(nodeContext(provider, nodeId), endpoints);
    }

    /** A node so configured (at an address or in a role of the test's choosing), found through these endpoints. */
    static Raas node(final RaasContext context, final MetaEndpoint... endpoints)
    {
        return RaasDriver.start(context, new MetaDirectory(directoryContext(endpoints)));
    }

    static void await(final String what, final Duration timeout, final BooleanSupplier condition)
    {
        await(what, timeout, condition, () -> "");
    }

    static void await(final String what, final Duration timeout, final BooleanSupplier condition,
        final Supplier<String> detail)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail(what + " did not happen within " + timeout.toMillis() + " ms " + detail.get());
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }

    /** @return the directory an embedded driver was started with. */
    static io.dkv.raas.Directory directoryOf(final io.dkv.raas.Raas raas)
    {
        return ((io.dkv.raas.driver.RaasDriver)raas).directory();
    }

    /** Move the server's monotonic clock on and wait until its service ran a lease check at the new time. */
    static void advanceAndAwaitLeaseCheck(final MetaServer server, final CachedNanoClock clock, final long nanos)
    {
        final long checks = server.counter(MetaServerCounter.LEASE_CHECKS);
        clock.advance(nanos);
        await("a lease check", Duration.ofSeconds(10),
            () -> server.counter(MetaServerCounter.LEASE_CHECKS) > checks);
    }
}
