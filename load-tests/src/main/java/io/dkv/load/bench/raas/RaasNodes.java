package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;
import org.agrona.CloseHelper;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Two embedded RaaS drivers of one provider in this process, sharing a directory: a client that
 * issues requests and a server that holds the memory and answers messages. A tcp device listens on
 * 127.0.0.1 only.
 */
final class RaasNodes implements AutoCloseable
{
    static final String LOOPBACK_ADDRESS = "127.0.0.1:0";
    static final long CLIENT_NODE_ID = 1;
    static final long SERVER_NODE_ID = 2;
    static final long PATH_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final StaticDirectory directory = new StaticDirectory();
    private final Raas client;
    private final Raas server;

    /**
     * @param provider whose devices the drivers open.
     * @param tune     settings both drivers get on top of the defaults.
     */
    RaasNodes(final Provider provider, final UnaryOperator<RaasContext> tune)
    {
        client = RaasDriver.start(tune.apply(context(provider, CLIENT_NODE_ID)), directory);
        try
        {
            server = RaasDriver.start(tune.apply(context(provider, SERVER_NODE_ID)), directory);
        }
        catch (final RuntimeException ex)
        {
            client.close();
            throw ex;
        }
    }

    private static RaasContext context(final Provider provider, final long nodeId)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider(provider.verbsName()).tcpAddress(LOOPBACK_ADDRESS))
            .nodeId(nodeId);
    }

    Raas client()
    {
        return client;
    }

    Raas server()
    {
        return server;
    }

    long serverId()
    {
        return server.self().id();
    }

    /**
     * Put one-sided requests on the path before anything is timed: on RC, a READ starts the
     * promotion, which completes when the server has answered.
     *
     * @param path   the path the drivers were configured for.
     * @param region a region of the server the client may read.
     */
    void settlePath(final RaasPath path, final RemoteRegion region)
    {
        if (path == RaasPath.RC)
        {
            try (Connection connection = client.open(serverId(), null))
            {
                connection.read(region, 0, MemorySegment.ofArray(new byte[Long.BYTES]), 0, Long.BYTES);
            }
        }
        awaitPath(path);
    }

    /**
     * Wait until the client's requests to the server travel on the path, once something started
     * the promotion when it is RC.
     */
    void awaitPath(final RaasPath path)
    {
        final long deadline = System.nanoTime() + PATH_TIMEOUT_NANOS;
        while (currentPath() != path)
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("the client's requests to node " + serverId() + " still travel over " +
                    currentPath() + " " + TimeUnit.NANOSECONDS.toMillis(PATH_TIMEOUT_NANOS) + " ms after asking for " +
                    path);
            }
            Thread.yield();
        }
    }

    /**
     * Check that the client's requests to the server travel on the path the run is meant to
     * measure, after the run: a figure taken on the other path must not be reported as this one's.
     *
     * @param expected the path the drivers were configured for.
     * @param what     the run, for the error.
     */
    void requirePath(final RaasPath expected, final String what)
    {
        final RaasPath actual = currentPath();
        if (actual != null && actual != expected)
        {
            throw new IllegalStateException(what + " was meant to run over " + expected +
                " but its requests travel over " + actual);
        }
    }

    /**
     * @return the path the client's requests to the server take now, or null when the driver does
     * not tell (it is not the embedded driver).
     */
    private RaasPath currentPath()
    {
        if (client instanceof RaasDriver driver)
        {
            return driver.usesRc(serverId()) ? RaasPath.RC : RaasPath.DC;
        }
        return null;
    }

    public void close()
    {
        CloseHelper.closeAll(client, server);
    }
}
