package io.dkv.verbs.tcp;

import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.soft.SoftDcTarget;
import io.dkv.verbs.soft.SoftDevice;
import io.dkv.verbs.soft.SoftProtectionDomain;
import io.dkv.verbs.soft.SoftQueuePair;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * A tcp device: a NIC engine listening on the configured address, and one outbound link per peer
 * device, connected on first use and cached.
 */
public final class TcpDevice extends SoftDevice
{
    static final int MAX_INLINE_DATA = 1024;

    private final TcpNicEngine engine;
    private final PortAddress address;
    private final Map<PortAddress, OutboundLink> links = new HashMap<>();

    TcpDevice(final VerbsContext context)
    {
        super(context, MAX_INLINE_DATA);
        final PortAddress requested = PortAddress.parse(PortAddress.TCP + ':' + context.tcpAddress());
        final InetSocketAddress bind = requested.tcpSocketAddress();
        if (bind.getAddress().isAnyLocalAddress())
        {
            throw new VerbsException("tcp address " + context.tcpAddress() +
                " is a wildcard; give the IP peers reach this host at");
        }
        try
        {
            this.engine = new TcpNicEngine(this, bind);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("tcp NIC engine cannot listen on " + context.tcpAddress() + ": " + ex.getMessage(),
                ex);
        }
        this.address = PortAddress.tcp(engine.boundAddress());
        engine.start();
    }

    public String provider()
    {
        return PortAddress.TCP;
    }

    public PortAddress address()
    {
        return address;
    }

    /** @return the engine's thread (for measuring what it allocates). */
    public Thread engineThread()
    {
        return engine.thread();
    }

    /** @return how many links the engine has cut off for misbehaving. */
    public long linksCutOff()
    {
        return engine.linksCutOff();
    }

    /** @return why the engine last cut a link off, or null. */
    public String lastCutOffReason()
    {
        return engine.lastCutOffReason();
    }

    /** @return links the engine serves now, accepted and initiated. */
    public int linkCount()
    {
        return engine.linkCount();
    }

    /** @return bytes of link staging buffers allocated now: bounded by links times twice the buffer size. */
    public long linkBufferBytes()
    {
        return engine.linkBufferBytes();
    }

    /** @return links peers opened to this device that the engine serves now. */
    public int inboundLinkCount()
    {
        return engine.inboundLinkCount();
    }

    /** @return bytes of staging buffers held by links peers opened: what peers can make the engine hold. */
    public long inboundLinkBufferBytes()
    {
        return engine.inboundBufferBytes();
    }

    /** @return DC initiators of peers whose state (an error, an awaited retransmission) the links hold now. */
    public long dcSourceStates()
    {
        return engine.dcSourceStates();
    }

    TcpNicEngine engine()
    {
        return engine;
    }

    /**
     * The link to a peer device, connected now if there is none.
     *
     * @throws VerbsException when the peer cannot be reached.
     */
    OutboundLink link(final PortAddress peer)
    {
        final OutboundLink link;
        synchronized (links)
        {
            final OutboundLink existing = links.get(peer);
            if (existing != null && existing.isUsable())
            {
                return existing;
            }
            requireOpen();
            final InetSocketAddress target = peer.tcpSocketAddress();
            SocketChannel channel = null;
            try
            {
                channel = SocketChannel.open();
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.socket().connect(target, context.tcpConnectTimeoutMs());
                channel.configureBlocking(false);
            }
            catch (final IOException ex)
            {
                if (channel != null)
                {
                    try
                    {
                        channel.close();
                    }
                    catch (final IOException ignore)
                    {
                        // already failing
                    }
                }
                throw new VerbsException("cannot reach " + peer + " within " + context.tcpConnectTimeoutMs() + " ms: " +
                    ex.getMessage(), ex);
            }
            link = new OutboundLink(engine, this, channel, peer);
            links.put(peer, link);
            engine.addLink(link);
        }
        // out of the map's monitor: a link's flush may close it, and closing takes the map's monitor under the
        // link's (the engine's flush), so waiting for the link's monitor while holding the map could deadlock
        link.flushFromPoster();
        return link;
    }

    void onLinkClosed(final OutboundLink link)
    {
        synchronized (links)
        {
            links.remove(link.peerAddress(), link);
        }
        forEachEndpoint(endpoint ->
        {
            if (endpoint instanceof TcpQueuePair qp)
            {
                qp.onLinkClosed(link);
            }
        });
    }

    protected RegionMemory allocateMemory(final int key, final long size, final int access)
    {
        final Arena arena = Arena.ofShared();
        final MemorySegment segment = arena.allocate(size, 4096);
        return new RegionMemory(segment, arena::close);
    }

    protected void checkRegister(final MemorySegment segment, final int access)
    {
        // the engine reaches any native memory of this process
    }

    protected SoftQueuePair newQueuePair(final SoftProtectionDomain pd, final int number,
        final QpInitAttributes attributes)
    {
        return new TcpQueuePair(this, pd, number, attributes);
    }

    protected SoftDcTarget newDcTarget(final SoftProtectionDomain pd, final int number,
        final DctInitAttributes attributes)
    {
        return new TcpDcTarget(this, pd, number, attributes);
    }

    protected void beforeClose()
    {
        // the engine stops first so that nothing serves requests while objects are destroyed
        engine.close();
    }

    public String toString()
    {
        return "tcp device " + address;
    }

    static final class TcpDcTarget extends SoftDcTarget
    {
        TcpDcTarget(final TcpDevice device, final SoftProtectionDomain pd, final int number,
            final DctInitAttributes attributes)
        {
            super(device, pd, number, attributes);
        }
    }
}
