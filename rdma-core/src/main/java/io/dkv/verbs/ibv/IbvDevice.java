package io.dkv.verbs.ibv;

import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.Device;
import io.dkv.verbs.DeviceAttributes;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.verbs.ibv.IbvConstants.IBV_GID_TYPE_ROCE_V1;
import static io.dkv.verbs.ibv.IbvConstants.IBV_GID_TYPE_ROCE_V2;
import static io.dkv.verbs.ibv.IbvConstants.IBV_LINK_LAYER_ETHERNET;
import static io.dkv.verbs.ibv.IbvConstants.IBV_PORT_ACTIVE;
import static io.dkv.verbs.ibv.IbvLayout.CONTEXT;
import static io.dkv.verbs.ibv.IbvLayout.DEVICE_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.GID_ENTRY;
import static io.dkv.verbs.ibv.IbvLayout.PORT_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * An RNIC opened through libibverbs: one port of it, the GID it sends from, and every object created from it, which
 * {@link #close()} destroys in reverse order before the device itself.
 */
public final class IbvDevice implements Device
{
    private final IbvFunctions functions;
    private final MemorySegment context;
    private final String name;
    private final VerbsContext verbs;
    private final int port;
    private final int gidIndex;
    private final int linkLayer;
    private final int activeMtu;
    private final int maxQpRdAtomic;
    private final boolean mlx5;
    private final DeviceAttributes attributes;
    private final PortAddress address;
    /** The context's operations the static inline verbs call: post_send, post_recv, poll_cq, post_srq_recv. */
    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment pollCq;
    final MemorySegment postSrqRecv;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private boolean closed;

    private IbvDevice(final IbvFunctions functions, final IbvDevices.Opened opened, final VerbsContext verbs)
    {
        this.functions = functions;
        this.context = opened.context().reinterpret(CONTEXT.byteSize());
        this.name = opened.name();
        this.mlx5 = opened.mlx5();
        this.verbs = verbs;
        this.port = verbs.ibvPort();
        postSend = context.get(ADDRESS, offset(CONTEXT, "ops", "post_send"));
        postRecv = context.get(ADDRESS, offset(CONTEXT, "ops", "post_recv"));
        pollCq = context.get(ADDRESS, offset(CONTEXT, "ops", "poll_cq"));
        postSrqRecv = context.get(ADDRESS, offset(CONTEXT, "ops", "post_srq_recv"));
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment device = arena.allocate(DEVICE_ATTR);
            IbvFunctions.checked((int)functions.queryDevice.invokeExact(context, device),
                "ibv_query_device(" + name + ")");
            final MemorySegment portAttr = arena.allocate(PORT_ATTR);
            IbvFunctions.checked((int)functions.queryPort.invokeExact(context, (byte)port, portAttr),
                "ibv_query_port(" + name + ", port " + port + ")");
            final int state = portAttr.get(JAVA_INT, offset(PORT_ATTR, "state"));
            if (state != IBV_PORT_ACTIVE)
            {
                throw new VerbsException("port " + port + " of " + name + " is not active (state " + state +
                    ", 4 is ACTIVE): check its link (ibv_devinfo -d " + name + "), or choose another port with " +
                    "dkv.verbs.ibv.port");
            }
            linkLayer = portAttr.get(JAVA_BYTE, offset(PORT_ATTR, "link_layer"));
            activeMtu = portAttr.get(JAVA_INT, offset(PORT_ATTR, "active_mtu"));
            final int lid = portAttr.get(JAVA_SHORT, offset(PORT_ATTR, "lid")) & 0xFFFF;
            final long maxMessage = portAttr.get(JAVA_INT, offset(PORT_ATTR, "max_msg_sz")) & 0xFFFF_FFFFL;
            final int gidTableLength = portAttr.get(JAVA_INT, offset(PORT_ATTR, "gid_tbl_len"));
            final MemorySegment gid = arena.allocate(GID_ENTRY);
            gidIndex = verbs.ibvGidIndex() >= 0 ? verbs.ibvGidIndex() : chooseGid(gidTableLength, gid);
            IbvFunctions.checked(queryGid(gidIndex, gid),
                "ibv_query_gid_ex(" + name + ", port " + port + ", index " + gidIndex + ")");
            address = PortAddress.verbs(gid.asSlice(0, 16).toArray(JAVA_BYTE), lid, activeMtu);

            maxQpRdAtomic = device.get(JAVA_INT, offset(DEVICE_ATTR, "max_qp_rd_atom"));
            final int mtu = 128 << activeMtu;
            final int maxSend = (int)Math.min(verbs.maxSendSize(), maxMessage);
            attributes = new DeviceAttributes(
                device.get(JAVA_INT, offset(DEVICE_ATTR, "max_qp")),
                device.get(JAVA_INT, offset(DEVICE_ATTR, "max_qp_wr")),
                device.get(JAVA_INT, offset(DEVICE_ATTR, "max_sge")),
                device.get(JAVA_INT, offset(DEVICE_ATTR, "max_cqe")),
                device.get(JAVA_INT, offset(DEVICE_ATTR, "max_mr")),
                IbvQueuePair.MAX_INLINE_DATA,
                mtu,
                Math.max(maxSend, mtu),
                Math.min(verbs.maxMessageSize(), maxMessage));
        }
        catch (final Throwable ex)
        {
            try
            {
                final int ignored = (int)functions.closeDevice.invokeExact(context);
            }
            catch (final Throwable suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            throw IbvFunctions.unexpected("opening " + name, ex);
        }
    }

    /**
     * Open the context's RNIC ({@link VerbsContext#ibvDevice()}, else the first listed) on its port.
     *
     * @throws VerbsException saying why when it cannot: no device of that name, the port not active, no GID.
     */
    static IbvDevice open(final VerbsContext context)
    {
        final IbvFunctions functions = IbvFunctions.bind();
        try
        {
            // registered memory must not be copied on write into a child: Java starts processes with fork
            final int ignored = (int)functions.forkInit.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_fork_init", ex);
        }
        return new IbvDevice(functions, functions.devices.open(context.ibvDevice(), functions), context);
    }

    public String provider()
    {
        return PortAddress.VERBS;
    }

    public PortAddress address()
    {
        return address;
    }

    public DeviceAttributes attributes()
    {
        return attributes;
    }

    public ProtectionDomain allocPd()
    {
        requireOpen();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = IbvFunctions.callState(arena);
            final MemorySegment pd = IbvFunctions.checked(
                (MemorySegment)functions.allocPd.invokeExact(state, context), state, "ibv_alloc_pd(" + name + ")");
            return own(new IbvProtectionDomain(this, functions, pd));
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_alloc_pd", ex);
        }
    }

    public CompletionQueue createCq(final int depth)
    {
        requireOpen();
        if (depth < 1 || depth > attributes.maxCqe())
        {
            throw new VerbsException("CQ depth " + depth + " outside 1.." + attributes.maxCqe() + " (" + name + ")");
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = IbvFunctions.callState(arena);
            final MemorySegment cq = IbvFunctions.checked((MemorySegment)functions.createCq.invokeExact(
                state, context, depth, MemorySegment.NULL, MemorySegment.NULL, 0), state,
                "ibv_create_cq(" + name + ", " + depth + ")");
            return own(new IbvCompletionQueue(this, functions, cq, depth));
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_create_cq", ex);
        }
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        VerbsException first = null;
        for (int i = owned.size() - 1; i >= 0; i--)
        {
            try
            {
                owned.get(i).close();
            }
            catch (final Exception ex)
            {
                first = first == null ? new VerbsException("closing " + name + ": " + ex.getMessage(), ex) : first;
            }
        }
        owned.clear();
        try
        {
            IbvFunctions.checked((int)functions.closeDevice.invokeExact(context), "ibv_close_device(" + name + ")");
        }
        catch (final Throwable ex)
        {
            first = first == null ? IbvFunctions.unexpected("ibv_close_device", ex) : first;
        }
        if (first != null)
        {
            throw first;
        }
    }

    public boolean supportsDc()
    {
        return DcQueuePairs.unavailableReason(this, functions) == null;
    }

    /** @return the device's name, as libibverbs lists it. */
    public String name()
    {
        return name;
    }

    /** @return the GID table entry requests are sent from. */
    public int gidIndex()
    {
        return gidIndex;
    }

    /** @return whether mlx5dv drives the device: the DC transport needs it. */
    public boolean isMlx5()
    {
        return mlx5;
    }

    public String toString()
    {
        return "verbs device " + name + " port " + port + " gid index " + gidIndex + " (" +
            (linkLayer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand") + ", MTU " + (128 << activeMtu) + ")";
    }

    int port()
    {
        return port;
    }

    int activeMtu()
    {
        return activeMtu;
    }

    int maxQpRdAtomic()
    {
        return maxQpRdAtomic;
    }

    MemorySegment context()
    {
        return context;
    }

    VerbsContext verbs()
    {
        return verbs;
    }

    synchronized <T extends AutoCloseable> T own(final T object)
    {
        owned.add(object);
        return object;
    }

    synchronized void disown(final AutoCloseable object)
    {
        owned.remove(object);
    }

    void requireOpen()
    {
        if (closed)
        {
            throw new VerbsException("device " + name + " is closed");
        }
    }

    /**
     * InfiniBand: entry 0. RoCE: a RoCE v2 entry holding an IPv4 address (routable, and what peers on the same
     * network reach), else the first RoCE v2, else the first RoCE v1.
     */
    private int chooseGid(final int tableLength, final MemorySegment entry) throws Throwable
    {
        if (linkLayer != IBV_LINK_LAYER_ETHERNET)
        {
            return 0;
        }
        int firstV2 = -1;
        int firstV1 = -1;
        for (int index = 0; index < tableLength; index++)
        {
            if (queryGid(index, entry) != 0)
            {
                continue;
            }
            final int type = entry.get(JAVA_INT, offset(GID_ENTRY, "gid_type"));
            if (type == IBV_GID_TYPE_ROCE_V2)
            {
                if (isIpv4Mapped(entry))
                {
                    return index;
                }
                firstV2 = firstV2 < 0 ? index : firstV2;
            }
            else if (type == IBV_GID_TYPE_ROCE_V1)
            {
                firstV1 = firstV1 < 0 ? index : firstV1;
            }
        }
        if (firstV2 >= 0 || firstV1 >= 0)
        {
            return firstV2 >= 0 ? firstV2 : firstV1;
        }
        throw new VerbsException("port " + port + " of " + name + " has no RoCE GID among its " + tableLength +
            " entries: give its network interface an IP address (show_gids lists the table), or set " +
            "dkv.verbs.ibv.gid.index");
    }

    private int queryGid(final int index, final MemorySegment entry) throws Throwable
    {
        return (int)functions.queryGidEx.invokeExact(context, port, index, entry, 0, GID_ENTRY.byteSize());
    }

    /** {@code ::ffff:a.b.c.d}: ten zero bytes, two 0xff. */
    static boolean isIpv4Mapped(final MemorySegment gid)
    {
        return gid.get(JAVA_LONG, 0) == 0 && gid.get(JAVA_SHORT, 8) == 0 && gid.get(JAVA_SHORT, 10) == (short)0xFFFF;
    }
}
