package io.dkv.verbs.ibv;

import io.dkv.verbs.Device;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.VerbsProvider;

/**
 * The {@code verbs} provider: an RNIC through libibverbs, and its DC transport through mlx5dv. Available where
 * libibverbs lists a device and this process may lock enough memory to register regions.
 */
public final class IbvProvider implements VerbsProvider
{
    public String name()
    {
        return PortAddress.VERBS;
    }

    public String unavailableReason(final VerbsContext context)
    {
        final String devices = IbvDevices.unavailableReason();
        if (devices != null)
        {
            return devices;
        }
        return MemlockLimit.current().shortfall(context.ibvMinMemlock());
    }

    public Device open(final VerbsContext context)
    {
        try
        {
            return IbvDevice.open(context);
        }
        catch (final VerbsException ex)
        {
            throw new VerbsException("verbs provider: " + ex.getMessage(), ex);
        }
    }
}
