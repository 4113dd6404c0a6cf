package io.dkv.raas;

import java.time.Duration;

/**
 * Accepts connections to a service number of this node.
 */
public interface Listener extends AutoCloseable
{
    int service();

    /**
     * @return the next connection a peer opened to this service.
     * @throws RaasException on timeout.
     */
    Connection accept(Duration timeout);

    /**
     * @return the next connection a peer opened to this service, or null when none waits; never waits.
     */
    Connection poll();

    void close();
}
