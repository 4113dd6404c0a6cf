package io.dkv.compute;

import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Redis 7.0's unit/auth.tcl, whose every test starts a server of its own (tagged external:skip: the tcl suite cannot
 * run them against a compute node), replayed against a compute node and redis-server started alike: without a
 * password, with {@code requirepass foobar}, and with the binary password {@code abc\0def}. The replies must be the
 * same, byte for byte. (Its MASTERAUTH test needs replication, which a compute node does not have.)
 */
class RespAuthDifferentialTest
{
    @Test
    void withoutAPasswordAuthFailsAsRedisSays() throws Exception
    {
        compare(null, (redis, dkv) ->
        {
            same(redis, dkv, "AUTH", "foo");
            same(redis, dkv, "AUTH", "a", "b", "c");
        });
    }

    @Test
    void withAPasswordAuthAndTheUnauthenticatedLimitsAnswerAsRedis() throws Exception
    {
        compare("foobar", (redis, dkv) ->
        {
            same(redis, dkv, "AUTH", "wrong!");
            same(redis, dkv, "SET", "foo", "bar");
            same(redis, dkv, "AUTH", "foobar");
            same(redis, dkv, "SET", "foo", "100");
            same(redis, dkv, "INCR", "foo");
        });
        compare("foobar", (redis, dkv) -> sameRaw(redis, dkv, "*100\r\n"));
        compare("foobar", (redis, dkv) -> sameRaw(redis, dkv, "*1\r\n$100000000\r\n"));
    }

    @Test
    void aBinaryPasswordAnswersAsRedis() throws Exception
    {
        compare("abc\u0000def", (redis, dkv) ->
        {
            same(redis, dkv, "AUTH".getBytes(StandardCharsets.US_ASCII), "abc".getBytes(StandardCharsets.US_ASCII));
            same(redis, dkv, "AUTH".getBytes(StandardCharsets.US_ASCII),
                "abc\u0000def".getBytes(StandardCharsets.ISO_8859_1));
            same(redis, dkv, "PING".getBytes(StandardCharsets.US_ASCII));
        });
    }

    @FunctionalInterface
    private interface Steps
    {
        void run(RawResp redis, RawResp dkv) throws Exception;
    }

    /** Run {@code steps} on a connection to each of a redis-server and a compute node started with {@code password}. */
    private static void compare(final String password, final Steps steps) throws Exception
    {
        final String binary = RedisServer.binary("redis-server");
        Assumptions.assumeTrue(binary != null, "redis-server is not installed");
        final Path dir = Files.createTempDirectory("redis-auth-");
        RedisServer redis = null;
        TestStore store = null;
        try
        {
            redis = RedisServer.start(binary, dir);
            if (password != null)
            {
                // as the tcl test does (a password with a NUL in it is no command-line argument)
                try (RawResp admin = new RawResp(redis.port()))
                {
                    assertEquals("+OK", admin.call("CONFIG".getBytes(StandardCharsets.US_ASCII),
                        "SET".getBytes(StandardCharsets.US_ASCII), "requirepass".getBytes(StandardCharsets.US_ASCII),
                        password.getBytes(StandardCharsets.ISO_8859_1)));
                }
            }
            store = new TestStore(new ComputeNodeContext().requirePass(password));
            try (RawResp theirs = new RawResp(redis.port()); RawResp ours = new RawResp(store.port()))
            {
                steps.run(theirs, ours);
            }
        }
        finally
        {
            CloseHelper.closeAll(store, redis);
            IoUtil.delete(dir.toFile(), true);
        }
    }

    private static void same(final RawResp redis, final RawResp dkv, final String... command) throws Exception
    {
        assertEquals(redis.call(command), dkv.call(command), String.join(" ", command));
    }

    private static void same(final RawResp redis, final RawResp dkv, final byte[]... command) throws Exception
    {
        assertEquals(redis.call(command), dkv.call(command), new String(command[0], StandardCharsets.US_ASCII));
    }

    private static void sameRaw(final RawResp redis, final RawResp dkv, final String raw) throws Exception
    {
        redis.sendRaw(raw.getBytes(StandardCharsets.US_ASCII));
        dkv.sendRaw(raw.getBytes(StandardCharsets.US_ASCII));
        assertEquals(redis.read(), dkv.read(), raw);
    }
}
