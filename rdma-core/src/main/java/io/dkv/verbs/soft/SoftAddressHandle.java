package io.dkv.verbs.soft;

import io.dkv.verbs.AddressHandle;
import io.dkv.verbs.PortAddress;

/**
 * An address handle of a software device: the port address plus whatever route the provider
 * resolved for it (a mapped device, a link), cached here on first use.
 */
public final class SoftAddressHandle implements AddressHandle
{
    private final SoftProtectionDomain pd;
    private final PortAddress address;
    private volatile Object route;
    private volatile boolean closed;

    SoftAddressHandle(final SoftProtectionDomain pd, final PortAddress address)
    {
        this.pd = pd;
        this.address = address;
    }

    public PortAddress address()
    {
        return address;
    }

    public SoftProtectionDomain pd()
    {
        return pd;
    }

    /** @return the provider's cached route, or null before first use. */
    public Object route()
    {
        return route;
    }

    public void route(final Object route)
    {
        this.route = route;
    }

    public boolean isClosed()
    {
        return closed;
    }

    public void close()
    {
        closed = true;
        route = null;
    }

    public String toString()
    {
        return "ah{" + address + '}';
    }
}
