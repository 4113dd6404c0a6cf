package io.dkv.raas.driver;

import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.cnc.AcceptFlyweight;
import io.dkv.raas.cnc.ConnectFlyweight;
import io.dkv.raas.cnc.FreeFlyweight;
import io.dkv.raas.cnc.ListenFlyweight;
import io.dkv.raas.cnc.LookupFlyweight;
import io.dkv.raas.cnc.MallocFlyweight;
import io.dkv.raas.cnc.MembershipFlyweight;
import io.dkv.raas.cnc.NodesFlyweight;
import io.dkv.raas.cnc.OneSidedFlyweight;
import io.dkv.raas.cnc.OpenFlyweight;
import io.dkv.raas.cnc.RecvFlyweight;
import io.dkv.raas.cnc.SendFlyweight;
import io.dkv.raas.cnc.TargetFlyweight;
import io.dkv.verbs.Access;
import io.dkv.verbs.Opcode;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.function.Consumer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * A standalone driver's clients' commands, decoded by their flyweights and carried out on the
 * driver's behalf of the client that sent them, within what the client owns (its connections,
 * listeners, region handles and data area). Commands that wait on a peer (connect, accept, send,
 * receive, malloc) run on virtual threads, so that the conductor's duty cycle never blocks.
 */
final class ClientCommandAdapter
{
    private final RaasDriver driver;
    /** Decoders of commands: only the conductor's thread reads commands. */
    private final OpenFlyweight open = new OpenFlyweight();
    private final ConnectFlyweight connect = new ConnectFlyweight();
    private final ListenFlyweight listen = new ListenFlyweight();
    private final AcceptFlyweight accept = new AcceptFlyweight();
    private final TargetFlyweight target = new TargetFlyweight();
    private final OneSidedFlyweight oneSided = new OneSidedFlyweight();
    private final SendFlyweight send = new SendFlyweight();
    private final RecvFlyweight recv = new RecvFlyweight();
    private final LookupFlyweight lookup = new LookupFlyweight();
    private final MallocFlyweight malloc = new MallocFlyweight();
    private final MembershipFlyweight membership = new MembershipFlyweight();
    private final NodesFlyweight nodes = new NodesFlyweight();
    private final FreeFlyweight free = new FreeFlyweight();

    private final boolean isolation;

    ClientCommandAdapter(final RaasDriver driver, final boolean isolation)
    {
        this.driver = driver;
        this.isolation = isolation;
    }

    /** A bulk client's connections keep off the initiator latency clients' requests take, when isolating. */
    private void markClass(final ClientSession session, final DriverConnection connection)
    {
        if (isolation && session.queue != null && session.queue.serviceClass == io.dkv.raas.ServiceClass.BULK)
        {
            connection.markBulk();
        }
    }

    /**
     * Carry out a client's command; what it returns goes back in a response with its correlation id.
     *
     * @throws RuntimeException when it fails at once: the conductor answers it with an ERROR.
     */
    void onCommand(
        final int type,
        final MutableDirectBuffer buffer,
        final int index,
        final int length,
        final ClientSession session,
        final long correlation)
    {
        switch (type)
        {
            case ONE_SIDED -> oneSided(oneSided.wrap(buffer, index), length, session, correlation);
            case OPEN ->
            {
                // inline: opening costs at most a metadata read (one-sided, microseconds), and joining fast is
                // the point
                final long nodeId = open.wrap(buffer, index).nodeId();
                final DriverConnection connection = (DriverConnection)driver.open(nodeId,
                    (token, status, value) -> session.completion(token, status, value));
                markClass(session, connection);
                held(session, connection, correlation, 0);
            }
            case CONNECT ->
            {
                connect.wrap(buffer, index);
                final long nodeId = connect.nodeId();
                final int service = connect.service();
                final int flags = connect.flags();
                blocking(session, correlation, () ->
                {
                    final DriverConnection connection = (DriverConnection)driver.connectAs(session.nodeId, nodeId,
                        service, flags, (token, status, value) -> session.completion(token, status, value));
                    markClass(session, connection);
                    held(session, connection, correlation, 0);
                });
            }
            case LISTEN ->
            {
                final int service = listen.wrap(buffer, index).service();
                final Listener listener =
                    session.nodeId == 0 ? driver.listen(service) : driver.listenAs(session.nodeId, service);
                synchronized (session)
                {
                    session.listeners.put(service, listener);
                }
                session.ok(correlation, service, 0);
            }
            case ACCEPT ->
            {
                accept.wrap(buffer, index);
                final int service = accept.listenerId();
                final int timeoutMs = accept.timeoutMs();
                final Listener listener = ownedListener(session, service);
                blocking(session, correlation, () ->
                {
                    final DriverConnection connection = (DriverConnection)listener.accept(Duration.ofMillis(timeoutMs));
                    held(session, connection, correlation, connection.nodeId());
                });
            }
            case CLOSE_LISTENER -> closeHeld(session, session.listeners, target.wrap(buffer, index).targetId(),
                Listener::close, correlation);
            case CLOSE_CONNECTION -> closeHeld(session, session.connections, target.wrap(buffer, index).targetId(),
                DriverConnection::close, correlation);
            case SEND ->
            {
                send.wrap(buffer, index);
                final Connection connection = ownedConnection(session, send.vqpn());
                final int flags = send.flags();
                final int messageLength = send.length();
                final long dataOffset = send.dataOffset();
                requireData(session, dataOffset, messageLength);
                blocking(session, correlation, () ->
                {
                    connection.send(session.data, dataOffset, messageLength, flags);
                    session.ok(correlation, messageLength, 0);
                });
            }
            case RECV ->
            {
                recv.wrap(buffer, index);
                final Connection connection = ownedConnection(session, recv.vqpn());
                final int timeoutMs = recv.timeoutMs();
                final int maxLength = recv.maxLength();
                final long dataOffset = recv.dataOffset();
                requireData(session, dataOffset, maxLength);
                blocking(session, correlation, () ->
                {
                    final int received =
                        connection.recv(session.data, dataOffset, maxLength, Duration.ofMillis(timeoutMs));
                    session.ok(correlation, received, 0);
                });
            }
            case LOOKUP ->
            {
                // inline, as OPEN: a lookup is a one-sided read of the directory
                final String name = lookup.wrap(buffer, index).name(length);
                final RemoteRegion region = driver.lookup(name);
                final int handle;
                synchronized (session)
                {
                    handle = session.addRegion(region);
                }
                session.region(correlation, handle, region);
            }
            case MALLOC ->
            {
                malloc.wrap(buffer, index);
                final long nodeId = malloc.nodeId();
                final long size = malloc.size();
                final int access = malloc.access();
                final long dataOffset = malloc.dataOffset();
                final String name = malloc.name(length);
                final MemorySegment contents = dataOffset < 0 ? null : contents(session, nodeId, dataOffset, size);
                final boolean ofItsNode = session.nodeId != 0 && nodeId == session.nodeId;
                blocking(session, correlation, () ->
                {
                    final RemoteRegion region = ofItsNode || contents != null ?
                        driver.publishAs(nodeId, name, size, contents, access) :
                        driver.malloc(nodeId, size, name, access);
                    final int handle;
                    synchronized (session)
                    {
                        handle = session.addRegion(region);
                        if (ofItsNode || nodeId == driver.self().id())
                        {
                            session.allocated.put(handle, region);
                        }
                    }
                    session.region(correlation, handle, region);
                });
            }
            case FREE ->
            {
                final int handle = free.wrap(buffer, index).regionHandle();
                final RemoteRegion region;
                synchronized (session)
                {
                    region = session.allocated.remove(handle);
                    session.regions.remove(handle);
                }
                if (region == null)
                {
                    session.error(correlation,
                        "region handle " + handle + " was not allocated by this client on this node");
                    return;
                }
                driver.free(region);
                session.ok(correlation, 0, 0);
            }
            case MEMBERSHIP ->
            {
                membership.wrap(buffer, index);
                final int maxLength = membership.maxLength();
                final long dataOffset = membership.dataOffset();
                requireData(session, dataOffset, maxLength);
                // a read of the directory's tables: off the conductor, as the MetaServer may be slow to answer
                blocking(session, correlation, () -> session.ok(correlation,
                    MembershipFlyweight.encode(driver.membership(), session.data, dataOffset, maxLength), 0));
            }
            case NODES ->
            {
                nodes.wrap(buffer, index);
                final int role = nodes.role();
                final int maxLength = nodes.maxLength();
                final long dataOffset = nodes.dataOffset();
                requireData(session, dataOffset, maxLength);
                blocking(session, correlation, () -> session.ok(correlation,
                    NodesFlyweight.encode(driver.nodes(role), session.data, dataOffset, maxLength), 0));
            }
            case READABLE ->
            {
                final Connection connection = ownedConnection(session, target.wrap(buffer, index).targetId());
                session.ok(correlation, connection.isReadable() ? 1 : 0, 0);
            }
            case POLL_ACCEPT ->
            {
                final Listener listener = ownedListener(session, target.wrap(buffer, index).targetId());
                final DriverConnection connection = (DriverConnection)listener.poll();
                if (connection == null)
                {
                    session.ok(correlation, 0, 0);
                    return;
                }
                held(session, connection, correlation, connection.nodeId());
            }
            default -> session.error(correlation, "unknown command type " + type);
        }
    }

    /**
     * A one-sided request: checked against what this client owns (its connection, its region
     * handle, its data area) and handed to the driver without a copy; the completion goes back to
     * the client by the correlation id.
     */
    private void oneSided(
        final OneSidedFlyweight request, final int length, final ClientSession session, final long correlation)
    {
        if (length < ONE_SIDED_MESSAGE_LENGTH)
        {
            session.completion(correlation, RaasStatus.NOT_OWNED, 0);
            return;
        }
        final int vqpn = request.vqpn();
        final Opcode opcode = Opcode.fromCode(request.opcode());
        final int handle = request.regionHandle();
        final int bytes = request.length();
        final long offset = request.remoteOffset();
        final long dataOffset = request.dataOffset();
        final DriverConnection connection;
        final RemoteRegion region;
        synchronized (session)
        {
            connection = session.connections.get(vqpn);
            region = session.regions.get(handle);
        }
        if (connection == null || region == null || opcode == null || opcode.isTwoSided() ||
            opcode == Opcode.RDMA_WRITE_WITH_IMM || !session.inData(dataOffset, bytes))
        {
            session.completion(correlation, RaasStatus.NOT_OWNED, 0);
            return;
        }
        final int verdict = driver.check(region, offset, bytes, Access.requiredFor(opcode), opcode.isAtomic());
        if (verdict != RaasStatus.SUCCESS)
        {
            session.completion(correlation, verdict, 0);
            return;
        }
        connection.submitRegistered(opcode, region, offset, session.dataRegion, dataOffset, bytes,
            request.compareAdd(), request.swap(), correlation);
    }

    /** Hold a connection the client opened (or accepted) until it closes it, and answer with its vQPN. */
    private static void held(
        final ClientSession session, final DriverConnection connection, final long correlation, final long value2)
    {
        synchronized (session)
        {
            session.connections.put(connection.vqpn(), connection);
        }
        session.ok(correlation, connection.vqpn(), value2);
    }

    /** Close a listener or connection the client holds (nothing when it holds none of that id), and answer. */
    private static <T> void closeHeld(
        final ClientSession session,
        final Int2ObjectHashMap<T> held,
        final int id,
        final Consumer<T> close,
        final long correlation)
    {
        final T closing;
        synchronized (session)
        {
            closing = held.remove(id);
        }
        if (closing != null)
        {
            close.accept(closing);
        }
        session.ok(correlation, 0, 0);
    }

    private static Connection ownedConnection(final ClientSession session, final int vqpn)
    {
        final Connection connection;
        synchronized (session)
        {
            connection = session.connection(vqpn);
        }
        if (connection == null)
        {
            throw new RaasException(String.format("vQPN 0x%x is not a connection of this client", vqpn));
        }
        return connection;
    }

    private static Listener ownedListener(final ClientSession session, final int service)
    {
        final Listener listener;
        synchronized (session)
        {
            listener = session.listeners.get(service);
        }
        if (listener == null)
        {
            throw new RaasException("no listener on service " + service + " for this client");
        }
        return listener;
    }

    /**
     * @return the first contents of a region published with them, in the client's data area.
     * @throws RaasException when the region is of neither the driver's node nor the node the client is, or the range
     *                       is outside the data area.
     */
    private MemorySegment contents(
        final ClientSession session, final long nodeId, final long dataOffset, final long size)
    {
        if (nodeId != driver.self().id() && (session.nodeId == 0 || nodeId != session.nodeId))
        {
            throw new RaasException("region of node " + nodeId + " with its contents, asked by " + session +
                ": a driver publishes them only on its own node " + driver.self().id() +
                (session.nodeId == 0 ? "" : " or the client's, " + session.nodeId));
        }
        requireData(session, dataOffset, size);
        return session.data.asSlice(dataOffset, size);
    }

    private static void requireData(final ClientSession session, final long offset, final long length)
    {
        if (!session.inData(offset, length))
        {
            throw new RaasException("range [" + offset + ", " + (offset + length) +
                ") is outside the client's data area of " + session.data.byteSize() + " bytes");
        }
    }

    private static void blocking(final ClientSession session, final long correlation, final Runnable call)
    {
        Thread.ofVirtual().name("dkv-raas-call-" + correlation).start(() ->
        {
            try
            {
                call.run();
            }
            catch (final RuntimeException ex)
            {
                session.error(correlation, String.valueOf(ex.getMessage()));
            }
        });
    }
}
