package io.dkv.verbs.shm;

import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.QpState;
import io.dkv.verbs.soft.Progressor;
import io.dkv.verbs.soft.SoftDcTarget;
import io.dkv.verbs.soft.SoftProtectionDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A shm DC target: a receive ring any DC initiator on the host may write SENDs into, drained into
 * the target's SRQ when its CQ is polled. One-sided requests never reach it: initiators check its
 * entry in the control file and act on the memory directly.
 */
final class ShmDcTarget extends SoftDcTarget implements Progressor
{
    private final ShmDevice shm;
    private final Path queuePath;
    private final Arena arena = Arena.ofShared();
    private final ShmQueueFile queue;
    private final ShmRingReceiver receiver;
    private volatile boolean destroyed;

    ShmDcTarget(final ShmDevice shm, final SoftProtectionDomain pd, final int number,
        final DctInitAttributes attributes)
    {
        super(shm, pd, number, attributes);
        this.shm = shm;
        final long fileSeq = shm.nextFileSeq();
        this.queuePath = shm.directory().resolve(ShmDevice.queueFileName(fileSeq));
        final int ringLength = shm.ringCapacity();
        final MemorySegment segment = ShmFiles.create(queuePath, ShmQueueDescriptor.fileLength(0, ringLength), arena);
        this.queue = ShmQueueFile.create(segment, ShmControlDescriptor.KIND_DCT, number, 0, ringLength);
        this.receiver = new ShmRingReceiver(shm, this, queue, ShmControlDescriptor.KIND_DCT, srq.queue().maxSge());
        receiver.dcKey(attributes.dcKey());
        shm.control().putEndpoint(endpointIndex(), number, ShmControlDescriptor.KIND_DCT, QpState.RTR.ordinal(),
            pd.id(), attributes.accessFlags(), 0, attributes.dcKey(), fileSeq);
        recvCq.addProgressor(this);
    }

    private int endpointIndex()
    {
        return number & (shm.control().endpointCapacity() - 1);
    }

    public void progress()
    {
        if (destroyed || !receiver.hasMessages())
        {
            return;
        }
        synchronized (this)
        {
            if (!destroyed)
            {
                receiver.drain();
            }
        }
    }

    protected void onDestroy()
    {
        synchronized (this)
        {
            destroyed = true;
        }
        queue.markClosed();
        shm.control().clearEndpoint(endpointIndex());
        recvCq.removeProgressor(this);
        arena.close();
        ShmFiles.delete(queuePath);
    }
}
