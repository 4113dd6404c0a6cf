package io.dkv.client.async;

import io.dkv.agent.IdleStrategies;
import io.dkv.client.replication.PersistRequests;
import io.dkv.raas.Raas;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The client's own agent for its asynchronous operations, on a daemon thread started when first needed, backing off
 * to parks of up to a millisecond while nothing arrives: it delivers completions where the client's RaaS handles do
 * not deliver them themselves (handles attached to the host's driver, whose responses only a caller polling or
 * waiting reads), and it runs the durability step of writes carried by completions ({@link PersistRequests}).
 */
public final class CompletionPolling implements Agent, ErrorHandler, AutoCloseable
{
    private final Raas[] lanes;
    private final PersistRequests persistRequests;
    private final AtomicLong errors = new AtomicLong();
    private volatile Throwable lastError;
    private AgentRunner runner;

    /**
     * @param lanes           every handle of the client; those that poll themselves are left alone.
     * @param persistRequests the durability step of writes carried by completions, or null for none.
     */
    public CompletionPolling(final Raas[] lanes, final PersistRequests persistRequests)
    {
        this.persistRequests = persistRequests;
        int count = 0;
        for (final Raas lane : lanes)
        {
            count += lane.pollsItself() ? 0 : 1;
        }
        this.lanes = new Raas[count];
        int next = 0;
        for (final Raas lane : lanes)
        {
            if (!lane.pollsItself())
            {
                this.lanes[next++] = lane;
            }
        }
    }

    /** @return true when some handle needs polling: the agent runs from the first asynchronous operation. */
    public boolean isNeeded()
    {
        return lanes.length > 0;
    }

    /** Start polling, once. */
    public synchronized void start()
    {
        if (runner == null)
        {
            runner = new AgentRunner(IdleStrategies.parse(IdleStrategies.BACKOFF_DEFAULT), this, null, this);
            AgentRunner.startOnThread(runner, runnable ->
            {
                final Thread thread = new Thread(runnable);
                thread.setDaemon(true);
                return thread;
            });
        }
    }

    public int doWork()
    {
        int work = 0;
        for (final Raas lane : lanes)
        {
            work += lane.poll();
        }
        return persistRequests == null ? work : work + persistRequests.doWork();
    }

    /** A poll failed (the attached driver's failure, which the operations waiting on it report): counted, kept. */
    public void onError(final Throwable throwable)
    {
        errors.incrementAndGet();
        lastError = throwable;
    }

    /** @return polls that failed, and the last one's error (null when none did). */
    long errors()
    {
        return errors.get();
    }

    Throwable lastError()
    {
        return lastError;
    }

    public String roleName()
    {
        return "dkv-client-completions";
    }

    public synchronized void close()
    {
        CloseHelper.quietClose(runner);
    }
}
