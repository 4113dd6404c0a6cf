package io.dkv.compute;

import io.dkv.compute.command.ClusterView;
import io.dkv.compute.command.CommandEnvironment;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.command.Session;
import io.dkv.compute.metrics.LatencySnapshot;
import io.dkv.compute.resp.RespDecoder;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * GETs (and MGETs of one key) pipelined on one connection, read from the socket together, are looked up together (one
 * multiGet for a run of them) and answered in the requests' order; any other request ends a run, so that a write
 * between two reads is seen by the second, and so does an MGET of several keys, which is read as of one instant. The
 * requests arrive in one read here by construction: an embedded channel hands the connection one buffer holding them
 * all. The node's figures of them (durations, rate, uptime) are by its clocks, which the tests hold still or move.
 */
class PipelinedReadsTest
{
    private static TestStore store;
    private final CachedEpochClock epochClock = new CachedEpochClock();
    private final CachedNanoClock nanoClock = new CachedNanoClock();
    private NodeStats stats;
    private EmbeddedChannel channel;

    @BeforeAll
    static void startStore()
    {
        store = new TestStore(new ComputeNodeContext());
    }

    @AfterAll
    static void stopStore()
    {
        CloseHelper.close(store);
    }

    @BeforeEach
    void connect()
    {
        stats = new NodeStats(epochClock, nanoClock);
        final CommandTable table = new CommandTable(new CommandEnvironment(store.client(), null, stats, 0, 100,
            1 << 20, 0, ClusterView.alone(new ClusterView.Member(ClusterView.Member.id(1), "127.0.0.1", 0))));
        final RespDecoder decoder = new RespDecoder(1024, 1 << 20, 1 << 24, true, nanoClock);
        channel = new EmbeddedChannel(decoder,
            new RespConnection(table, stats, decoder, new Session(1, true, () -> { }), 10_000));
    }

    @Test
    void runsOfReadsAreLookedUpTogetherAndAWriteBetweenThemIsSeenByTheReadsAfterIt()
    {
        final String replies = send(
            "SET", "p-a", "1", "|", "GET", "p-a", "|", "GET", "p-b", "|", "MGET", "p-a", "p-b", "p-c", "|",
            "SET", "p-b", "2", "|", "GET", "p-b", "|", "MGET", "p-a", "p-b", "|", "GET", "p-a", "|",
            "PING", "|", "GET", "p-c");
        assertEquals("+OK\r\n" + "$1\r\n1\r\n" + "$-1\r\n" + "*3\r\n$1\r\n1\r\n$-1\r\n$-1\r\n" +
            "+OK\r\n" + "$1\r\n2\r\n" + "*2\r\n$1\r\n1\r\n$1\r\n2\r\n" + "$1\r\n1\r\n" +
            "+PONG\r\n" + "$-1\r\n", replies);
        assertEquals(1, stats.readBatches(), "one run of reads (GET, GET) looked up together; an MGET of several " +
            "keys ends a run and is read alone, as of one instant, and a GET alone is looked up alone");
        assertEquals(2, stats.batchedReads());
    }

    @Test
    void aHundredPipelinedGetsAreOneLookupAnsweredInOrder()
    {
        final List<String> request = new ArrayList<>();
        final StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 100; i++)
        {
            store.client().put(("p-key-" + i).getBytes(StandardCharsets.UTF_8),
                ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        for (int i = 0; i < 100; i++)
        {
            request.addAll(List.of("GET", "p-key-" + i, "|"));
            final String value = "v" + i;
            expected.append('$').append(value.length()).append("\r\n").append(value).append("\r\n");
        }
        assertEquals(expected.toString(), send(request.toArray(String[]::new)));
        assertEquals(1, stats.readBatches());
        assertEquals(100, stats.batchedReads());
    }

    @Test
    void aKeyTheStoreRefusesInARunGetsItsOwnErrorAndTheOthersTheirValues()
    {
        store.client().put("p-ok".getBytes(StandardCharsets.UTF_8), "fine".getBytes(StandardCharsets.UTF_8));
        final String replies = send("GET", "p-ok", "|", "GET", "", "|", "MGET", "p-ok", "p-none");
        assertEquals("$4\r\nfine\r\n", replies.substring(0, 10));
        assertEquals('-', replies.charAt(10), () -> "an empty key is refused with an error: " + replies);
        assertEquals("*2\r\n$4\r\nfine\r\n$-1\r\n", replies.substring(replies.indexOf("\r\n", 10) + 2));
        assertEquals(0, stats.readBatches(), "a run the store refused was answered request by request");
    }

    @Test
    void aJedisPipelineOfReadsAndWritesGetsItsRepliesInOrder()
    {
        try (Jedis jedis = new Jedis("127.0.0.1", store.port()))
        {
            final Pipeline pipeline = jedis.pipelined();
            final List<Object> expected = new ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                if (i % 7 == 0)
                {
                    pipeline.set("p-jedis", Integer.toString(i));
                    expected.add("OK");
                }
                else if (i % 5 == 0)
                {
                    pipeline.mget("p-jedis", "p-jedis-none");
                    expected.add(java.util.Arrays.asList(Integer.toString(i - i % 7), null));
                }
                else
                {
                    pipeline.get("p-jedis");
                    expected.add(Integer.toString(i - i % 7));
                }
            }
            assertEquals(expected, pipeline.syncAndReturnAll());
        }
    }

    @Test
    void commandsAreTimedAndTheRateAndUptimeTakenByTheNodesClocks()
    {
        // the clock moves a millisecond as each request goes from the decoder to the connection
        channel.pipeline().addAfter(channel.pipeline().context(RespDecoder.class).name(), "a millisecond a request",
            new ChannelInboundHandlerAdapter()
            {
                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    nanoClock.advance(TimeUnit.MILLISECONDS.toNanos(1));
                    ctx.fireChannelRead(msg);
                }
            });
        assertEquals("+PONG\r\n".repeat(8), send("PING", "|", "PING", "|", "PING", "|", "PING", "|", "PING", "|",
            "PING", "|", "PING", "|", "PING"));
        final LatencySnapshot latency = stats.latency().snapshot();
        assertEquals(8, latency.count());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(8 * 8), latency.sumNanos(),
            "decoded from one read, answered in one write 8 ms later: 8 ms each");

        nanoClock.advance(TimeUnit.MILLISECONDS.toNanos(100 - 8));
        stats.sample();
        assertEquals(8 * 10 / 16, stats.instantaneousOpsPerSec(), "8 commands in 100 ms, the first of 16 samples");
        epochClock.advance(TimeUnit.DAYS.toMillis(2) + 999);
        assertEquals(TimeUnit.DAYS.toSeconds(2), stats.uptimeSeconds());
    }

    /** Send the requests (their words, "|" between them) in one buffer, and return all the replies written. */
    private String send(final String... words)
    {
        channel.writeInbound(RespWire.requests(words));
        return RespWire.replies(channel);
    }
}
