package io.dkv.verbs;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * An opened RDMA device, as {@code ibv_context}: the root of every other verbs object.
 */
public interface Device extends AutoCloseable
{
    /** @return the provider's name, e.g. {@code "shm"}. */
    String provider();

    /** @return where peers reach this device. */
    PortAddress address();

    DeviceAttributes attributes();

    ProtectionDomain allocPd();

    CompletionQueue createCq(int depth);

    /**
     * @return whether the device offers dynamically connected transport (DC targets and initiators): mlx5 RNICs do,
     * other RNICs do not, and the software providers do unless told not to ({@code dkv.verbs.dc=false}).
     */
    boolean supportsDc();

    /**
     * Count each receiver-not-ready retry of the queue pairs created from now on: a request the responder could not
     * take yet (no receive request posted, its queue pair still being set up) and that goes again. The software
     * providers count; an RNIC retries in hardware, unseen by verbs, so this does nothing there.
     *
     * @param counter where the retries go; incremented by whichever thread sees the responder's answer.
     */
    default void receiverNotReadyCounter(final AtomicCounter counter)
    {
    }

    /**
     * Count each message a receive queue passed over because its sender claimed room for it in a shared ring and
     * never finished writing it (the sender's process died meanwhile): shm only, where senders write into the
     * receiver's memory themselves; an RNIC drops a message whose sender stopped midway, unseen by verbs.
     *
     * @param counter where they go; incremented by the thread that drains the receive queue.
     */
    default void abandonedMessagesCounter(final AtomicCounter counter)
    {
    }

    /** Close the device and every object created from it. */
    void close();
}
