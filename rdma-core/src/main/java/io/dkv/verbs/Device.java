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

    /**
     * @return whether the device offers dynamically connected transport (DC targets and initiators): mlx5 RNICs do,
     * other RNICs do not, and the software providers do unless told not to ({@code dkv.verbs.dc=false}).
     */
    boolean supportsDc();

    /** Close the device and every object created from it. */
    void close();
}
