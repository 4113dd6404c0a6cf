package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * SET key value IFEQ comparison-value, Valkey 8.1's compare-and-set, through RESP: it sets only a key holding exactly
 * the comparison value and answers as Valkey does. redis 7 has no IFEQ, so these replies are Valkey's as its source
 * (t_string.c's setGenericCommand) and its tests (unit/type/string.tcl) give them, not the differential test's. The
 * store's clock stands still unless a test moves it, so the times left are exact.
 */
class SetIfEqTest
{
    @RegisterExtension
    static final HeldClockStore STORE = new HeldClockStore("k", "counter");

    private static String call(final String... args) throws IOException
    {
        return STORE.call(args);
    }

    @Test
    void setsOnlyAKeyHoldingTheComparisonValue() throws Exception
    {
        assertEquals("+OK", call("SET", "k", "initial"));

        assertEquals("+OK", call("SET", "k", "new", "IFEQ", "initial"));
        assertEquals("$new", call("GET", "k"));

        assertEquals("$nil", call("SET", "k", "not-set", "ifeq", "initial"));
        assertEquals("$new", call("GET", "k"));
    }

    @Test
    void comparesWholeValuesByteForByte() throws Exception
    {
        assertEquals("+OK", call("SET", "k", "value"));

        assertEquals("$nil", call("SET", "k", "x", "IFEQ", "valu"));
        assertEquals("$nil", call("SET", "k", "x", "IFEQ", "value "));
        assertEquals("$nil", call("SET", "k", "x", "IFEQ", "VALUE"));
        assertEquals("$value", call("GET", "k"));
    }

    @Test
    void aKeyThatDoesNotExistIsNotSet() throws Exception
    {
        assertEquals("$nil", call("SET", "k", "v", "IFEQ", "anything"));
        assertEquals("$nil", call("SET", "k", "v", "IFEQ", ""));
        assertEquals(":0", call("EXISTS", "k"));
    }

    @Test
    void answersRespThreesNullWhenNotSet() throws Exception
    {
        call("HELLO", "3");
        assertEquals("_", call("SET", "k", "v", "IFEQ", "absent"));
        assertEquals("+OK", call("SET", "k", "a"));
        assertEquals("_", call("SET", "k", "v", "IFEQ", "b"));
        assertEquals("+OK", call("SET", "k", "v", "IFEQ", "a"));
    }

    @Test
    void withGetAnswersTheOldValueAndSetsOnlyOnAMatch() throws Exception
    {
        assertEquals("$nil", call("SET", "k", "new", "IFEQ", "initial", "GET"));
        assertEquals("$nil", call("GET", "k"));

        assertEquals("+OK", call("SET", "k", "initial"));
        assertEquals("$initial", call("SET", "k", "other", "GET", "IFEQ", "wrong"));
        assertEquals("$initial", call("GET", "k"));

        assertEquals("$initial", call("SET", "k", "new", "IFEQ", "initial", "GET"));
        assertEquals("$new", call("GET", "k"));
    }

    @Test
    void refusesIfEqWithNxOrXxOrTwiceOrWithoutItsValue() throws Exception
    {
        assertEquals("+OK", call("SET", "k", "a"));

        assertEquals("-ERR syntax error", call("SET", "k", "b", "IFEQ", "a", "XX"));
        assertEquals("-ERR syntax error", call("SET", "k", "b", "IFEQ", "a", "NX"));
        assertEquals("-ERR syntax error", call("SET", "k", "b", "NX", "IFEQ", "a"));
        assertEquals("-ERR syntax error", call("SET", "k", "b", "XX", "IFEQ", "a"));
        assertEquals("-ERR syntax error", call("SET", "k", "b", "IFEQ", "a", "IFEQ", "a"));
        assertEquals("-ERR syntax error", call("SET", "k", "b", "IFEQ"));
        assertEquals("$a", call("GET", "k"));
    }

    @Test
    void takesAnExpiryOrKeepsTheOneTheKeyHad() throws Exception
    {
        assertEquals("+OK", call("SET", "k", "a", "PX", "5000"));

        assertEquals("+OK", call("SET", "k", "b", "IFEQ", "a", "KEEPTTL"));
        assertEquals(":5000", call("PTTL", "k"));

        assertEquals("+OK", call("SET", "k", "c", "IFEQ", "b", "EX", "100"));
        assertEquals(":100000", call("PTTL", "k"));

        assertEquals("+OK", call("SET", "k", "d", "IFEQ", "c"));
        assertEquals(":-1", call("PTTL", "k"));

        assertEquals("$nil", call("SET", "k", "e", "IFEQ", "c", "PX", "10"));
        assertEquals(":-1", call("PTTL", "k"));
        assertEquals("$d", call("GET", "k"));
    }

    @Test
    void anExpiredKeyHoldsNothingToCompare() throws Exception
    {
        assertEquals("+OK", call("SET", "k", "a", "PX", "100"));
        STORE.clock().advance(100);

        assertEquals("$nil", call("SET", "k", "b", "IFEQ", "a"));
        assertEquals(":0", call("EXISTS", "k"));
    }

    @Test
    void theExpiryTimeIsCheckedBeforeTheComparison() throws Exception
    {
        assertEquals("+OK", call("SET", "k", "a"));

        assertEquals("-ERR invalid expire time in 'set' command", call("SET", "k", "b", "IFEQ", "zzz", "EX", "0"));
        assertEquals("-ERR value is not an integer or out of range",
            call("SET", "k", "b", "IFEQ", "a", "PX", "x"));
        assertEquals("$a", call("GET", "k"));
    }

    @Test
    @Timeout(120)
    void racingIncrementsFromSeveralConnectionsNeverLoseAnUpdate() throws Exception
    {
        final int connections = 4;
        final int incrementsEach = 100;
        assertEquals("+OK", call("SET", "counter", "0"));

        final ExecutorService pool = Executors.newFixedThreadPool(connections);
        try
        {
            final List<Future<Integer>> retries = new ArrayList<>();
            for (int c = 0; c < connections; c++)
            {
                retries.add(pool.submit(() -> increment(incrementsEach)));
            }
            int missed = 0;
            for (final Future<Integer> result : retries)
            {
                missed += result.get();
            }
            assertEquals("$" + connections * incrementsEach, call("GET", "counter"));
            System.out.println("SET IFEQ increments: " + connections * incrementsEach + " applied, " + missed +
                " compare-and-sets found the counter moved on and were retried");
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** @return how many of its compare-and-sets found the counter moved on. */
    private static int increment(final int times) throws Exception
    {
        int missed = 0;
        try (RawResp connection = new RawResp(STORE.port()))
        {
            for (int i = 0; i < times; i++)
            {
                while (true)
                {
                    final String read = connection.call("GET", "counter");
                    final long seen = Long.parseLong(read.substring(1));
                    final String reply = connection.call("SET", "counter", Long.toString(seen + 1), "IFEQ",
                        Long.toString(seen));
                    if ("+OK".equals(reply))
                    {
                        break;
                    }
                    assertEquals("$nil", reply, "a SET IFEQ not applied answers nil");
                    missed++;
                }
            }
        }
        return missed;
    }
}
