package io.dkv.compute;

import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * At the memory limit a compute node answers as redis-server does with maxmemory and noeviction, side by side: a write
 * gets {@code -OOM command not allowed when used memory > 'maxmemory'.} (dkv's figures after it), alone; inside MULTI
 * it is refused as it is queued and EXEC aborts; in a script redis.call raises it and redis.pcall returns it; reads,
 * EXPIRE, DEL, UNLINK and FLUSHALL are served. (Where redis refuses every command queued in MULTI at its limit, its
 * queue being its memory, a compute node refuses only the writes that grow the memory nodes', redis's DENYOOM: its
 * queue is its own heap's.)
 */
class RespOutOfMemoryTest
{
    private static final String OOM = "-OOM command not allowed when used memory > 'maxmemory'.";
    private static final String EXECABORT = "-EXECABORT Transaction discarded because of previous errors.";
    /** A script that catches its write's error and answers it. */
    private static final String CAUGHT = "local r = redis.pcall('set', KEYS[1], ARGV[1]) if type(r) == 'table' " +
        "and r['err'] then return 'caught ' .. r['err'] end return 'not caught'";

    @Test
    @Timeout(180)
    void atTheLimitWritesAreRefusedAsRedisRefusesThemWhileReadsAndDeletesAreServed(@TempDir final Path dir)
        throws Exception
    {
        final String binary = RedisServer.binary("redis-server");
        Assumptions.assumeTrue(binary != null, "redis-server is not installed");
        // dkv: two chunks of 4 MiB, 256 KiB of it kept for deletes; redis-server: maxmemory 4 MiB. A transaction of
        // deletes takes room for the values it deletes in its intents (their priors), a lone delete a tombstone
        try (RedisServer redis = RedisServer.start(binary, dir, "--maxmemory", "4mb", "--maxmemory-policy",
            "noeviction");
            TestStore store = new TestStore(new ComputeNodeContext(), SystemEpochClock.INSTANCE, 0, 2);
            RawResp redisResp = new RawResp(redis.port());
            RawResp dkvResp = new RawResp(store.port()))
        {
            for (final RawResp resp : List.of(redisResp, dkvResp))
            {
                final String server = resp == redisResp ? "redis-server" : "dkv";
                // a set several times the reserve for deletes, made before the limit: its DEL is served at full
                final String[] sadd = new String[2 + 30_000];
                sadd[0] = "SADD";
                sadd[1] = "a-big-set";
                for (int i = 0; i < 30_000; i++)
                {
                    sadd[2 + i] = "member-of-a-big-set-" + i;
                }
                assertEquals(":30000", resp.call(sadd), server);
                final List<String> written = fill(resp, server);
                // each refused request carries 10 KB, as redis counts a request's own bytes in its memory
                final String value = "v".repeat(10_000);

                assertTrue(resp.call("SET", "again", value).startsWith(OOM), server);
                assertTrue(resp.call("SADD", "a-new-set", value).startsWith(OOM), server + ": a collection's");
                assertEquals("+OK", resp.call("MULTI"));
                assertTrue(resp.call("SET", "in-multi", value).startsWith(OOM), server + ": refused as queued");
                assertEquals(EXECABORT, resp.call("EXEC"), server);
                final String script = resp.call("EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1",
                    "scripted", value);
                assertTrue(script.startsWith(OOM), server + ": " + script);
                final String caught = resp.call("EVAL", CAUGHT, "1", "scripted", value);
                assertTrue(caught.startsWith("$caught " + OOM.substring(1)), server + ": " + caught);

                assertEquals("$" + value, resp.call("GET", written.getFirst()), server + ": reads at full");
                assertEquals(":" + value.length(), resp.call("STRLEN", written.getLast()));
                assertEquals(":1", resp.call("EXPIRE", written.get(1), "3600"), server);
                assertEquals(":2", resp.call("DEL", written.get(2), written.get(3)), server);
                assertEquals(":1", resp.call("UNLINK", written.get(4)), server);
                assertEquals(":1", resp.call("DEL", "a-big-set"), server + ": a big set deleted at full");
                assertEquals("+OK", resp.call("FLUSHALL"), server);
                assertEquals(":0", resp.call("DBSIZE"), server);
            }
        }
    }

    @Test
    @Timeout(180)
    void configSetMaxmemoryLimitsThePoolAsItLimitsRedisAndZeroLiftsIt(@TempDir final Path dir) throws Exception
    {
        final String binary = RedisServer.binary("redis-server");
        Assumptions.assumeTrue(binary != null, "redis-server is not installed");
        // dkv: two memory nodes of 16 MiB each, so 4 MiB of maxmemory is 2 MiB of each (their share by capacity)
        try (RedisServer redis = RedisServer.start(binary, dir, "--maxmemory-policy", "noeviction");
            TestStore store = new TestStore(new ComputeNodeContext(), SystemEpochClock.INSTANCE, 0, 4, 2);
            RawResp redisResp = new RawResp(redis.port());
            RawResp dkvResp = new RawResp(store.port()))
        {
            for (final RawResp resp : List.of(redisResp, dkvResp))
            {
                final String server = resp == redisResp ? "redis-server" : "dkv";
                assertEquals("*2[$maxmemory, $0]", resp.call("CONFIG", "GET", "maxmemory"), server);
                assertEquals("+OK", resp.call("SET", "before", "v"), server);
                assertEquals("+OK", resp.call("CONFIG", "SET", "maxmemory", "4mb"), server);
                assertEquals("*2[$maxmemory, $4194304]", resp.call("CONFIG", "GET", "maxmemory"),
                    server);
                final String info = resp.call("INFO", "memory");
                assertTrue(info.contains("\r\nmaxmemory:4194304\r\n") && info.contains("maxmemory_human:4.00M\r\n"),
                    server + ": " + info);
                assertTrue(resp.call("CONFIG", "SET", "maxmemory", "lots").startsWith("-ERR CONFIG SET failed " +
                    "(possibly related to argument 'maxmemory')"), server);

                final List<String> written = fill(resp, server);
                assertEquals("$v", resp.call("GET", "before"), server + ": reads at the limit");
                assertEquals(":1", resp.call("DEL", written.getFirst()), server + ": deletes at the limit");

                assertEquals("+OK", resp.call("CONFIG", "SET", "maxmemory", "0"), server);
                assertEquals("+OK", resp.call("SET", "after", "v".repeat(10_000)), server + ": no limit again");
                assertEquals("*2[$maxmemory, $0]", resp.call("CONFIG", "GET", "maxmemory"), server);
                assertEquals("+OK", resp.call("FLUSHALL"), server);
            }
        }
    }

    /** @return the keys of the values of 10 KB the server took before its first OOM. */
    private static List<String> fill(final RawResp resp, final String server) throws Exception
    {
        final String value = "v".repeat(10_000);
        final List<String> written = new ArrayList<>();
        String reply = "+OK";
        for (int i = 0; reply.equals("+OK"); i++)
        {
            assertTrue(i < 1_000, server + ": 8 MiB takes no more than 1,000 values of 10 KB");
            reply = resp.call("SET", "key-" + i, value);
            if (reply.equals("+OK"))
            {
                written.add("key-" + i);
            }
        }
        assertTrue(reply.startsWith(OOM), server + ": " + reply);
        assertTrue(written.size() > 100, server + ": " + written.size() + " values before the limit");
        return written;
    }
}
