package io.dkv.compute.command;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which requests leave their event loop for a store thread even where requests run on their loop: those whose work
 * grows with the data, not with their arguments. A range of fewer than {@link UnboundedCommands#BOUND} elements, and
 * a range in error (answered at once), stay.
 */
class UnboundedCommandsTest
{
    @ParameterizedTest
    @ValueSource(strings = {"KEYS *", "dbsize", "FLUSHALL ASYNC", "flushdb", "SMEMBERS s", "HGETALL h", "hkeys h",
        "HVALS h", "SINTER a b", "SUNIONSTORE d a b", "ZUNION 2 a b", "SORT l ALPHA", "sort_ro l", "LPOS l x",
        "LREM l 0 x", "ZREMRANGEBYSCORE z 0 10", "COPY a b", "LRANGE l 0 -1", "LRANGE l 0 1024", "lrange l -5000 -1",
        "LRANGE l -1 5", "ZRANGE z 0 -1", "ZRANGE z 0 1 BYSCORE", "ZRANGE z 0 1 BYSCORE LIMIT 0 -1",
        "ZRANGE z 0 1 BYLEX LIMIT 0 5000", "ZREVRANGE z 0 -1 WITHSCORES", "ZRANGEBYSCORE z -inf +inf",
        "ZREVRANGEBYLEX z + -", "ZRANGESTORE d z 0 -1", "ZRANGESTORE d z 0 5 BYSCORE"})
    void requestsWhoseWorkGrowsWithTheDataAreUnbounded(final String request)
    {
        assertTrue(UnboundedCommands.unbounded(args(request)), request);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET k", "SET k v", "HGET h f", "HMGET h a b", "SCARD s", "SISMEMBER s m",
        "LRANGE l 0 99", "LRANGE l 0 1023", "LRANGE l -100 -1", "LRANGE l 5 1", "LRANGE l x 5", "LRANGE l",
        "ZRANGE z 0 9 WITHSCORES", "ZRANGE z 0 1 BYSCORE LIMIT 0 10", "ZRANGEBYSCORE z 0 1 LIMIT 5 100",
        "ZREVRANGE z 0 9", "ZRANGESTORE d z 0 9", "SRANDMEMBER s 5", "SSCAN s 0", "PING", "", "MGET a b"})
    void boundedRequestsAreNot(final String request)
    {
        assertFalse(UnboundedCommands.unbounded(args(request)), request);
    }

    private static byte[][] args(final String request)
    {
        return request.isEmpty() ? new byte[0][] : Arrays.stream(request.split(" "))
            .map(arg -> arg.getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
    }
}
