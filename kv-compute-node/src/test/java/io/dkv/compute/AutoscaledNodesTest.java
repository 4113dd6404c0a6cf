package io.dkv.compute;

import io.dkv.compute.autoscale.Autoscaler;
import io.dkv.compute.autoscale.AutoscalerContext;
import io.dkv.compute.autoscale.ManagedNode;
import io.dkv.compute.autoscale.MetricsScrape;
import io.dkv.compute.autoscale.ProcessNodeLauncher;
import io.dkv.compute.autoscale.ScalingMetric;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The autoscaler with real compute-node processes on one port: load over its target starts a second node, which
 * registers and takes part of the new connections; once the load stops and the scale-down window has passed, the
 * newest node drains, deregisters and exits; closing the autoscaler drains the last. No request fails on the way.
 *
 * <p>The load is open connections, not commands a second: a rate dips whenever the machine is busy, and a dip longer
 * than the scale-down window drains the second node under the load (its clients then see their connections closed,
 * as a drain means). Held connections ask for two nodes however slowly the requests beside them run.
 */
class AutoscaledNodesTest
{
    /** Three times the target per node: two nodes (the most) are wanted while they are open. */
    private static final int HELD_CONNECTIONS = 12;

    @TempDir
    Path dir;

    @Test
    void loadStartsASecondNodeOnThePortAndItsEndDrainsItAgain() throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        Files.writeString(secret, HexFormat.of().formatHex(MetaCluster.SECRET) + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        try (MetaCluster cluster = new MetaCluster(dir.resolve("meta"));
            Raas observer = cluster.node(cluster.base + 2, NodeRecord.ROLE_CLIENT))
        {
            final int port = freePort();
            final Autoscaler autoscaler = new Autoscaler(new AutoscalerContext()
                .minNodes(1)
                .maxNodes(2)
                .metric(ScalingMetric.CONNECTIONS)
                .target(HELD_CONNECTIONS / 3.0)
                .syncPeriodMs(200)
                .downWindowMs(1_000)
                .scrapeTimeoutMs(5_000)
                .startTimeoutMs(120_000)
                .drainTimeoutMs(60_000)
                .events(events::add)
                .launcher(new ProcessNodeLauncher(List.of("--port", Integer.toString(port), "--reuse-port",
                    "--metrics-port", "0", "--meta", cluster.endpoint().toString(), "--cluster-secret-file",
                    secret.toString(), "--provider", "shm", "--node-id", "0"), "256m", dir.resolve("logs"))));
            final AgentRunner runner = new AgentRunner(new SleepingMillisIdleStrategy(10), Throwable::printStackTrace,
                null, autoscaler);
            AgentRunner.startOnThread(runner);
            try
            {
                MetaCluster.await("the first node serving: " + events, () -> autoscaler.serving() == 1 &&
                    computeNodes(observer) == 1);

                final List<Jedis> held = new ArrayList<>();
                for (int i = 0; i < HELD_CONNECTIONS; i++)
                {
                    final Jedis jedis = new Jedis("127.0.0.1", port);
                    held.add(jedis);
                    assertEquals("PONG", jedis.ping());
                }
                final Load load = new Load(port);
                final Thread loader = new Thread(load, "autoscale-test-load");
                loader.start();
                MetaCluster.await("a second node serving under load: " + events, () -> autoscaler.serving() == 2);
                MetaCluster.await("both registered", () -> computeNodes(observer) == 2);
                MetaCluster.await("both took connections of the port", () ->
                    autoscaler.servingNodes().stream().allMatch(node -> connectionsReceived(node) > 0));
                load.running.set(false);
                loader.join();
                if (load.failure.get() != null)
                {
                    throw new AssertionError("a request failed while the second node joined: " + events,
                        load.failure.get());
                }
                held.forEach(Jedis::close);
                assertTrue(load.requests.get() > 0);

                MetaCluster.await("the newest drained once the load stopped: " + events, () ->
                    autoscaler.nodes().size() == 1 && autoscaler.serving() == 1);
                MetaCluster.await("the drained node deregistered", () -> computeNodes(observer) == 1);
                assertEquals(0, autoscaler.lost(), events::toString);
                assertTrue(events.stream().anyMatch(line -> line.contains("drained and exited")), events::toString);
                try (Jedis jedis = new Jedis("127.0.0.1", port))
                {
                    assertEquals("v" + (load.requests.get() - 1), jedis.get("autoscaled-" + (load.requests.get() - 1)),
                        "the last write of the load, read through the node left");
                }
            }
            finally
            {
                // closing the runner closes the agent on its thread: every node drains
                runner.close();
            }
            assertEquals(0, autoscaler.nodes().size());
            MetaCluster.await("no compute node registered once the autoscaler stopped",
                () -> computeNodes(observer) == 0);
        }
    }

    private static int computeNodes(final Raas observer)
    {
        return observer.nodes(NodeRecord.ROLE_COMPUTE).size();
    }

    private static double connectionsReceived(final ManagedNode node)
    {
        try
        {
            return new MetricsScrape("127.0.0.1", 5_000).scrape(node.metricsPort())
                .getOrDefault("dkv_compute_connections_received_total", 0.0);
        }
        catch (final IOException ex)
        {
            return 0;
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket())
        {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    /** SETs one after another, a new connection every 20, each key read back; the first failure is kept. */
    private static final class Load implements Runnable
    {
        private final int port;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong requests = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Load(final int port)
        {
            this.port = port;
        }

        public void run()
        {
            while (running.get() && failure.get() == null)
            {
                try (Jedis jedis = new Jedis("127.0.0.1", port))
                {
                    for (int i = 0; i < 20; i++)
                    {
                        final long n = requests.get();
                        jedis.set("autoscaled-" + n, "v" + n);
                        assertEquals("v" + n, jedis.get("autoscaled-" + n));
                        requests.incrementAndGet();
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            }
        }
    }
}
