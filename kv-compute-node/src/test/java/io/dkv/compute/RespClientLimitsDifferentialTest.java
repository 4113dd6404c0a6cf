package io.dkv.compute;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node bounds what each client holds of it as redis-server does, side by side with one: CONFIG SET and
 * GET of client-output-buffer-limit (redis's own unit/obuf-limits texts), a subscriber that never reads closed at the
 * pubsub class's hard limit and at its soft limit once traffic stopped, a reply past the normal class's limit never
 * sent, maxmemory-clients evicting the subscriber that holds most, proto-max-bulk-len refusing a longer argument, and
 * a 1.1 MB SADD of 100,000 members served. Every other connection (the publisher, a PING beside them) is served
 * throughout.
 */
class RespClientLimitsDifferentialTest
{
    /** Messages published at most while waiting for a subscriber to be closed: 64 MB of 1 KB messages. */
    private static final int MAX_PUBLISHES = 64_000;
    private static final String MESSAGE = "m".repeat(1000);
    @TempDir
    static Path dir;
    private static RedisServer redis;
    private static TestStore store;

    @BeforeAll
    static void start() throws Exception
    {
        final String binary = RedisServer.binary("redis-server");
        Assumptions.assumeTrue(binary != null, "redis-server is not installed");
        redis = RedisServer.start(binary, dir);
        store = new TestStore(new ComputeNodeContext());
    }

    @AfterAll
    static void stop() throws Exception
    {
        if (store != null)
        {
            store.close();
        }
        if (redis != null)
        {
            redis.close();
        }
    }

    private static List<Integer> ports()
    {
        return List.of(redis.port(), store.port());
    }

    private static String name(final int port)
    {
        return port == redis.port() ? "redis-server" : "dkv";
    }

    @Test
    @Timeout(60)
    void configSetOfOutputBufferLimitsIsCheckedAndReadBackAsRedisDoes() throws Exception
    {
        final List<List<String>> replies = new ArrayList<>();
        for (final int port : ports())
        {
            try (RawResp resp = new RawResp(port))
            {
                final List<String> got = new ArrayList<>();
                final String old = resp.call("CONFIG", "GET", "client-output-buffer-limit");
                for (final String value : List.of("wrong number", "invalid_class 10mb 10mb 60",
                    "master 10mb 10mb 60", "normal 10mbs 10mb 60", "replica 10mb 10mbs 60", "pubsub 10mb 10mb 60s",
                    "normal 1mb 2mb 60 replica 3mb 4mb 70 pubsub 5mb 6mb 80"))
                {
                    got.add(resp.call("CONFIG", "SET", "client-output-buffer-limit", value));
                }
                got.add(resp.call("CONFIG", "GET", "client-output-buffer-limit"));
                got.add(resp.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 2mb 60",
                    "client-output-buffer-limit", "normal 0 0 0"));
                got.add(resp.call("CONFIG", "SET", "proto-max-bulk-len", "1000"));
                got.add(resp.call("CONFIG", "SET", "client-query-buffer-limit", "10mbs"));
                got.add(resp.call("CONFIG", "GET", "proto-max-bulk-len"));
                // back as it was
                final String oldValue = old.substring(old.indexOf(", $") + 3, old.length() - 1);
                assertEquals("+OK", resp.call("CONFIG", "SET", "client-output-buffer-limit", oldValue));
                replies.add(got);
            }
        }
        assertEquals(replies.get(0), replies.get(1));
        assertTrue(replies.get(1).get(7).contains("normal 1048576 2097152 60 slave 3145728 4194304 70 " +
            "pubsub 5242880 6291456 80"), replies.get(1).get(7));
    }

    @Test
    @Timeout(120)
    void aSubscriberThatNeverReadsIsClosedAtThePubsubHardLimitAndNoOneElseWaits() throws Exception
    {
        for (final int port : ports())
        {
            try (RawResp admin = new RawResp(port);
                RawResp subscriber = new RawResp(port, 4096);
                RawResp publisher = new RawResp(port);
                RawResp beside = new RawResp(port))
            {
                assertEquals("+OK", admin.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 0 0"));
                assertEquals("*3[$subscribe, $hard, :1]", subscriber.call("SUBSCRIBE", "hard"));
                final int published = publishUntilNoOneHears(publisher, beside, "hard");
                assertTrue(published < MAX_PUBLISHES, name(port) + ": closed after " + published + " messages");
                assertEquals("*2[$hard, :0]", admin.call("PUBSUB", "NUMSUB", "hard"), name(port));
                assertEquals("+PONG", beside.call("PING"));
                assertEquals(":0", publisher.call("PUBLISH", "hard", "after"), name(port) + ": the publisher served");
                restoreLimits(admin);
            }
        }
    }

    @Test
    @Timeout(120)
    void aSubscriberAboveTheSoftLimitIsClosedOnceItsSecondsPassEvenWithNoMoreTraffic() throws Exception
    {
        for (final int port : ports())
        {
            try (RawResp admin = new RawResp(port);
                RawResp subscriber = new RawResp(port, 4096);
                RawResp publisher = new RawResp(port))
            {
                assertEquals("+OK", admin.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 1mb 1"));
                assertEquals("*3[$subscribe, $soft, :1]", subscriber.call("SUBSCRIBE", "soft"));
                // 16 MB: past what the sockets' buffers take, so that more than 1 MB is pending at the server
                for (int i = 0; i < 16_000; i++)
                {
                    publisher.send("PUBLISH", "soft", MESSAGE);
                }
                for (int i = 0; i < 16_000; i++)
                {
                    final String reply = publisher.read();
                    assertTrue(reply.equals(":1") || reply.equals(":0"), name(port) + ": " + reply);
                }
                // nothing is published any more: the close comes from the soft period's end alone
                String numsub = admin.call("PUBSUB", "NUMSUB", "soft");
                for (int polls = 0; !numsub.equals("*2[$soft, :0]") && polls < 300; polls++)
                {
                    Thread.sleep(100);
                    numsub = admin.call("PUBSUB", "NUMSUB", "soft");
                }
                assertEquals("*2[$soft, :0]", numsub, name(port) + ": closed within 30 s of its second");
                restoreLimits(admin);
            }
        }
    }

    @Test
    @Timeout(60)
    void aReplyPastTheNormalLimitIsNeverSent() throws Exception
    {
        for (final int port : ports())
        {
            try (RawResp admin = new RawResp(port);
                RawResp reader = new RawResp(port))
            {
                final String item = "x".repeat(1000);
                for (int i = 0; i < 150; i++)
                {
                    admin.call("LPUSH", "biglist", item);
                }
                assertEquals("+OK", admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0"));
                reader.send("LRANGE", "biglist", "0", "-1");
                assertTrue(reader.closedByServer(), name(port) + ": closed, its 150 KB reply not sent");
                assertEquals(":150", admin.call("LLEN", "biglist"));
                assertEquals(":1", admin.call("DEL", "biglist"));
                restoreLimits(admin);
            }
        }
    }

    @Test
    @Timeout(120)
    void maxmemoryClientsEvictsTheSubscriberHoldingMost() throws Exception
    {
        final List<String> evicted = new ArrayList<>();
        for (final int port : ports())
        {
            try (RawResp admin = new RawResp(port);
                RawResp subscriber = new RawResp(port, 4096);
                RawResp publisher = new RawResp(port);
                RawResp beside = new RawResp(port))
            {
                final long before = infoField(admin, "evicted_clients");
                assertEquals("+OK", admin.call("CONFIG", "SET", "maxmemory-clients", "4mb"));
                assertEquals("*3[$subscribe, $evict, :1]", subscriber.call("SUBSCRIBE", "evict"));
                final int published = publishUntilNoOneHears(publisher, beside, "evict");
                assertTrue(published < MAX_PUBLISHES, name(port) + ": evicted after " + published + " messages");
                evicted.add(name(port) + " evicted " + (infoField(admin, "evicted_clients") - before));
                assertEquals("+OK", admin.call("CONFIG", "SET", "maxmemory-clients", "0"));
                assertEquals(":0", publisher.call("PUBLISH", "evict", "after"));
            }
        }
        assertEquals(List.of("redis-server evicted 1", "dkv evicted 1"), evicted);
    }

    @Test
    @Timeout(60)
    void argumentsAreBoundedByProtoMaxBulkLenAndManyOfThemAreServed() throws Exception
    {
        final List<String> replies = new ArrayList<>();
        for (final int port : ports())
        {
            try (RawResp admin = new RawResp(port);
                RawResp writer = new RawResp(port))
            {
                final String[] sadd = new String[100_002];
                sadd[0] = "SADD";
                sadd[1] = "members";
                for (int i = 0; i < 100_000; i++)
                {
                    sadd[i + 2] = String.format("member:%06d", i);
                }
                replies.add(writer.call(sadd));
                replies.add(writer.call("SCARD", "members"));
                replies.add(writer.call("DEL", "members"));
                assertEquals("+OK", admin.call("CONFIG", "SET", "proto-max-bulk-len", "1mb"));
                try
                {
                    // the length alone is sent: the server refuses it and closes, the value unread
                    writer.sendRaw("*3\r\n$3\r\nSET\r\n$4\r\nlong\r\n$2097152\r\n".getBytes(StandardCharsets.US_ASCII));
                    replies.add(writer.read());
                    assertTrue(writer.closedByServer(), name(port));
                }
                finally
                {
                    assertEquals("+OK", admin.call("CONFIG", "SET", "proto-max-bulk-len", "512mb"));
                }
            }
        }
        assertEquals(replies.subList(0, 4), replies.subList(4, 8));
        assertEquals(List.of(":100000", ":100000", ":1", "-ERR Protocol error: invalid bulk length"),
            replies.subList(0, 4));
    }

    /**
     * Publish 1 KB messages until the channel has no subscriber, a PING beside each thousandth.
     *
     * @return messages published.
     */
    private static int publishUntilNoOneHears(final RawResp publisher, final RawResp beside, final String channel)
        throws IOException
    {
        int published = 0;
        while (published < MAX_PUBLISHES)
        {
            published++;
            if (publisher.call("PUBLISH", channel, MESSAGE).equals(":0"))
            {
                break;
            }
            if (published % 1000 == 0)
            {
                assertEquals("+PONG", beside.call("PING"));
            }
        }
        return published;
    }

    private static void restoreLimits(final RawResp admin) throws IOException
    {
        assertEquals("+OK", admin.call("CONFIG", "SET", "client-output-buffer-limit",
            "normal 0 0 0 pubsub 32mb 8mb 60"));
    }

    private static long infoField(final RawResp admin, final String field) throws IOException
    {
        final String info = admin.call("INFO", "stats");
        for (final String line : info.split("\r\n|\n"))
        {
            if (line.startsWith(field + ":"))
            {
                return Long.parseLong(line.substring(field.length() + 1).trim());
            }
        }
        throw new AssertionError("no " + field + " in " + new String(info.getBytes(StandardCharsets.UTF_8),
            StandardCharsets.UTF_8));
    }
}
