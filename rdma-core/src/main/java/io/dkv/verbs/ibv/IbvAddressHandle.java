package io.dkv.verbs.ibv;

import io.dkv.verbs.AddressHandle;
import io.dkv.verbs.PortAddress;

import java.lang.foreign.MemorySegment;

/**
 * An address handle of an RNIC ({@code ibv_create_ah}): the route to a remote port, with a global route header.
 */
final class IbvAddressHandle implements AddressHandle
{
    private final IbvProtectionDomain pd;
    private final IbvFunctions functions;
    private final MemorySegment ah;
    private final PortAddress address;
    private boolean closed;

    IbvAddressHandle(
        final IbvProtectionDomain pd, final IbvFunctions functions, final MemorySegment ah, final PortAddress address)
    {
        this.pd = pd;
        this.functions = functions;
        this.ah = ah;
        this.address = address;
    }

    public PortAddress address()
    {
        return address;
    }

    MemorySegment ah()
    {
        return ah;
    }

    /** @return the handle's native address, as an {@code ibv_send_wr} holds it. */
    long nativeAddress()
    {
        return ah.address();
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        pd.disown(this);
        IbvFunctions.destroy(functions.destroyAh, ah, "ibv_destroy_ah(" + address + ")");
    }
}
