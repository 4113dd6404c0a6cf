package io.dkv.verbs;

/**
 * Address handle, as {@code ibv_ah}: the resolved route to a remote port, used by UD and DC
 * requests. Resolving may be lazy (the {@code tcp} provider connects on first use).
 */
public interface AddressHandle extends AutoCloseable
{
    PortAddress address();

    /** Destroy the handle; requests posted afterwards with it are rejected. */
    void close();
}
