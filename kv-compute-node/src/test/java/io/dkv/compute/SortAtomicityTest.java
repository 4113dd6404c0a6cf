package io.dkv.compute;

import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SORT is one transaction over every key it reads and writes, whichever of three memory nodes hold them: while MSETs
 * rewrite every weight to a new generation, a SORT BY the weights that GETs them answers one generation only, and a
 * SORT ... STORE writes one generation only, never a mix of before and after. Counts are small and fixed for two busy
 * cores; nothing is timed.
 */
class SortAtomicityTest
{
    private static final int ELEMENTS = 12;
    private static final int READERS = 3;
    private static final int ROUNDS = 40;
    private static final Pattern BULK = Pattern.compile("\\$(-?\\d+)");

    private static TestStore store;

    @BeforeAll
    static void start()
    {
        store = new TestStore(new ComputeNodeContext(), SystemEpochClock.INSTANCE, 0, TestStore.HEAP_CHUNKS / 4, 3);
    }

    @AfterAll
    static void stop()
    {
        if (store != null)
        {
            store.close();
        }
    }

    @Test
    void aSortReadsAndStoresOneGenerationOfItsWeights() throws Exception
    {
        try (RawResp setup = new RawResp(store.port()))
        {
            final List<String> push = new ArrayList<>(List.of("RPUSH", "l"));
            for (int i = 0; i < ELEMENTS; i++)
            {
                push.add(Integer.toString(i));
            }
            setup.call(push.toArray(new String[0]));
            setup.call(mset(0));
        }
        final AtomicBoolean done = new AtomicBoolean();
        final ExecutorService threads = Executors.newFixedThreadPool(READERS + 1);
        try
        {
            final Future<Integer> writer = threads.submit(() ->
            {
                int generation = 0;
                try (RawResp connection = new RawResp(store.port()))
                {
                    while (!done.get())
                    {
                        assertEquals("+OK", connection.call(mset(++generation)));
                    }
                }
                return generation;
            });
            final List<Future<Set<String>>> readers = new ArrayList<>();
            for (int r = 0; r < READERS; r++)
            {
                final String destination = "dst" + r;
                readers.add(threads.submit(() ->
                {
                    final Set<String> seen = new HashSet<>();
                    try (RawResp connection = new RawResp(store.port()))
                    {
                        for (int round = 0; round < ROUNDS; round++)
                        {
                            seen.add(oneGeneration(connection.call("SORT", "l", "BY", "w_*", "GET", "w_*")));
                            assertEquals(":" + ELEMENTS, connection.call("SORT", "l", "BY", "nosort", "GET", "w_*",
                                "STORE", destination));
                            seen.add(oneGeneration(connection.call("LRANGE", destination, "0", "-1")));
                        }
                    }
                    return seen;
                }));
            }
            final Set<String> generations = new HashSet<>();
            for (final Future<Set<String>> reader : readers)
            {
                generations.addAll(reader.get());
            }
            done.set(true);
            final int written = writer.get();
            assertTrue(written > 0, "the writer wrote");
            assertTrue(!generations.isEmpty(), "the readers read");
        }
        finally
        {
            done.set(true);
            threads.shutdownNow();
        }
    }

    /** @return the one generation every value of the reply holds; fails when they are not all the same. */
    private static String oneGeneration(final String reply)
    {
        final Matcher value = BULK.matcher(reply);
        final Set<String> values = new HashSet<>();
        int count = 0;
        while (value.find())
        {
            values.add(value.group(1));
            count++;
        }
        assertEquals(ELEMENTS, count, reply);
        assertEquals(1, values.size(), () -> "a SORT saw several generations of its weights: " + reply);
        return values.iterator().next();
    }

    /** @return an MSET of every weight to {@code generation}, the same for all (so ties are broken by element). */
    private static String[] mset(final int generation)
    {
        final List<String> mset = new ArrayList<>(List.of("MSET"));
        for (int i = 0; i < ELEMENTS; i++)
        {
            mset.add("w_" + i);
            mset.add(Integer.toString(generation));
        }
        return mset.toArray(new String[0]);
    }
}
