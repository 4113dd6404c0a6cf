package io.dkv.checker.linear;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Operation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Checks that a history of reads, writes and compare-and-sets on a map of registers is linearizable.
 *
 * <p>Each key is a register of its own, absent at first, so the history is linearizable exactly when each key's
 * sub-history is, and each is searched alone ({@link WglSearch}); the smaller keys first, on a few threads. Ok
 * operations take effect between their invocation and completion, failed ones not at all, indeterminate ones (info,
 * or no completion) at any time after their invocation or never.
 *
 * <p>The time budget covers the whole check: a key whose search is not done when it runs out is unknown, and so
 * is the history unless some key is invalid. A key whose cache of configurations would pass the memory limit is
 * unknown too.
 */
public final class LinearizabilityChecker
{
    public static final Duration DEFAULT_BUDGET = Duration.ofSeconds(60);
    public static final int DEFAULT_THREADS = Math.min(2, Runtime.getRuntime().availableProcessors());

    private static final Duration LONGEST_BUDGET = Duration.ofNanos(Long.MAX_VALUE / 4);

    private final Duration budget;
    private final int threads;
    private final long cacheLimitBytes;

    /** With the default budget (60 s). */
    public LinearizabilityChecker()
    {
        this(DEFAULT_BUDGET);
    }

    /** @param budget how long the whole check may take. */
    public LinearizabilityChecker(final Duration budget)
    {
        this(budget, DEFAULT_THREADS, defaultCacheLimit(DEFAULT_THREADS));
    }

    /**
     * @param budget          how long the whole check may take.
     * @param threads         how many keys are searched at once.
     * @param cacheLimitBytes how much memory one key's cache of configurations may take.
     */
    public LinearizabilityChecker(final Duration budget, final int threads, final long cacheLimitBytes)
    {
        if (budget.isNegative() || threads < 1 || cacheLimitBytes < 1024)
        {
            throw new IllegalArgumentException("budget " + budget + " must not be negative, threads " + threads +
                " at least 1, cache limit " + cacheLimitBytes + " bytes at least 1024");
        }
        this.budget = budget;
        this.threads = threads;
        this.cacheLimitBytes = cacheLimitBytes;
    }

    /** @return a quarter of the heap shared by the threads, at most 1 GiB each. */
    public static long defaultCacheLimit(final int threads)
    {
        return Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 4 / threads);
    }

    /**
     * @throws IllegalArgumentException when an operation is not a read, write or cas on a key, or a value is not
     *                                  one a register holds (an integer or null; a cas [expected, new]).
     */
    public LinearizabilityResult check(final History history)
    {
        final long start = System.nanoTime();
        // a budget of centuries stands for no limit, and must not overflow the deadline
        final long deadline = start + (budget.compareTo(LONGEST_BUDGET) < 0 ? budget : LONGEST_BUDGET).toNanos();
        final List<Map.Entry<String, List<Operation>>> keys = keysSmallestFirst(history);
        final KeyVerdict[] verdicts = new KeyVerdict[keys.size()];
        final AtomicInteger nextKey = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final String budgetText = budgetText();
        final Runnable worker = () ->
        {
            final WglSearch search = new WglSearch(cacheLimitBytes);
            int index;
            while (failure.get() == null && (index = nextKey.getAndIncrement()) < verdicts.length)
            {
                try
                {
                    final Map.Entry<String, List<Operation>> key = keys.get(index);
                    final KeyHistory keyHistory = KeyHistory.compile(key.getKey(), key.getValue());
                    verdicts[index] = System.nanoTime() - deadline >= 0 ?
                        KeyVerdict.unknown(keyHistory, 0,
                            "the time budget (" + budgetText + ") ran out before its turn") :
                        search.check(keyHistory, deadline, budgetText);
                }
                catch (final RuntimeException | Error ex)
                {
                    // the other threads stop at their next key; the caller gets the first failure
                    failure.compareAndSet(null, ex);
                }
            }
        };
        runOnThreads(worker, Math.min(threads, Math.max(1, verdicts.length)));
        if (failure.get() instanceof final RuntimeException ex)
        {
            throw ex;
        }
        if (failure.get() instanceof final Error error)
        {
            throw error;
        }
        return LinearizabilityResult.of(verdicts, Duration.ofNanos(System.nanoTime() - start));
    }

    private static List<Map.Entry<String, List<Operation>>> keysSmallestFirst(final History history)
    {
        for (final Operation operation : history.operations())
        {
            RegisterValues.requireRegisterOperation(operation);
        }
        final List<Map.Entry<String, List<Operation>>> keys = new ArrayList<>(history.byKey().entrySet());
        // a stable sort: keys of equal size stay in the order they first appear
        keys.sort(Comparator.comparingInt(key -> key.getValue().size()));
        return keys;
    }

    private static void runOnThreads(final Runnable worker, final int threadCount)
    {
        final List<Thread> helpers = new ArrayList<>(threadCount - 1);
        for (int i = 1; i < threadCount; i++)
        {
            helpers.add(Thread.ofPlatform().name("linearizability-" + i).daemon().start(worker));
        }
        worker.run();
        for (final Thread helper : helpers)
        {
            try
            {
                helper.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + helper.getName(), ex);
            }
        }
    }

    private String budgetText()
    {
        return budget.toMillis() < 10_000 ? budget.toMillis() + " ms" : budget.toSeconds() + " s";
    }

    public Duration budget()
    {
        return budget;
    }
}
