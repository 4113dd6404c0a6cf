package io.dkv.verbs.tcp;

import io.dkv.verbs.Device;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsProvider;

/**
 * The {@code tcp} provider: a software RNIC for peers on other hosts, over TCP.
 */
public final class TcpProvider implements VerbsProvider
{
    public String name()
    {
        return PortAddress.TCP;
    }

    public String unavailableReason(final VerbsContext context)
    {
        return null;
    }

    public Device open(final VerbsContext context)
    {
        return new TcpDevice(context);
    }
}
