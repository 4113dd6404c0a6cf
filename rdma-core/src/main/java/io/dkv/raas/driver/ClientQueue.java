package io.dkv.raas.driver;

import io.dkv.raas.ServiceClass;
import org.agrona.ExpandableRingBuffer;

/**
 * How a standalone driver serves one attached client ({@link ClientScheduler}): its class and weight, and,
 * for a bulk client, its commands read from the command ring and not yet taken (each its type, then its
 * bytes), in order. Only the conductor's thread touches it.
 *
 * @param <T> what the commands are taken for: the client's session.
 */
final class ClientQueue<T>
{
    final T owner;
    final ServiceClass serviceClass;
    final int weight;
    final ExpandableRingBuffer deferred = new ExpandableRingBuffer(0, 1 << 24, false);

    ClientQueue(final T owner, final ServiceClass serviceClass, final int weight)
    {
        this.owner = owner;
        this.serviceClass = serviceClass;
        this.weight = weight;
    }
}
