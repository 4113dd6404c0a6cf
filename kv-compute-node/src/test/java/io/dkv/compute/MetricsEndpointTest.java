package io.dkv.compute;

import io.dkv.compute.command.NodeStats;
import io.dkv.compute.metrics.PrometheusText;
import io.dkv.compute.store.PoolHeaders;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node started with a metrics port serves {@code GET /metrics} in Prometheus's text format 0.0.4: every figure an
 * autoscaler reads, each with its HELP and TYPE, the commands counted exactly and their durations recorded, and the
 * same durations and CPU figure in INFO. Anything but {@code GET /metrics} is 404; what is not HTTP is closed.
 */
class MetricsEndpointTest
{
    /** Each metric and its type, as others parse them. */
    private static final Map<String, String> TYPES = Map.ofEntries(
        Map.entry("dkv_compute_ops_per_second", "gauge"),
        Map.entry("dkv_compute_commands_total", "counter"),
        Map.entry("dkv_compute_command_duration_seconds", "summary"),
        Map.entry("dkv_compute_cpu_utilization", "gauge"),
        Map.entry("dkv_compute_connections", "gauge"),
        Map.entry("dkv_compute_connections_received_total", "counter"),
        Map.entry("dkv_compute_connections_rejected_total", "counter"),
        Map.entry("dkv_compute_protocol_errors_total", "counter"),
        Map.entry("dkv_compute_draining", "gauge"),
        Map.entry("dkv_compute_node_id", "gauge"),
        Map.entry("process_cpu_seconds_total", "counter"),
        Map.entry("process_start_time_seconds", "gauge"));
    private static final String P50 = "dkv_compute_command_duration_seconds{quantile=\"0.5\"}";
    private static final String P99 = "dkv_compute_command_duration_seconds{quantile=\"0.99\"}";
    /** An hour: what the test sends stays in the window however slowly the machine runs it. */
    private static final long WINDOW_MS = 3_600_000;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(30)).build();

    @Test
    void aScrapeGivesEveryFigureWithItsTypeTheCommandsCountedAndTheirDurations() throws Exception
    {
        try (TestStore store = new TestStore(new ComputeNodeContext().metricsPort(0).metricsWindowMs(WINDOW_MS)))
        {
            final int metricsPort = store.computeNode().metricsPort();
            assertTrue(metricsPort > 0 && metricsPort != store.port(), "a port of its own: " + metricsPort);
            int sent = 0;
            try (RawResp resp = new RawResp(store.port()))
            {
                for (int i = 0; i < 20; i++, sent++)
                {
                    assertEquals("+OK", resp.call("SET", "metrics-" + i, "v" + i));
                }
                // pipelined GETs, answered by lookups of several: each is a command with a duration of its own
                for (int i = 0; i < 50; i++, sent++)
                {
                    resp.send("GET", "metrics-" + i % 20);
                }
                for (int i = 0; i < 50; i++)
                {
                    assertEquals("$v" + i % 20, resp.read());
                }
                assertEquals("+PONG", resp.call("PING"));
                sent++;

                final HttpResponse<String> response = get(metricsPort, "/metrics");
                assertEquals(200, response.statusCode());
                assertEquals("text/plain; version=0.0.4; charset=utf-8",
                    response.headers().firstValue("content-type").orElse(null));
                final Scrape scrape = new Scrape(response.body());
                for (final Map.Entry<String, String> metric : TYPES.entrySet())
                {
                    assertEquals(metric.getValue(), scrape.types.get(metric.getKey()), "TYPE of " + metric.getKey());
                    assertTrue(scrape.helped.contains(metric.getKey()), "HELP of " + metric.getKey());
                    if (!metric.getValue().equals("summary"))
                    {
                        assertTrue(scrape.samples.containsKey(metric.getKey()), "a sample of " + metric.getKey());
                    }
                }
                assertEquals(sent, scrape.value("dkv_compute_commands_total"), "the commands sent, no more");
                assertEquals(sent, scrape.value("dkv_compute_command_duration_seconds_count"));
                assertTrue(scrape.value("dkv_compute_command_duration_seconds_sum") > 0);
                assertTrue(scrape.value(P99) > 0, "p99 once requests ran: " + scrape.value(P99));
                assertTrue(scrape.value(P50) > 0 && scrape.value(P50) <= scrape.value(P99));
                final double cpu = scrape.value("dkv_compute_cpu_utilization");
                assertTrue(cpu >= 0 && cpu <= 1, "CPU utilization " + cpu);
                assertEquals(1, scrape.value("dkv_compute_connections"), "the RESP connection open; HTTP is not one");
                assertEquals(1, scrape.value("dkv_compute_connections_received_total"));
                assertEquals(0, scrape.value("dkv_compute_connections_rejected_total"));
                assertEquals(0, scrape.value("dkv_compute_protocol_errors_total"));
                assertEquals(0, scrape.value("dkv_compute_draining"));
                assertEquals(0, scrape.value("dkv_compute_node_id"), "a node serving a client it was given has none");
                assertTrue(scrape.value("process_cpu_seconds_total") > 0);
                final double started = scrape.value("process_start_time_seconds");
                assertTrue(started > 1_600_000_000 && started <= System.currentTimeMillis() / 1e3, "start " + started);

                // the memory node's heap, by kind, once the node read its header after a walk that saw the SETs
                final String node = "{node=\"" + Long.toUnsignedString(store.memoryIds()[0]) + "\",kind=\"";
                final Scrape heaps = awaitScrape(metricsPort, "dkv_memory_node_heap_bytes" + node + "live\"}");
                assertEquals("gauge", heaps.types.get("dkv_memory_node_heap_bytes"));
                assertEquals("gauge", heaps.types.get("dkv_memory_node_chunks_pinned"));
                final double capacity = heaps.value("dkv_memory_node_heap_bytes" + node + "capacity\"}");
                final double handedOut = heaps.value("dkv_memory_node_heap_bytes" + node + "handed_out\"}");
                final double live = heaps.value("dkv_memory_node_heap_bytes" + node + "live\"}");
                assertTrue(live <= handedOut && handedOut <= capacity, live + " live of " + handedOut + " of " +
                    capacity);
                assertTrue(heaps.value("dkv_memory_node_heap_bytes" + node + "room\"}") > 0);

                final String info = resp.call("INFO", "stats");
                final double p99Usec = infoField(info, "dkv_command_p99_usec");
                assertTrue(p99Usec > 0, info);
                assertTrue(infoField(info, "dkv_command_p50_usec") <= p99Usec, info);
                final double infoCpu = infoField(info, "dkv_cpu_utilization");
                assertTrue(infoCpu >= 0 && infoCpu <= 1, info);
            }
            try (RawResp bad = new RawResp(store.port()))
            {
                bad.sendRaw("*1\r\n$x\r\n".getBytes(StandardCharsets.US_ASCII));
                assertTrue(bad.read().startsWith("-ERR Protocol error"));
                assertTrue(bad.closedByServer());
            }
            assertEquals(1, new Scrape(get(metricsPort, "/metrics").body()).value("dkv_compute_protocol_errors_total"));
        }
    }

    @Test
    void anythingButGetMetricsIsNotFoundAndWhatIsNotHttpIsClosed() throws Exception
    {
        try (TestStore store = new TestStore(new ComputeNodeContext().metricsPort(0)))
        {
            final int port = store.computeNode().metricsPort();
            assertEquals(404, get(port, "/").statusCode());
            assertEquals(404, get(port, "/metrics/more").statusCode());
            assertEquals(404, http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode());
            assertEquals(200, get(port, "/metrics?name[]=dkv_compute_connections").statusCode(), "a query aside");
            for (final String garbage : List.of(
                "GET /metrics HTTP/1.1 and then some\r\n\r\n",
                "GET /" + "m".repeat(4096) + " HTTP/1.1\r\n\r\n",
                "GET /metrics HTTP/1.1\r\nX-Big: " + "h".repeat(8192) + "\r\n\r\n",
                "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003" + "\u00ab".repeat(2048)))
            {
                assertTrue(closedUnanswered(port, garbage.getBytes(StandardCharsets.ISO_8859_1)),
                    () -> "closed without an answer: " + garbage.substring(0, Math.min(40, garbage.length())));
            }
            assertEquals(200, get(port, "/metrics").statusCode(), "still serving");
        }
    }

    @Test
    void theExpositionShowsADrainingNodeAndItsId()
    {
        final NodeStats stats = new NodeStats(SystemEpochClock.INSTANCE, SystemNanoClock.INSTANCE);
        final String before = new PrometheusText(stats, 42).render();
        assertTrue(before.contains("\ndkv_compute_draining 0\n"), before);
        assertTrue(before.contains("\ndkv_compute_node_id 42\n"), before);
        assertTrue(before.contains("\n" + P99 + " NaN\n"), "no requests in the window: no quantile, as Prometheus " +
            "has it\n" + before);
        stats.drainBegan();
        assertTrue(new PrometheusText(stats, 42).render().contains("\ndkv_compute_draining 1\n"));
    }

    @Test
    void theExpositionCarriesTheCountersOfTheDriverTheNodeEmbeds()
    {
        final StaticDirectory directory = new StaticDirectory();
        try (RaasDriver embedded = RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("shm"))
            .nodeId(71).timeoutMs(5_000), directory);
            Raas memory = RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("shm"))
                .nodeId(72).timeoutMs(5_000), directory))
        {
            memory.malloc(72, 4096, "scraped");
            final RemoteRegion region = embedded.lookup("scraped");
            final Connection connection = embedded.open(72, null);
            final MemorySegment local = MemorySegment.ofArray(new byte[8]);
            for (int i = 0; i < 7; i++)
            {
                connection.read(region, 0, local, 0, 8);
            }
            connection.faa(region, 8, 1);
            connection.faa(region, 8, 1);
            final NodeStats stats = new NodeStats(SystemEpochClock.INSTANCE, SystemNanoClock.INSTANCE);
            final String text = new PrometheusText(stats, 71, embedded.counters(),
                () -> PoolHeaders.Reading.NONE).render();
            final Scrape scrape = new Scrape(text);
            assertEquals(7, scrape.value("dkv_raas_requests_total{opcode=\"READ\"}"), text);
            assertEquals(2, scrape.value("dkv_raas_requests_total{opcode=\"FAA\"}"));
            assertEquals(0, scrape.value("dkv_raas_requests_total{opcode=\"CAS\"}"));
            assertEquals(0, scrape.value("dkv_raas_errors_total"));
            assertEquals("counter", scrape.types.get("dkv_raas_requests_total"));
            assertEquals("counter", scrape.types.get("dkv_raas_qp_stalls_total"));
            assertTrue(scrape.helped.contains("dkv_raas_credit_waits_total"));
            assertTrue(!new PrometheusText(stats, 71).render().contains("dkv_raas_"), "none without a driver");
        }
    }

    @Test
    void aNodeCountsItsUptimeAndTimesItsCommandsByTheClocksItIsGiven() throws Exception
    {
        final CachedEpochClock epochClock = new CachedEpochClock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        try (TestStore store =
            new TestStore(new ComputeNodeContext().metricsPort(0).epochClock(epochClock).nanoClock(nanoClock));
            RawResp resp = new RawResp(store.port()))
        {
            assertEquals("+PONG", resp.call("PING"));
            assertEquals("+OK", resp.call("SET", "clocked", "v"));
            epochClock.advance(TimeUnit.DAYS.toMillis(3) + 5_999);
            final String info = resp.call("INFO", "server");
            assertEquals(TimeUnit.DAYS.toSeconds(3) + 5, infoField(info, "uptime_in_seconds"), info);
            assertEquals(3, infoField(info, "uptime_in_days"), info);
            final Scrape scrape = new Scrape(get(store.computeNode().metricsPort(), "/metrics").body());
            assertEquals(3, scrape.value("dkv_compute_command_duration_seconds_count"));
            assertEquals(0, scrape.value("dkv_compute_command_duration_seconds_sum"),
                "by a clock that stands still, commands take no time");
        }
    }

    private HttpResponse<String> get(final int port, final String path) throws IOException, InterruptedException
    {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return true when the server closed the connection (an end or a reset) having written nothing. */
    private static boolean closedUnanswered(final int port, final byte[] request) throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 30_000);
            socket.setSoTimeout(60_000);
            final InputStream in = socket.getInputStream();
            try
            {
                socket.getOutputStream().write(request);
                return in.read() < 0;
            }
            catch (final SocketException ex)
            {
                return true;
            }
        }
    }

    private static double infoField(final String info, final String field)
    {
        final Matcher matcher = Pattern.compile(field + ":([0-9.]+)\r\n").matcher(info);
        assertTrue(matcher.find(), field + " in " + info);
        return Double.parseDouble(matcher.group(1));
    }

    /** One exposition: the types and helps given, and each sample by its name with labels. */
    /** @return a scrape in which {@code sample} is above 0; the node reads its memory nodes' headers each second. */
    private Scrape awaitScrape(final int metricsPort, final String sample) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Scrape scrape = new Scrape(get(metricsPort, "/metrics").body());
        while (scrape.samples.getOrDefault(sample, 0.0) <= 0)
        {
            assertTrue(System.nanoTime() < deadline, sample + " never above 0: " + scrape.samples);
            Thread.sleep(100);
            scrape = new Scrape(get(metricsPort, "/metrics").body());
        }
        return scrape;
    }

    private static final class Scrape
    {
        static final Pattern PLAIN = Pattern.compile("-?[0-9]+(\\.[0-9]+)?|NaN");

        final Map<String, String> types = new HashMap<>();
        final Set<String> helped = new HashSet<>();
        final Map<String, Double> samples = new HashMap<>();

        Scrape(final String text)
        {
            assertTrue(text.endsWith("\n"), "lines end with a line feed, the last too");
            for (final String line : text.split("\n"))
            {
                final String[] words = line.split(" ", 4);
                if (line.startsWith("# TYPE "))
                {
                    assertEquals(null, types.put(words[2], words[3]), "one TYPE for " + words[2]);
                }
                else if (line.startsWith("# HELP "))
                {
                    helped.add(words[2]);
                }
                else
                {
                    final int space = line.lastIndexOf(' ');
                    final String value = line.substring(space + 1);
                    assertTrue(PLAIN.matcher(value).matches(), "a plain decimal, for readers that parse by hand: " +
                        line);
                    samples.put(line.substring(0, space), Double.parseDouble(value));
                }
            }
        }

        double value(final String sample)
        {
            final Double value = samples.get(sample);
            assertTrue(value != null, "a sample " + sample + " among " + samples.keySet());
            return value;
        }
    }
}
