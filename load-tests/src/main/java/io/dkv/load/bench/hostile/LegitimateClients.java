package io.dkv.load.bench.hostile;

import io.dkv.client.KvClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Clients that keep using the store while it is attacked: each thread writes values never written
 * before to keys of its own, reads each back and compares, and swaps one for another by
 * compare-and-set; every operation that fails or reads a wrong value is counted.
 */
final class LegitimateClients implements AutoCloseable
{
    private static final int KEYS_PER_THREAD = 64;

    private final KvClient client;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong wrongValues = new AtomicLong();
    private final AtomicReference<String> firstProblem = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    LegitimateClients(final KvClient client, final int threadCount)
    {
        this.client = client;
        for (int t = 0; t < threadCount; t++)
        {
            final int thread = t;
            threads.add(Thread.ofPlatform().name("legitimate-client-" + t).daemon().start(() -> run(thread)));
        }
    }

    private void run(final int thread)
    {
        long sequence = 0;
        while (running.get())
        {
            final byte[] key = ("legit-" + thread + "-" + (sequence % KEYS_PER_THREAD))
                .getBytes(StandardCharsets.UTF_8);
            final byte[] value = ("value-" + thread + "-" + sequence).getBytes(StandardCharsets.UTF_8);
            final byte[] swapped = ("swapped-" + thread + "-" + sequence).getBytes(StandardCharsets.UTF_8);
            sequence++;
            try
            {
                client.put(key, value);
                check(key, value, client.get(key));
                if (!client.compareAndSet(key, value, swapped))
                {
                    problem(wrongValues, "compare-and-set of " + new String(key, StandardCharsets.UTF_8) +
                        " found another value than the one just written");
                }
                check(key, swapped, client.get(key));
                operations.addAndGet(4);
            }
            catch (final RuntimeException ex)
            {
                problem(errors, ex.toString());
            }
        }
    }

    private void check(final byte[] key, final byte[] expected, final byte[] actual)
    {
        if (!Arrays.equals(expected, actual))
        {
            final String read = actual == null ? "(nil)" : new String(actual, StandardCharsets.UTF_8);
            problem(wrongValues,
                "read " + read + " from " + new String(key, StandardCharsets.UTF_8) + " after writing " +
                new String(expected, StandardCharsets.UTF_8));
        }
    }

    private void problem(final AtomicLong counter, final String what)
    {
        counter.incrementAndGet();
        firstProblem.compareAndSet(null, what);
    }

    long operations()
    {
        return operations.get();
    }

    long errors()
    {
        return errors.get();
    }

    long wrongValues()
    {
        return wrongValues.get();
    }

    /** @return the first error or wrong value seen, or null. */
    String firstProblem()
    {
        return firstProblem.get();
    }

    public void close() throws InterruptedException
    {
        running.set(false);
        for (final Thread thread : threads)
        {
            thread.join(30_000);
        }
    }
}
