package io.dkv.raas.cnc;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * An application's handle on a standalone driver. Commands go into the driver's command ring;
 * responses and completions come back through this client's own ring, and the bytes of requests
 * through its data area, which the driver registered once: a one-sided request costs two ring
 * messages and no copy when its buffer came from {@link #allocateBuffer}.
 *
 * <p>The handle outlives its driver's restarts. Its heartbeat thread notices a driver gone (shut down, silent past
 * its timeout, or having removed this client): what was obtained through that driver (connections, listeners,
 * regions) fails from then on, saying so, and its asynchronous requests in flight complete with
 * {@link io.dkv.raas.RaasStatus#OUTCOME_UNKNOWN}. Once a driver runs under the name again the handle attaches to it
 * ({@link Attachment}): later calls go to it, and connections and regions obtained again work.
 */
public final class AttachedRaas implements Raas
{
    private static final long HEARTBEAT_INTERVAL_MS = 100;

    private final RaasContext context;
    private final EpochClock heartbeatClock;
    private final String driverName;
    private final Thread heartbeat;
    /** The attachment calls go to: replaced by the heartbeat thread alone, once its driver is gone and one is back. */
    private volatile Attachment attachment;
    /** Attachments whose driver went: kept mapped until the handle closes, since buffers of theirs may be held. */
    private final List<Attachment> abandoned = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private AttachedRaas(final RaasContext context)
    {
        this.context = context;
        // heartbeats, the driver's and this client's, are in the host's monotonic time
        this.heartbeatClock = CncDescriptor.heartbeatClock(context.nanoClock());
        this.driverName = context.driverName();
        this.attachment = new Attachment(context, heartbeatClock, 1);
        heartbeat = Thread.ofPlatform().daemon().name("dkv-raas-client-heartbeat").start(this::beat);
    }

    public static AttachedRaas attach(final RaasContext context)
    {
        return new AttachedRaas(context.conclude());
    }

    /**
     * Beat for the attachment, and when its driver is gone fail what still uses it and attach to the next driver
     * under the name, trying every interval until one is back.
     */
    private void beat()
    {
        int attachments = 1;
        while (!closed)
        {
            final Attachment current = attachment;
            current.beat();
            if (current.conductor().gone() == null)
            {
                final String why = current.lost();
                if (why != null)
                {
                    current.abandon(why);
                    abandoned.add(current);
                }
            }
            else
            {
                try
                {
                    final Attachment next = new Attachment(context, heartbeatClock, attachments + 1);
                    attachments++;
                    attachment = next;
                    if (closed)
                    {
                        // the handle closed meanwhile and may have missed it: this thread closes it
                        next.close();
                        return;
                    }
                }
                catch (final RaasException notBack)
                {
                    // no driver under the name yet, or it does not answer: tried again at the next beat
                }
            }
            try
            {
                Thread.sleep(HEARTBEAT_INTERVAL_MS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    /** @return the attachment calls go to now, failing when its driver is gone and none is back yet. */
    private Attachment attachment()
    {
        final Attachment current = attachment;
        if (closed)
        {
            throw new RaasException("this attachment to driver '" + driverName + "' is closed");
        }
        current.conductor().requireLive();
        return current;
    }

    // ---------------------------------------------------------------------------------------------
    // Raas

    public NodeRecord self()
    {
        return attachment.self();
    }

    public int session()
    {
        return attachment.number();
    }

    public NanoClock nanoClock()
    {
        return context.nanoClock();
    }

    public Connection open(final long nodeId, final CompletionHandler handler)
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(OPEN, OPEN_LENGTH, slot, new OpenFlyweight()).nodeId(nodeId));
        conductor.await(slot, "open a connection to node " + nodeId);
        final int vqpn = (int)slot.value;
        conductor.release(slot);
        return connection(attached, vqpn, nodeId, false, handler);
    }

    public Connection connect(final long nodeId, final int service, final int flags, final CompletionHandler handler)
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        Flags.validate(flags);
        final ClientSlot slot = conductor.acquire();
        final ConnectFlyweight command = conductor.claim(CONNECT, CONNECT_LENGTH, slot, new ConnectFlyweight());
        conductor.commit(command.nodeId(nodeId).service(service).flags(flags));
        conductor.await(slot, "connect to service " + service + " of node " + nodeId);
        final int vqpn = (int)slot.value;
        conductor.release(slot);
        return connection(attached, vqpn, nodeId, true, handler);
    }

    public Listener listen(final int service)
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(LISTEN, LISTEN_LENGTH, slot, new ListenFlyweight()).service(service));
        conductor.await(slot, "listen on service " + service);
        conductor.release(slot);
        return new AttachedListener(this, attached, service);
    }

    public RemoteRegion malloc(final long nodeId, final long size, final String name, final int access)
    {
        return malloc(nodeId, size, name, access, -1);
    }

    public RemoteRegion publish(final long nodeId, final String name, final MemorySegment contents, final int access)
    {
        final Attachment attached = attachment();
        final ClientDataArea area = attached.area();
        final long size = contents.byteSize();
        final long block = area.allocate(size);
        if (block < 0)
        {
            throw new RaasException("region '" + name + "' of " + size + " bytes does not fit the client data area " +
                "of " + area.memory().byteSize() + " bytes, which carries its contents to the driver " +
                "(dkv.raas.client.data.bytes)");
        }
        try
        {
            MemorySegment.copy(contents, 0, area.memory(), block, size);
            return malloc(nodeId, size, name, access, block);
        }
        finally
        {
            area.release(block);
        }
    }

    /** @param contentsOffset where in the data area the region's first contents are, -1 for zeros. */
    private RemoteRegion malloc(
        final long nodeId, final long size, final String name, final int access, final long contentsOffset)
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        final byte[] bytes = name(name);
        final ClientSlot slot = conductor.acquire();
        final MallocFlyweight command =
            conductor.claim(MALLOC, MallocFlyweight.length(bytes.length), slot, new MallocFlyweight());
        conductor.commit(command.nodeId(nodeId).size(size).access(access).dataOffset(contentsOffset).name(bytes));
        conductor.await(slot, "malloc of " + size + " bytes named '" + name + "' on node " + nodeId);
        return attached.remember(slot);
    }

    public List<NodeRecord> nodes(final int role)
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        final ClientDataArea area = attached.area();
        final ClientSlot slot = conductor.acquire();
        final int maxLength = NodesFlyweight.MAX_DATA_LENGTH;
        final long dataOffset = area.place(slot, null, 0, maxLength);
        conductor.commit(conductor.claim(NODES, NODES_LENGTH, slot, new NodesFlyweight())
            .role(role)
            .maxLength(maxLength)
            .dataOffset(dataOffset));
        conductor.await(slot, "the nodes of role " + role);
        try
        {
            // the driver's own provider: the nodes it lists are those it reaches
            return NodesFlyweight.decode(area.memory(), dataOffset, (int)slot.value,
                attached.self().address().provider());
        }
        finally
        {
            conductor.release(slot);
        }
    }

    public Membership membership()
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        final ClientDataArea area = attached.area();
        final ClientSlot slot = conductor.acquire();
        final int maxLength = MembershipFlyweight.MAX_DATA_LENGTH;
        final long dataOffset = area.place(slot, null, 0, maxLength);
        conductor.commit(conductor.claim(MEMBERSHIP, MEMBERSHIP_LENGTH, slot, new MembershipFlyweight())
            .maxLength(maxLength)
            .dataOffset(dataOffset));
        conductor.await(slot, "the membership");
        try
        {
            return MembershipFlyweight.decode(area.memory(), dataOffset, (int)slot.value);
        }
        finally
        {
            conductor.release(slot);
        }
    }

    public RemoteRegion lookup(final String name)
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        final byte[] bytes = name(name);
        final ClientSlot slot = conductor.acquire();
        final LookupFlyweight command =
            conductor.claim(LOOKUP, LookupFlyweight.length(bytes.length), slot, new LookupFlyweight());
        conductor.commit(command.name(bytes));
        conductor.await(slot, "lookup of region '" + name + "'");
        return attached.remember(slot);
    }

    private static byte[] name(final String name)
    {
        final byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_LENGTH)
        {
            throw new RaasException("region name of " + bytes.length + " bytes exceeds " + MAX_NAME_LENGTH);
        }
        return bytes;
    }

    public void free(final RemoteRegion region)
    {
        final Attachment attached = attachment();
        final ClientConductor conductor = attached.conductor();
        final int handle = attached.handle(region);
        if (handle < 0)
        {
            throw new RaasException("region '" + region.name() + "' was not obtained by this client from driver '" +
                driverName + "' (pid " + attached.driverPid() + ", " + attached.describe() + ")");
        }
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(FREE, FREE_LENGTH, slot, new FreeFlyweight()).regionHandle(handle));
        conductor.await(slot, "free of region '" + region.name() + "'");
        attached.forget(region);
        conductor.release(slot);
    }

    public void trust(final RemoteRegion region)
    {
        throw new RaasException("region of node " + region.nodeId() + " at 0x" + Long.toHexString(region.address()) +
            ": a handle attached to the standalone driver reaches only regions the driver allocated or looked up");
    }

    public MemorySegment localMemory(final RemoteRegion region)
    {
        throw new RaasException("region '" + region.name() + "' lives in the standalone driver's process; " +
            "reach it through a connection to node " + region.nodeId() + ", or give its contents at once with publish");
    }

    public MemorySegment allocateBuffer(final int size)
    {
        return attachment().area().allocateBuffer(size);
    }

    public int poll()
    {
        // the attachment's, even when its driver is gone: responses it read before it went are still delivered
        return attachment.conductor().poll();
    }

    public void idle(final int turns)
    {
        attachment.conductor().awaitResponse(turns);
    }

    public boolean pollsItself()
    {
        // responses are read by whoever waits for one or polls: the driver's process cannot call into this one
        return false;
    }

    /** A connection the attachment's driver opened for this client. */
    AttachedConnection connection(final Attachment attached,
        final int vqpn, final long nodeId, final boolean messaging, final CompletionHandler handler)
    {
        return new AttachedConnection(this, attached, vqpn, nodeId, messaging, handler);
    }

    /**
     * @return asynchronous requests a connection may have outstanding: this client's own bound, which it keeps before
     * a request reaches the driver (the driver's connection for it keeps the driver's context's, waiting on the
     * driver's conductor, which delivers completions meanwhile).
     */
    public int connectionCredits()
    {
        return context.connectionCredits();
    }

    /** @return the most a message received without a copy may hold. */
    int advertisedBytes()
    {
        return context.advertisedBytes();
    }

    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        heartbeat.interrupt();
        try
        {
            heartbeat.join(1000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        // the heartbeat thread attaches no more: the attachment read now is the last
        attachment.close();
        for (final Attachment gone : abandoned)
        {
            gone.unmap();
        }
        abandoned.clear();
    }
}
