package io.dkv.compute;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Keys expire through RESP as in redis, judged by the store's clock: this test moves that clock (the client's and the
 * memory node's) rather than waiting, so every time it asserts is exact. The clock starts far ahead of the real one,
 * so that nothing judged by another clock could expire a key before the test says, and each test begins a whole
 * number of seconds later than anything the one before it set expires.
 */
class RespExpiryTest
{
    private static final long BETWEEN_TESTS_MILLIS = 1_000_000;

    @RegisterExtension
    static final HeldClockStore STORE = new HeldClockStore("k", "n");
    private long start;

    @BeforeEach
    void moveClockPastTheTestBefore()
    {
        STORE.clock().advance(BETWEEN_TESTS_MILLIS);
        start = STORE.clock().time();
    }

    private static String call(final String... args) throws IOException
    {
        return STORE.call(args);
    }

    @Test
    void aKeySetWithPxReadsBackUntilItsTimeThenIsGone() throws Exception
    {
        assertEquals("+OK", call("SET", "k", "v", "PX", "1000"));
        assertEquals("$v", call("GET", "k"));
        assertEquals(":1000", call("PTTL", "k"));
        assertEquals(":1", call("TTL", "k"));
        assertEquals(":" + (start + 1000), call("PEXPIRETIME", "k"));

        STORE.clock().advance(999);
        assertEquals("$v", call("GET", "k"));
        assertEquals(":1", call("PTTL", "k"));

        STORE.clock().advance(1);
        assertEquals("$nil", call("GET", "k"));
        assertEquals(":-2", call("TTL", "k"));
        assertEquals(":-2", call("PTTL", "k"));
        assertEquals(":0", call("EXISTS", "k"));
        assertEquals(":0", call("DEL", "k"));
    }

    @Test
    void expireCountsFromTheClockAndPersistTakesTheExpiryAway() throws Exception
    {
        call("SET", "k", "v");
        assertEquals(":-1", call("TTL", "k"));
        assertEquals(":1", call("EXPIRE", "k", "10"));
        assertEquals(":10000", call("PTTL", "k"));
        assertEquals(":" + (start / 1000 + 10), call("EXPIRETIME", "k"));

        STORE.clock().advance(4_000);
        assertEquals(":6", call("TTL", "k"));
        assertEquals(":1", call("PERSIST", "k"));
        assertEquals(":0", call("PERSIST", "k"));
        assertEquals(":-1", call("PTTL", "k"));

        STORE.clock().advance(60_000);
        assertEquals("$v", call("GET", "k"));
    }

    @Test
    void expireConditionsCompareWithTheKeysExpiry() throws Exception
    {
        call("SET", "k", "v");
        assertEquals(":0", call("EXPIRE", "k", "100", "XX"));
        assertEquals(":0", call("EXPIRE", "k", "100", "GT"));
        assertEquals(":1", call("EXPIRE", "k", "100", "LT"));
        assertEquals(":0", call("EXPIRE", "k", "200", "NX"));
        assertEquals(":0", call("EXPIRE", "k", "100", "GT"));
        assertEquals(":1", call("EXPIRE", "k", "200", "GT", "XX"));
        assertEquals(":0", call("PEXPIRE", "k", "200000", "LT"));
        assertEquals(":1", call("PEXPIREAT", "k", Long.toString(start + 50_000), "LT"));
        assertEquals(":50000", call("PTTL", "k"));
    }

    @Test
    void aTimeAlreadyPastDeletesTheKey() throws Exception
    {
        call("SET", "k", "v");
        assertEquals(":1", call("EXPIRE", "k", "0"));
        assertEquals(":0", call("EXISTS", "k"));

        call("SET", "k", "v");
        assertEquals(":1", call("PEXPIREAT", "k", Long.toString(start)));
        assertEquals("$nil", call("GET", "k"));

        call("SET", "k", "v");
        assertEquals("$v", call("GETEX", "k", "EXAT", Long.toString(start / 1000 - 1)));
        assertEquals(":-2", call("TTL", "k"));
        assertEquals(":0", call("EXPIRE", "k", "10"));
    }

    @Test
    void setKeepsTheExpiryOnlyWithKeepTtl() throws Exception
    {
        call("SET", "k", "v", "EX", "100");
        assertEquals("+OK", call("SET", "k", "w", "KEEPTTL"));
        assertEquals(":100", call("TTL", "k"));
        assertEquals("$w", call("SET", "k", "x", "XX", "GET", "KEEPTTL"));
        assertEquals(":100", call("TTL", "k"));
        assertEquals("+OK", call("SET", "k", "y"));
        assertEquals(":-1", call("TTL", "k"));

        assertEquals("+OK", call("SET", "k", "z", "EXAT", Long.toString(start / 1000 + 30)));
        assertEquals(":30", call("TTL", "k"));
        assertEquals("$z", call("GETSET", "k", "zz"));
        assertEquals(":-1", call("TTL", "k"));
    }

    @Test
    void countersAndAppendKeepTheExpiry() throws Exception
    {
        call("SET", "n", "1", "PX", "5000");
        assertEquals(":2", call("INCR", "n"));
        assertEquals(":12", call("INCRBY", "n", "10"));
        assertEquals(":4", call("APPEND", "n", "34"));
        assertEquals(":5000", call("PTTL", "n"));

        STORE.clock().advance(5_000);
        assertEquals(":1", call("INCR", "n"));
        assertEquals(":-1", call("TTL", "n"));
    }

    @Test
    void getExSetsOrTakesAwayTheExpiryOfTheValueItReturns() throws Exception
    {
        assertEquals("$nil", call("GETEX", "k", "EX", "-1"));
        call("SET", "k", "v");
        assertEquals("-ERR invalid expire time in 'getex' command", call("GETEX", "k", "EX", "-1"));
        assertEquals("$v", call("GETEX", "k", "PX", "2500"));
        assertEquals(":3", call("TTL", "k"));
        assertEquals("$v", call("GETEX", "k"));
        assertEquals(":2500", call("PTTL", "k"));
        assertEquals("$v", call("GETEX", "k", "PERSIST"));
        assertEquals(":-1", call("PTTL", "k"));
    }

    @Test
    void getDelReturnsTheValueItDeletes() throws Exception
    {
        call("SET", "k", "v", "EX", "10");
        assertEquals("$v", call("GETDEL", "k"));
        assertEquals(":0", call("EXISTS", "k"));
        assertEquals("$nil", call("GETDEL", "k"));
        assertEquals("+OK", call("SET", "k", "again", "NX"));
        assertEquals(":-1", call("TTL", "k"));
    }
}
