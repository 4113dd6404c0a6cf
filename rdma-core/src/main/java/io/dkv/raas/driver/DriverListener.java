package io.dkv.raas.driver;

import io.dkv.agent.Waits;
import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A service's listener: connections peers opened wait here until accepted.
 */
final class DriverListener implements Listener
{
    private final MessageService messages;
    private final RequestPipeline pipeline;
    private final NanoClock nanoClock;
    private final long nodeId;
    private final int service;
    private final ConcurrentLinkedQueue<DriverConnection> accepted = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    DriverListener(final MessageService messages, final RequestPipeline pipeline, final long nodeId, final int service)
    {
        this.nodeId = nodeId;
        this.messages = messages;
        this.pipeline = pipeline;
        this.nanoClock = pipeline.nanoClock();
        this.service = service;
    }

    public int service()
    {
        return service;
    }

    /** @return the node it listens as: its driver's, or one an attached application is. */
    long nodeId()
    {
        return nodeId;
    }

    void offer(final DriverConnection connection)
    {
        accepted.add(connection);
    }

    /** The driver reclaimed the connection before the application took it. */
    void forget(final DriverConnection connection)
    {
        accepted.remove(connection);
    }

    /** @return the oldest connection waiting that the driver did not close meanwhile, or null. */
    private DriverConnection next()
    {
        DriverConnection connection;
        while ((connection = accepted.poll()) != null && connection.isClosed())
        {
            // reclaimed while it waited
        }
        return connection;
    }

    public Connection accept(final Duration timeout)
    {
        final long deadline = nanoClock.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (true)
        {
            if (closed)
            {
                throw new RaasException("listener on service " + service + " is closed");
            }
            final DriverConnection connection = next();
            if (connection != null)
            {
                return connection;
            }
            if (pipeline.poll() == 0)
            {
                // a peer's connect may be seconds away: park rather than take a core from the processes it waits on
                Waits.idle(++spins);
                if (nanoClock.nanoTime() > deadline)
                {
                    throw new RaasException(
                        "no connection to service " + service + " within " + timeout.toMillis() + " ms");
                }
            }
        }
    }

    public Connection poll()
    {
        if (closed)
        {
            throw new RaasException("listener on service " + service + " is closed");
        }
        return next();
    }

    public void close()
    {
        closed = true;
        messages.removeListener(this);
        DriverConnection connection;
        while ((connection = accepted.poll()) != null)
        {
            connection.close();
        }
    }
}
