package io.dkv.client.txn;

import io.dkv.agent.IdleStrategies;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent that runs committed transactions' resolutions after their answer (client/README.md, "Parallel commit"):
 * committing threads offer them to a bounded queue, which costs them no wake-up of another thread, and the agent's
 * own thread, started at the first offer, runs them one after the other, parking while none come. A full queue
 * refuses: the committing thread resolves its own before it answers, so that intents are never left faster than
 * they are resolved. A waiter that meets a STAGING record before its resolution runs decides it itself once every
 * intent is in, and a committed intent reads as its new value, so the agent's parks delay no reader. One per client.
 */
public final class Resolutions implements Agent, ErrorHandler, AutoCloseable
{
    /**
     * No spins or yields between polls, parks from 20 us to 1 ms: a resolution waits a little for its turn, and the
     * agent takes no core from the committing threads while none come (spinning, it halved MSET's rate on 2 cores).
     */
    private static final String IDLE = "backoff:0,0,20000,1000000";

    private final ManyToOneConcurrentArrayQueue<Runnable> queue;
    private final AtomicLong errors = new AtomicLong();
    private volatile Throwable lastError;
    private AgentRunner runner;
    private volatile boolean closed;

    /** @param capacity resolutions queued at most; 0: none, each committing thread runs its own. */
    public Resolutions(final int capacity)
    {
        queue = capacity == 0 ? null : new ManyToOneConcurrentArrayQueue<>(capacity);
    }

    /** @return false when it was not taken (the queue full, or none, or the client closing): the caller runs it. */
    boolean offer(final Runnable resolution)
    {
        if (queue == null || closed || !queue.offer(resolution))
        {
            return false;
        }
        if (runner == null)
        {
            start();
        }
        return true;
    }

    private synchronized void start()
    {
        if (runner == null && !closed)
        {
            final AgentRunner started =
                new AgentRunner(IdleStrategies.parse(IDLE), this, null, this);
            AgentRunner.startOnThread(started, runnable ->
            {
                final Thread thread = new Thread(runnable);
                thread.setDaemon(true);
                return thread;
            });
            runner = started;
        }
    }

    public int doWork()
    {
        return queue.drain(Runnable::run);
    }

    /** A resolution failed past what it handles itself: counted, kept; whoever meets its intents finishes it. */
    public void onError(final Throwable throwable)
    {
        errors.incrementAndGet();
        lastError = throwable;
    }

    /** @return resolutions that failed, counted. */
    public long errors()
    {
        return errors.get();
    }

    /** @return the last failed resolution's error, or null. */
    public Throwable lastError()
    {
        return lastError;
    }

    public String roleName()
    {
        return "dkv-client-resolutions";
    }

    /**
     * Stop the agent, then run what is still queued on the calling thread: the client closes its sessions only after.
     * An offer from here on is refused, and its committing thread runs its own.
     */
    public void close()
    {
        synchronized (this)
        {
            closed = true;
            CloseHelper.quietClose(runner);
        }
        if (queue != null)
        {
            queue.drain(Runnable::run);
        }
    }
}
