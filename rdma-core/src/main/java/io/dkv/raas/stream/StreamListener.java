package io.dkv.raas.stream;

import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.Raas;

import java.time.Duration;

/** Accepts streams peers connect to a service of this node ({@link RaasStream#connect}). */
public final class StreamListener implements AutoCloseable
{
    private final Raas raas;
    private final Listener listener;
    private final StreamContext context;

    private StreamListener(final Raas raas, final Listener listener, final StreamContext context)
    {
        this.raas = raas;
        this.listener = listener;
        this.context = context;
    }

    /** Accept streams on a service of this node with the default {@link StreamContext}. */
    public static StreamListener listen(final Raas raas, final int service)
    {
        return listen(raas, service, new StreamContext());
    }

    public static StreamListener listen(final Raas raas, final int service, final StreamContext context)
    {
        return new StreamListener(raas, raas.listen(service), context);
    }

    public int service()
    {
        return listener.service();
    }

    /**
     * @return the next stream a peer opened, once both ends described their stream buffers.
     * @throws io.dkv.raas.RaasException when none comes within the timeout.
     */
    public RaasStream accept(final Duration timeout)
    {
        final Connection connection = listener.accept(timeout);
        return RaasStream.open(raas, connection, context);
    }

    public void close()
    {
        listener.close();
    }
}
