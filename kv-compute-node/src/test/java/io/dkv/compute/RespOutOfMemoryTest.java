package io.dkv.compute;

import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A write the memory nodes have no room for is answered with redis's {@code -OOM command not allowed when used memory >
 * 'maxmemory'.}, dkv's figures after it, alone, inside EXEC and from a script; reads and deletes are served as before.
 */
class RespOutOfMemoryTest
{
    private static final String OOM = "-OOM command not allowed when used memory > 'maxmemory'.";

    @Test
    @Timeout(120)
    void writesPastTheHeapAreAnsweredOomWhileReadsAndDeletesAreServed() throws Exception
    {
        // two chunks of 4 MiB, 256 KiB of it kept for deletes: some 800 values of 10 KB fill the rest. A transaction
        // of deletes takes room for the values it deletes in its intents (their priors), a lone delete a tombstone
        try (TestStore store = new TestStore(new ComputeNodeContext(), SystemEpochClock.INSTANCE, 0, 2);
            RawResp resp = new RawResp(store.port()))
        {
            final String value = "v".repeat(10_000);
            final List<String> written = new ArrayList<>();
            String reply = "+OK";
            for (int i = 0; reply.equals("+OK"); i++)
            {
                assertTrue(i < 1_000, "8 MiB of heap takes no more than 1,000 values of 10 KB");
                reply = resp.call("SET", "key-" + i, value);
                if (reply.equals("+OK"))
                {
                    written.add("key-" + i);
                }
            }
            assertTrue(reply.startsWith(OOM) && reply.contains("is full"), reply);
            assertTrue(written.size() > 400, written.size() + " values before the heap was full");

            assertTrue(resp.call("SET", "again", value).startsWith(OOM));
            assertTrue(resp.call("SADD", "a-new-set", "member").startsWith(OOM), "a collection's write too");
            assertEquals("+OK", resp.call("MULTI"));
            assertEquals("+QUEUED", resp.call("SET", "in-multi", value));
            final String exec = resp.call("EXEC");
            assertTrue(exec.contains(OOM), exec);
            final String script = resp.call("EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "scripted",
                value);
            assertTrue(script.startsWith(OOM), script);

            assertEquals("$" + value, resp.call("GET", written.getFirst()), "reads are served at full");
            assertEquals(":" + value.length(), resp.call("STRLEN", written.getLast()));
            assertEquals(":1", resp.call("EXPIRE", written.get(1), "3600"));
            assertEquals(":2", resp.call("DEL", written.get(2), written.get(3)));
            assertEquals(":1", resp.call("UNLINK", written.get(4)));
            assertEquals("+OK", resp.call("FLUSHALL"));
            assertEquals(":0", resp.call("DBSIZE"));
        }
    }
}
