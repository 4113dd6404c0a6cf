package io.dkv.verbs.soft;

import io.dkv.verbs.AddressHandle;
import io.dkv.verbs.DcTarget;
import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SharedReceiveQueue;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain of a software device; identified across processes by its id.
 */
public final class SoftProtectionDomain implements ProtectionDomain
{
    private final SoftDevice device;
    private final int id;
    private volatile boolean closed;

    SoftProtectionDomain(final SoftDevice device, final int id)
    {
        this.device = device;
        this.id = id;
    }

    public int id()
    {
        return id;
    }

    public SoftDevice softDevice()
    {
        return device;
    }

    public Device device()
    {
        return device;
    }

    public MemoryRegion allocate(final long size, final int access)
    {
        requireOpen();
        return device.allocate(this, size, access);
    }

    public MemoryRegion register(final MemorySegment segment, final int access)
    {
        requireOpen();
        return device.register(this, segment, access);
    }

    public QueuePair createQp(final QpInitAttributes attributes)
    {
        requireOpen();
        if (attributes.type() == QpType.DCI)
        {
            requireDc("a DC initiator");
        }
        return device.createQp(this, attributes);
    }

    public DcTarget createDct(final DctInitAttributes attributes)
    {
        requireOpen();
        requireDc("a DC target");
        return device.createDct(this, attributes);
    }

    private void requireDc(final String what)
    {
        if (!device.supportsDc())
        {
            throw new VerbsException("cannot create " + what + ": this " + device.provider() +
                " device offers no DC transport (dkv.verbs.dc=false), as an RNIC without DC");
        }
    }

    public SharedReceiveQueue createSrq(final int maxWr, final int maxSge)
    {
        requireOpen();
        return device.createSrq(this, maxWr, maxSge);
    }

    public AddressHandle createAh(final PortAddress address)
    {
        requireOpen();
        if (!address.provider().equals(device.provider()))
        {
            throw new VerbsException("device of provider " + device.provider() + " cannot reach " + address);
        }
        return new SoftAddressHandle(this, address);
    }

    boolean isClosed()
    {
        return closed;
    }

    public void close()
    {
        if (!closed)
        {
            closed = true;
            device.onClosed(this);
        }
    }

    private void requireOpen()
    {
        if (closed)
        {
            throw new VerbsException("protection domain " + id + " is closed");
        }
    }

    public String toString()
    {
        return "pd{id=" + id + '}';
    }
}
