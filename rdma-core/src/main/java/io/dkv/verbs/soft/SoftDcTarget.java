package io.dkv.verbs.soft;

import io.dkv.verbs.DcTarget;
import io.dkv.verbs.DctInitAttributes;

/**
 * A DC target of a software device: a responder any DC initiator reaches with the target's port
 * address, number and DC key. Incoming SENDs take their buffers from the target's SRQ.
 */
public class SoftDcTarget extends SoftEndpoint implements DcTarget
{
    private final long dcKey;
    private final int accessFlags;
    private volatile boolean destroyed;

    protected SoftDcTarget(
        final SoftDevice device,
        final SoftProtectionDomain pd,
        final int number,
        final DctInitAttributes attributes)
    {
        super(device, pd, number, (SoftCompletionQueue)attributes.cq(), (SoftSharedReceiveQueue)attributes.srq(), null);
        this.dcKey = attributes.dcKey();
        this.accessFlags = attributes.accessFlags();
    }

    public int dctNumber()
    {
        return number;
    }

    public long dcKey()
    {
        return dcKey;
    }

    public int responderAccess()
    {
        return accessFlags;
    }

    public boolean acceptsRequests()
    {
        return !destroyed;
    }

    public void close()
    {
        if (!destroyed)
        {
            destroyed = true;
            onDestroy();
            device.onClosed(this);
        }
    }

    protected void onDestroy()
    {
    }

    public String toString()
    {
        return String.format("dct{num=0x%x, key=0x%x}", number, dcKey);
    }
}
