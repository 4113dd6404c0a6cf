package io.dkv.compute;

import io.dkv.compute.command.ClusterView;
import io.dkv.raas.Connection;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live compute nodes, found through the node's RaaS handle: the MetaServer lists them (role compute), and each
 * publishes where its RESP port is in a small region named {@code dkv.compute.<node id>}, which the others read once
 * per incarnation. A node's record gives its RaaS address, not its RESP port, and several nodes may share a host, so
 * no convention could tell the port; the region table is where dkv already publishes what peers must find by name,
 * and a read of it costs the readers one one-sided READ while the node publishing spends no CPU on it.
 *
 * <p>The region holds a length (a short) and then {@code host:port} in ASCII. A node not yet readable (its region not
 * published or not yet written) is left out until a later ask finds it; a node gone is left out as soon as the
 * MetaServer stops listing it.
 *
 * <p>Behind the host's standalone driver the region lives in the driver: one that restarts loses it, and the node
 * publishes it again once its handle attached to the next one ({@link #keepPublished}, which the node calls every
 * {@link #REPUBLISH_CHECK_MS}).
 */
final class RaasClusterView implements ClusterView, AutoCloseable
{
    static final String REGION_PREFIX = "dkv.compute.";
    static final int REGION_BYTES = 128;
    /** How often the node looks whether its handle moved to a new driver session, where its region is not yet. */
    static final long REPUBLISH_CHECK_MS = 100;

    private final Raas raas;
    private final Member self;
    private final MemorySegment contents;
    private final Object publishing = new Object();
    /** The region as published in {@link #publishedSession}: replaced under {@link #publishing}. */
    private volatile RemoteRegion published;
    private volatile int publishedSession;
    /** Read under this view's lock, in the session {@link #readSession} gave it. */
    private MemorySegment readBuffer;
    private int readSession;
    /** Nodes read, by id; kept while the listed epoch is the one read. */
    private final Map<Long, Known> known = new HashMap<>();

    private record Known(long epoch, Member member)
    {
    }

    /**
     * Publish where this node serves RESP.
     *
     * @param raas        the node's handle.
     * @param bindAddress the address it listens on: the host it announces, unless a wildcard.
     * @param port        the RESP port it serves.
     */
    RaasClusterView(final Raas raas, final String bindAddress, final int port)
    {
        this.raas = raas;
        final long id = raas.self().id();
        this.self = new Member(Member.id(id), announcedHost(bindAddress), port);
        final byte[] endpoint = (self.host() + ":" + port).getBytes(StandardCharsets.US_ASCII);
        if (endpoint.length > REGION_BYTES - Short.BYTES)
        {
            throw new IllegalArgumentException("RESP endpoint " + self.host() + ":" + port + " exceeds " +
                (REGION_BYTES - Short.BYTES) + " bytes");
        }
        this.contents = MemorySegment.ofArray(new byte[REGION_BYTES]);
        MemorySegment.copy(endpoint, 0, contents, ValueLayout.JAVA_BYTE, Short.BYTES, endpoint.length);
        contents.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short)endpoint.length);
        // whole before its name is published, and the same whether the node embeds its driver or attaches to the host's
        this.publishedSession = raas.session();
        this.published = raas.publish(id, REGION_PREFIX + id, contents, Access.REMOTE_READ);
        this.readBuffer = raas.allocateBuffer(REGION_BYTES);
        this.readSession = publishedSession;
    }

    /**
     * Publish the endpoint again if the handle is in a new driver session (its driver restarted): the region of the
     * old session went with that driver. Cheap while nothing changed: one volatile read.
     *
     * @return whether it published now.
     */
    boolean keepPublished()
    {
        final int session = raas.session();
        if (session == publishedSession)
        {
            return false;
        }
        synchronized (publishing)
        {
            if (session == publishedSession)
            {
                return false;
            }
            try
            {
                final long id = raas.self().id();
                published = raas.publish(id, REGION_PREFIX + id, contents, Access.REMOTE_READ);
                publishedSession = session;
                return true;
            }
            catch (final RaasException notYet)
            {
                // the new driver went too, or does not answer yet: tried again at the next check
                return false;
            }
        }
    }

    /** @return the driver session the endpoint's region was last published in. */
    int publishedSession()
    {
        return publishedSession;
    }

    public Member self()
    {
        return self;
    }

    public synchronized List<Member> members()
    {
        final List<Member> members = new ArrayList<>();
        final List<NodeRecord> records = raas.nodes(NodeRecord.ROLE_COMPUTE);
        final int session = raas.session();
        final Map<Long, Known> listed = new HashMap<>();
        for (final NodeRecord record : records)
        {
            if (record.id() == raas.self().id())
            {
                members.add(self);
                continue;
            }
            Known node = known.get(record.id());
            if (node == null || node.epoch() != record.epoch())
            {
                final Member read = read(record, session);
                node = read == null ? null : new Known(record.epoch(), read);
            }
            if (node != null)
            {
                listed.put(record.id(), node);
                members.add(node.member());
            }
        }
        if (members.stream().noneMatch(member -> member == self))
        {
            // not listed yet (registration under way) or no longer: it answers for itself all the same
            members.add(self);
        }
        known.clear();
        known.putAll(listed);
        return members;
    }

    /** @return where the node serves RESP, or null when it cannot be read now (not yet published, or gone). */
    private Member read(final NodeRecord record, final int session)
    {
        try
        {
            if (session != readSession)
            {
                // a buffer of the old session's driver would be copied through on each read: one of the new one
                readBuffer = raas.allocateBuffer(REGION_BYTES);
                readSession = session;
            }
            final RemoteRegion region = raas.lookup(REGION_PREFIX + record.id());
            try (Connection connection = raas.open(record.id(), (token, status, value) -> { }))
            {
                connection.read(region, 0, readBuffer, 0, REGION_BYTES);
            }
            final int length = readBuffer.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0);
            if (length <= 0 || length > REGION_BYTES - Short.BYTES)
            {
                return null;
            }
            final byte[] endpoint = new byte[length];
            MemorySegment.copy(readBuffer, ValueLayout.JAVA_BYTE, Short.BYTES, endpoint, 0, length);
            final String text = new String(endpoint, StandardCharsets.US_ASCII);
            final int colon = text.lastIndexOf(':');
            return new Member(Member.id(record.id()), text.substring(0, colon),
                Integer.parseInt(text.substring(colon + 1)));
        }
        catch (final RaasException | IllegalArgumentException | IndexOutOfBoundsException ex)
        {
            return null;
        }
    }

    /** A wildcard bind serves every interface: the host's own address is the one to announce. */
    static String announcedHost(final String bindAddress)
    {
        try
        {
            final InetAddress bound = InetAddress.getByName(bindAddress);
            return bound.isAnyLocalAddress() ? InetAddress.getLocalHost().getHostAddress() : bound.getHostAddress();
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("cannot tell the host to announce for bind address " + bindAddress, ex);
        }
    }

    /** Withdraw the region: before the RaaS handle closes. */
    public void close()
    {
        try
        {
            raas.free(published);
        }
        catch (final RaasException ex)
        {
            // the handle is closing or the MetaServer gone: the region goes with the node's incarnation
        }
    }
}
