package io.dkv.compute;

import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

    private static final CachedEpochClock CLOCK = new CachedEpochClock();
    private static TestStore store;
    private RawResp resp;
    private long start;

    @BeforeAll
    static void startStore()
    {
        store = TestStore.withClockHeldAt2100(CLOCK);
    }

    @AfterAll
    static void stopStore()
    {
        if (store != null)
        {
            store.close();
        }
    }

    @BeforeEach
    void connect() throws Exception
    {
        CLOCK.advance(BETWEEN_TESTS_MILLIS);
        start = CLOCK.time();
        resp = new RawResp(store.port());
        resp.call("DEL", "k", "n");
    }

    @AfterEach
    void disconnect() throws Exception
    {
        resp.close();
    }

    @Test
    void aKeySetWithPxReadsBackUntilItsTimeThenIsGone() throws Exception
    {
        assertEquals("+OK", resp.call("SET", "k", "v", "PX", "1000"));
        assertEquals("$v", resp.call("GET", "k"));
        assertEquals(":1000", resp.call("PTTL", "k"));
        assertEquals(":1", resp.call("TTL", "k"));
        assertEquals(":" + (start + 1000), resp.call("PEXPIRETIME", "k"));

        CLOCK.advance(999);
        assertEquals("$v", resp.call("GET", "k"));
        assertEquals(":1", resp.call("PTTL", "k"));

        CLOCK.advance(1);
        assertEquals("$nil", resp.call("GET", "k"));
        assertEquals(":-2", resp.call("TTL", "k"));
        assertEquals(":-2", resp.call("PTTL", "k"));
        assertEquals(":0", resp.call("EXISTS", "k"));
        assertEquals(":0", resp.call("DEL", "k"));
    }

    @Test
    void expireCountsFromTheClockAndPersistTakesTheExpiryAway() throws Exception
    {
        resp.call("SET", "k", "v");
        assertEquals(":-1", resp.call("TTL", "k"));
        assertEquals(":1", resp.call("EXPIRE", "k", "10"));
        assertEquals(":10000", resp.call("PTTL", "k"));
        assertEquals(":" + (start / 1000 + 10), resp.call("EXPIRETIME", "k"));

        CLOCK.advance(4_000);
        assertEquals(":6", resp.call("TTL", "k"));
        assertEquals(":1", resp.call("PERSIST", "k"));
        assertEquals(":0", resp.call("PERSIST", "k"));
        assertEquals(":-1", resp.call("PTTL", "k"));

        CLOCK.advance(60_000);
        assertEquals("$v", resp.call("GET", "k"));
    }

    @Test
    void expireConditionsCompareWithTheKeysExpiry() throws Exception
    {
        resp.call("SET", "k", "v");
        assertEquals(":0", resp.call("EXPIRE", "k", "100", "XX"));
        assertEquals(":0", resp.call("EXPIRE", "k", "100", "GT"));
        assertEquals(":1", resp.call("EXPIRE", "k", "100", "LT"));
        assertEquals(":0", resp.call("EXPIRE", "k", "200", "NX"));
        assertEquals(":0", resp.call("EXPIRE", "k", "100", "GT"));
        assertEquals(":1", resp.call("EXPIRE", "k", "200", "GT", "XX"));
        assertEquals(":0", resp.call("PEXPIRE", "k", "200000", "LT"));
        assertEquals(":1", resp.call("PEXPIREAT", "k", Long.toString(start + 50_000), "LT"));
        assertEquals(":50000", resp.call("PTTL", "k"));
    }

    @Test
    void aTimeAlreadyPastDeletesTheKey() throws Exception
    {
        resp.call("SET", "k", "v");
        assertEquals(":1", resp.call("EXPIRE", "k", "0"));
        assertEquals(":0", resp.call("EXISTS", "k"));

        resp.call("SET", "k", "v");
        assertEquals(":1", resp.call("PEXPIREAT", "k", Long.toString(start)));
        assertEquals("$nil", resp.call("GET", "k"));

        resp.call("SET", "k", "v");
        assertEquals("$v", resp.call("GETEX", "k", "EXAT", Long.toString(start / 1000 - 1)));
        assertEquals(":-2", resp.call("TTL", "k"));
        assertEquals(":0", resp.call("EXPIRE", "k", "10"));
    }

    @Test
    void setKeepsTheExpiryOnlyWithKeepTtl() throws Exception
    {
        resp.call("SET", "k", "v", "EX", "100");
        assertEquals("+OK", resp.call("SET", "k", "w", "KEEPTTL"));
        assertEquals(":100", resp.call("TTL", "k"));
        assertEquals("$w", resp.call("SET", "k", "x", "XX", "GET", "KEEPTTL"));
        assertEquals(":100", resp.call("TTL", "k"));
        assertEquals("+OK", resp.call("SET", "k", "y"));
        assertEquals(":-1", resp.call("TTL", "k"));

        assertEquals("+OK", resp.call("SET", "k", "z", "EXAT", Long.toString(start / 1000 + 30)));
        assertEquals(":30", resp.call("TTL", "k"));
        assertEquals("$z", resp.call("GETSET", "k", "zz"));
        assertEquals(":-1", resp.call("TTL", "k"));
    }

    @Test
    void countersAndAppendKeepTheExpiry() throws Exception
    {
        resp.call("SET", "n", "1", "PX", "5000");
        assertEquals(":2", resp.call("INCR", "n"));
        assertEquals(":12", resp.call("INCRBY", "n", "10"));
        assertEquals(":4", resp.call("APPEND", "n", "34"));
        assertEquals(":5000", resp.call("PTTL", "n"));

        CLOCK.advance(5_000);
        assertEquals(":1", resp.call("INCR", "n"));
        assertEquals(":-1", resp.call("TTL", "n"));
    }

    @Test
    void getExSetsOrTakesAwayTheExpiryOfTheValueItReturns() throws Exception
    {
        assertEquals("$nil", resp.call("GETEX", "k", "EX", "-1"));
        resp.call("SET", "k", "v");
        assertEquals("-ERR invalid expire time in 'getex' command", resp.call("GETEX", "k", "EX", "-1"));
        assertEquals("$v", resp.call("GETEX", "k", "PX", "2500"));
        assertEquals(":3", resp.call("TTL", "k"));
        assertEquals("$v", resp.call("GETEX", "k"));
        assertEquals(":2500", resp.call("PTTL", "k"));
        assertEquals("$v", resp.call("GETEX", "k", "PERSIST"));
        assertEquals(":-1", resp.call("PTTL", "k"));
    }

    @Test
    void getDelReturnsTheValueItDeletes() throws Exception
    {
        resp.call("SET", "k", "v", "EX", "10");
        assertEquals("$v", resp.call("GETDEL", "k"));
        assertEquals(":0", resp.call("EXISTS", "k"));
        assertEquals("$nil", resp.call("GETDEL", "k"));
        assertEquals("+OK", resp.call("SET", "k", "again", "NX"));
        assertEquals(":-1", resp.call("TTL", "k"));
    }
}
