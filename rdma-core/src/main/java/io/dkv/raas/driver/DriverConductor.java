package io.dkv.raas.driver;

import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.verbs.Access;
import io.dkv.verbs.Opcode;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * The standalone driver's duty cycle: read clients' commands from the command ring and carry them
 * out on the driver's behalf, post and poll (the Worker's and Poller's work, in one agent so that
 * a two-core host has a core left for the application), heartbeat, and remove clients that went
 * silent or whose process died, freeing their connections, listeners, regions and credits.
 * Commands that wait on a peer (connect, accept, send, receive, lookups that ask a MetaServer) run
 * on virtual threads so the duty cycle never blocks.
 */
final class DriverConductor implements Agent, MessageHandler
{
    private static final long HEARTBEAT_INTERVAL_MS = 100;
    private static final System.Logger LOG = System.getLogger(DriverConductor.class.getName());

    private final RaasDriver driver;
    private final Registrations registrations;
    private final long clientTimeoutMs;
    private final Path directory;
    private final UnsafeBuffer cnc;
    private final ManyToOneRingBuffer commands;
    private final Long2ObjectHashMap<ClientSession> sessions = new Long2ObjectHashMap<>();
    private final List<ClientSession> toRemove = new ArrayList<>();
    private long nextHeartbeat;

    DriverConductor(
        final RaasDriver driver,
        final long clientTimeoutMs,
        final Path directory,
        final UnsafeBuffer cnc,
        final ManyToOneRingBuffer commands)
    {
        this.driver = driver;
        this.registrations = driver.registrations();
        this.clientTimeoutMs = clientTimeoutMs;
        this.directory = directory;
        this.cnc = cnc;
        this.commands = commands;
    }

    public String roleName()
    {
        return "dkv-raas-driver-" + driver.self().id();
    }

    public int doWork()
    {
        int work = commands.read(this, 64);
        work += driver.drainSubmissions();
        work += driver.poll();
        final long now = System.currentTimeMillis();
        if (now >= nextHeartbeat)
        {
            nextHeartbeat = now + HEARTBEAT_INTERVAL_MS;
            cnc.putLongOrdered(CncDescriptor.HEARTBEAT_OFFSET, now);
            work += driver.housekeeping();
            work += checkClients(now);
        }
        return work;
    }

    public void onClose()
    {
        for (final ClientSession session : new ArrayList<>(sessions.values()))
        {
            remove(session, "driver closing");
        }
    }

    /** @return clients attached now. */
    int clientCount()
    {
        return sessions.size();
    }

    private int checkClients(final long now)
    {
        final long timeout = clientTimeoutMs;
        for (final ClientSession session : sessions.values())
        {
            final long heartbeat = session.heartbeat();
            if (now - heartbeat > timeout || !io.dkv.verbs.soft.ProcessLiveness.isAlive(session.pid))
            {
                toRemove.add(session);
            }
        }
        final int removed = toRemove.size();
        for (final ClientSession session : toRemove)
        {
            remove(session, now - session.heartbeat() > timeout ?
                "silent for " + (now - session.heartbeat()) + " ms" : "process " + session.pid + " is gone");
        }
        toRemove.clear();
        return removed;
    }

    private void remove(final ClientSession session, final String reason)
    {
        sessions.remove(session.clientId);
        session.markClosed();
        LOG.log(System.Logger.Level.INFO, "removing " + session + ": " + reason);
        synchronized (session)
        {
            for (final DriverConnection connection : session.connections.values())
            {
                connection.close();
            }
            for (final Listener listener : session.listeners.values())
            {
                listener.close();
            }
            for (final RemoteRegion region : session.allocated.values())
            {
                try
                {
                    driver.free(region);
                }
                catch (final RaasException alreadyFreed)
                {
                    // freed by the client before it went away
                }
            }
            session.connections.clear();
            session.listeners.clear();
            session.allocated.clear();
        }
        session.release(registrations);
        try
        {
            Files.deleteIfExists(session.file);
        }
        catch (final java.io.IOException ignore)
        {
            // the next driver start sweeps it
        }
    }

    public void onMessage(final int type, final org.agrona.MutableDirectBuffer buffer, final int index, final int length)
    {
        if (length < BODY_OFFSET)
        {
            return;
        }
        final long clientId = buffer.getLong(index + CLIENT_ID_OFFSET);
        final long correlation = buffer.getLong(index + CORRELATION_OFFSET);
        if (type == ADD_CLIENT)
        {
            addClient(clientId, correlation);
            return;
        }
        final ClientSession session = sessions.get(clientId);
        if (session == null)
        {
            return;
        }
        try
        {
            dispatch(type, buffer, index, length, session, correlation);
        }
        catch (final RuntimeException ex)
        {
            session.error(correlation, String.valueOf(ex.getMessage()));
        }
    }

    private void dispatch(
        final int type, final DirectBuffer buffer, final int index, final int length, final ClientSession session, final long correlation)
    {
        switch (type)
        {
            case REMOVE_CLIENT -> remove(session, "detached");
            case ONE_SIDED -> oneSided(buffer, index, length, session, correlation);
            case OPEN ->
            {
                // inline: opening costs at most a metadata read (one-sided, microseconds), and joining fast is the point
                final long nodeId = buffer.getLong(index + OPEN_NODE_OFFSET);
                final DriverConnection connection = (DriverConnection)driver.open(nodeId,
                    (token, status, value) -> session.completion(token, status, value));
                synchronized (session)
                {
                    session.connections.put(connection.vqpn(), connection);
                }
                session.ok(correlation, connection.vqpn(), 0);
            }
            case CONNECT ->
            {
                final long nodeId = buffer.getLong(index + CONNECT_NODE_OFFSET);
                final int service = buffer.getInt(index + CONNECT_SERVICE_OFFSET);
                final int flags = buffer.getInt(index + CONNECT_FLAGS_OFFSET);
                blocking(session, correlation, () ->
                {
                    final DriverConnection connection = (DriverConnection)driver.connect(nodeId, service, flags,
                        (token, status, value) -> session.completion(token, status, value));
                    synchronized (session)
                    {
                        session.connections.put(connection.vqpn(), connection);
                    }
                    session.ok(correlation, connection.vqpn(), 0);
                });
            }
            case LISTEN ->
            {
                final int service = buffer.getInt(index + LISTEN_SERVICE_OFFSET);
                final Listener listener = driver.listen(service);
                synchronized (session)
                {
                    session.listeners.put(service, listener);
                }
                session.ok(correlation, service, 0);
            }
            case ACCEPT ->
            {
                final int service = buffer.getInt(index + ACCEPT_LISTENER_OFFSET);
                final int timeoutMs = buffer.getInt(index + ACCEPT_TIMEOUT_OFFSET);
                final Listener listener;
                synchronized (session)
                {
                    listener = session.listeners.get(service);
                }
                if (listener == null)
                {
                    session.error(correlation, "no listener on service " + service + " for this client");
                    return;
                }
                blocking(session, correlation, () ->
                {
                    final DriverConnection connection = (DriverConnection)listener.accept(Duration.ofMillis(timeoutMs));
                    synchronized (session)
                    {
                        session.connections.put(connection.vqpn(), connection);
                    }
                    session.ok(correlation, connection.vqpn(), connection.nodeId());
                });
            }
            case CLOSE_LISTENER ->
            {
                final Listener listener;
                synchronized (session)
                {
                    listener = session.listeners.remove(buffer.getInt(index + CLOSE_ID_OFFSET));
                }
                if (listener != null)
                {
                    listener.close();
                }
                session.ok(correlation, 0, 0);
            }
            case CLOSE_CONNECTION ->
            {
                final DriverConnection connection;
                synchronized (session)
                {
                    connection = session.connections.remove(buffer.getInt(index + CLOSE_ID_OFFSET));
                }
                if (connection != null)
                {
                    connection.close();
                }
                session.ok(correlation, 0, 0);
            }
            case SEND ->
            {
                final Connection connection = ownedConnection(session, buffer.getInt(index + SEND_VQPN_OFFSET));
                final int flags = buffer.getInt(index + SEND_FLAGS_OFFSET);
                final int messageLength = buffer.getInt(index + SEND_LENGTH_OFFSET);
                final long dataOffset = buffer.getLong(index + SEND_DATA_OFFSET);
                requireData(session, dataOffset, messageLength);
                blocking(session, correlation, () ->
                {
                    connection.send(session.data, dataOffset, messageLength, flags);
                    session.ok(correlation, messageLength, 0);
                });
            }
            case RECV ->
            {
                final Connection connection = ownedConnection(session, buffer.getInt(index + RECV_VQPN_OFFSET));
                final int timeoutMs = buffer.getInt(index + RECV_TIMEOUT_OFFSET);
                final int maxLength = buffer.getInt(index + RECV_MAX_LENGTH_OFFSET);
                final long dataOffset = buffer.getLong(index + RECV_DATA_OFFSET);
                requireData(session, dataOffset, maxLength);
                blocking(session, correlation, () ->
                {
                    final int received = connection.recv(session.data, dataOffset, maxLength, Duration.ofMillis(timeoutMs));
                    session.ok(correlation, received, 0);
                });
            }
            case LOOKUP ->
            {
                // inline, as OPEN: a lookup is a one-sided read of the directory
                final String name = string(buffer, index + LOOKUP_NAME_LENGTH_OFFSET, index + LOOKUP_NAME_OFFSET, index + length);
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
                final long nodeId = buffer.getLong(index + MALLOC_NODE_OFFSET);
                final long size = buffer.getLong(index + MALLOC_SIZE_OFFSET);
                final int access = buffer.getInt(index + MALLOC_ACCESS_OFFSET);
                final String name = string(buffer, index + MALLOC_NAME_LENGTH_OFFSET, index + MALLOC_NAME_OFFSET, index + length);
                blocking(session, correlation, () ->
                {
                    final RemoteRegion region = driver.malloc(nodeId, size, name, access);
                    final int handle;
                    synchronized (session)
                    {
                        handle = session.addRegion(region);
                        if (nodeId == driver.self().id())
                        {
                            session.allocated.put(handle, region);
                        }
                    }
                    session.region(correlation, handle, region);
                });
            }
            case FREE ->
            {
                final int handle = buffer.getInt(index + FREE_REGION_OFFSET);
                final RemoteRegion region;
                synchronized (session)
                {
                    region = session.allocated.remove(handle);
                    session.regions.remove(handle);
                }
                if (region == null)
                {
                    session.error(correlation, "region handle " + handle + " was not allocated by this client on this node");
                    return;
                }
                driver.free(region);
                session.ok(correlation, 0, 0);
            }
            case READABLE ->
            {
                final Connection connection = ownedConnection(session, buffer.getInt(index + CLOSE_ID_OFFSET));
                session.ok(correlation, connection.isReadable() ? 1 : 0, 0);
            }
            case POLL_ACCEPT ->
            {
                final Listener listener;
                synchronized (session)
                {
                    listener = session.listeners.get(buffer.getInt(index + CLOSE_ID_OFFSET));
                }
                if (listener == null)
                {
                    session.error(correlation, "no listener on service " + buffer.getInt(index + CLOSE_ID_OFFSET) + " for this client");
                    return;
                }
                final DriverConnection connection = (DriverConnection)listener.poll();
                if (connection == null)
                {
                    session.ok(correlation, 0, 0);
                    return;
                }
                synchronized (session)
                {
                    session.connections.put(connection.vqpn(), connection);
                }
                session.ok(correlation, connection.vqpn(), connection.nodeId());
            }
            default -> session.error(correlation, "unknown command type " + type);
        }
    }

    /**
     * A one-sided request: checked against what this client owns (its connection, its region
     * handle, its data area) and handed to the driver without a copy; the completion goes back to
     * the client by the correlation id.
     */
    private void oneSided(final DirectBuffer buffer, final int index, final int length, final ClientSession session, final long correlation)
    {
        if (length < ONE_SIDED_MESSAGE_LENGTH)
        {
            session.completion(correlation, RaasStatus.NOT_OWNED, 0);
            return;
        }
        final int vqpn = buffer.getInt(index + ONE_SIDED_VQPN_OFFSET);
        final Opcode opcode = Opcode.fromCode(buffer.getInt(index + ONE_SIDED_OPCODE_OFFSET));
        final int handle = buffer.getInt(index + ONE_SIDED_REGION_OFFSET);
        final int bytes = buffer.getInt(index + ONE_SIDED_LENGTH_OFFSET);
        final long offset = buffer.getLong(index + ONE_SIDED_OFFSET_OFFSET);
        final long dataOffset = buffer.getLong(index + ONE_SIDED_DATA_OFFSET);
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
            buffer.getLong(index + ONE_SIDED_COMPARE_OFFSET), buffer.getLong(index + ONE_SIDED_SWAP_OFFSET), correlation);
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

    private static void requireData(final ClientSession session, final long offset, final long length)
    {
        if (!session.inData(offset, length))
        {
            throw new RaasException("range [" + offset + ", " + (offset + length) + ") is outside the client's data area of " +
                session.data.byteSize() + " bytes");
        }
    }

    private static String string(final DirectBuffer buffer, final int lengthAt, final int at, final int end)
    {
        final int length = buffer.getInt(lengthAt);
        if (length < 0 || length > MAX_NAME_LENGTH || at + length > end)
        {
            throw new RaasException("name of " + length + " bytes (at most " + MAX_NAME_LENGTH + ")");
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(at, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
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

    private void addClient(final long clientId, final long correlation)
    {
        if (sessions.containsKey(clientId))
        {
            return;
        }
        final Path file = directory.resolve(CncDescriptor.clientFileName(clientId));
        final Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            final UnsafeBuffer header = new UnsafeBuffer(mapping.address(), CncDescriptor.CLIENT_HEADER_LENGTH);
            if (header.getLong(CncDescriptor.MAGIC_OFFSET) != CncDescriptor.CLIENT_MAGIC ||
                header.getLong(CncDescriptor.CLIENT_ID_OFFSET) != clientId ||
                mapping.byteSize() < CncDescriptor.clientLength(header.getInt(CncDescriptor.RESPONSE_LENGTH_OFFSET),
                    header.getInt(CncDescriptor.DATA_LENGTH_OFFSET)))
            {
                arena.close();
                return;
            }
            final ClientSession session = new ClientSession(registrations, clientId, file, arena, mapping);
            sessions.put(clientId, session);
            LOG.log(System.Logger.Level.INFO, "attached " + session);
            session.ready(correlation, driver.self());
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            arena.close();
            LOG.log(System.Logger.Level.WARNING, "cannot attach client " + Long.toHexString(clientId) + ": " + ex);
        }
    }
}
