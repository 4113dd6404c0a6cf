package io.dkv.compute;

import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MEMORY USAGE counts what a key's blocks take on its memory node: a sorted set's or a list's nodes as well as its
 * header, estimated from SAMPLES paths (redis's default 5) or counted whole with SAMPLES 0, so that it grows with the
 * elements as redis's does; its options refused as redis refuses them.
 */
class MemoryUsageTest
{
    private static final int ELEMENT_BYTES = 100;

    private static TestStore store;
    private static RawResp client;

    @BeforeAll
    static void start() throws IOException
    {
        store = new TestStore(new ComputeNodeContext());
        client = new RawResp(store.port());
    }

    @AfterAll
    static void stop() throws IOException
    {
        client.close();
        CloseHelper.close(store);
    }

    @Test
    void aListCountsItsNodesAndGrowsWithItsElements() throws IOException
    {
        fill("RPUSH", "list", 0, 2_000);
        final long small = usage("list", "SAMPLES", "0");
        assertTrue(small >= 2_000L * ELEMENT_BYTES && small <= 4_000L * ELEMENT_BYTES,
            "2,000 elements of " + ELEMENT_BYTES + " bytes take " + small);
        assertNear(small, usage("list"), "the default 5 samples");
        assertNear(small, usage("list", "SAMPLES", "1"), "one sample");
        fill("RPUSH", "list", 2_000, 4_000);
        final long large = usage("list", "SAMPLES", "0");
        assertTrue(large >= 1.8 * small && large <= 2.2 * small, "twice the elements take " + large + ", not " +
            small + " twice");
    }

    @Test
    void aSortedSetCountsBothItsTrees() throws IOException
    {
        fill("ZADD", "zset", 0, 2_000);
        final long exact = usage("zset", "SAMPLES", "0");
        // each member is in the tree by score and in the tree by member
        assertTrue(exact >= 2 * 2_000L * ELEMENT_BYTES && exact <= 4 * 2_000L * ELEMENT_BYTES,
            "2,000 members of " + ELEMENT_BYTES + " bytes take " + exact);
        assertNear(exact, usage("zset"), "the default 5 samples");
    }

    @Test
    void samplesAreANumberNotBelowZero() throws IOException
    {
        client.call("RPUSH", "short", "a");
        assertEquals("-ERR value is not an integer or out of range", client.call("MEMORY", "USAGE", "short",
            "SAMPLES", "x"));
        assertEquals("-ERR syntax error", client.call("MEMORY", "USAGE", "short", "SAMPLES", "-1"));
        assertEquals("-ERR syntax error", client.call("MEMORY", "USAGE", "short", "BOGUS", "1"));
        assertEquals("$nil", client.call("MEMORY", "USAGE", "nope"));
        assertTrue(usage("short", "SAMPLES", "0") < 1_000, "a one-element list is a header and a leaf");
    }

    private static void assertNear(final long exact, final long estimate, final String what)
    {
        assertTrue(Math.abs(estimate - exact) <= exact / 5, what + " estimate " + estimate + " against " + exact);
    }

    /** Add elements {@code from} to {@code to} (a list's, or a sorted set's with their numbers as scores). */
    private static void fill(final String command, final String key, final int from, final int to) throws IOException
    {
        for (int batch = from; batch < to; batch += 500)
        {
            final List<String> args = new ArrayList<>(List.of(command, key));
            for (int i = batch; i < Math.min(to, batch + 500); i++)
            {
                if (command.equals("ZADD"))
                {
                    args.add(Integer.toString(i));
                }
                args.add(String.format("%0" + ELEMENT_BYTES + "d", i));
            }
            final String reply = client.call(args.toArray(new String[0]));
            assertTrue(reply.startsWith(":"), reply);
        }
    }

    private static long usage(final String... keyAndOptions) throws IOException
    {
        final List<String> args = new ArrayList<>(List.of("MEMORY", "USAGE"));
        args.addAll(List.of(keyAndOptions));
        final String reply = client.call(args.toArray(new String[0]));
        assertTrue(reply.startsWith(":"), String.join(" ", args) + " answered " + reply);
        return Long.parseLong(reply.substring(1));
    }
}
