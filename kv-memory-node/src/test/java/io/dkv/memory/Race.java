package io.dkv.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Threads a test races against each other on one store. A thread's failure (an assertion it lost
 * included) is kept and thrown by {@link #join()}, so that it fails the test rather than only its thread.
 */
final class Race
{
    /** What a thread does, given its number. */
    @FunctionalInterface
    interface Body
    {
        void run(int thread) throws Exception;
    }

    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Runnable onFailure;

    Race()
    {
        this(() -> { });
    }

    /** @param onFailure run when a thread fails, so that the others do not wait for it (at a barrier, say). */
    Race(final Runnable onFailure)
    {
        this.onFailure = onFailure;
    }

    /** Run the body on {@code count} threads, numbered from 0, and wait for them. */
    static void run(final int count, final Body body) throws InterruptedException
    {
        new Race().start(count, body).join();
    }

    /** Start {@code count} threads running the body, numbered on from those this race started before. */
    Race start(final int count, final Body body)
    {
        for (int i = 0; i < count; i++)
        {
            final int thread = threads.size();
            threads.add(Thread.ofPlatform().start(() ->
            {
                try
                {
                    body.run(thread);
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                    onFailure.run();
                }
            }));
        }
        return this;
    }

    /**
     * Wait for every thread started.
     *
     * @throws AssertionError with the first failure of any.
     */
    void join() throws InterruptedException
    {
        for (final Thread thread : threads)
        {
            thread.join();
        }
        if (failure.get() != null)
        {
            throw new AssertionError(failure.get());
        }
    }
}
