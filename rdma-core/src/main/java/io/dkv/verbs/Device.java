package io.dkv.verbs;

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

    /** Close the device and every object created from it. */
    void close();
}
