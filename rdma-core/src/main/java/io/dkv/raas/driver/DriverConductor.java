package io.dkv.raas.driver;

import io.dkv.raas.Listener;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.ServiceClass;
import io.dkv.raas.cnc.AttachFlyweight;
import io.dkv.raas.cnc.ClientHeaderFlyweight;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.raas.cnc.CncHeaderFlyweight;
import io.dkv.raas.cnc.CorrelatedFlyweight;
import io.dkv.verbs.soft.ProcessLiveness;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * The standalone driver's duty cycle: read clients' commands from the command ring and hand them to
 * the {@link ClientCommandAdapter}, post and poll (the Worker's and Poller's work, in one agent so
 * that a two-core host has a core left for the application), heartbeat, and attach clients and
 * remove those that detached, went silent or whose process died, freeing their connections,
 * listeners, regions and credits.
 */
final class DriverConductor implements Agent, MessageHandler
{
    private static final long HEARTBEAT_INTERVAL_MS = 100;
    private static final long HOSTED_CLOSE_WAIT_MS = 2_000;
    private static final System.Logger LOG = System.getLogger(DriverConductor.class.getName());

    private final RaasDriver driver;
    private final EpochClock heartbeatClock;
    private final Registrations registrations;
    private final long clientTimeoutMs;
    private final Path directory;
    private final CncHeaderFlyweight cnc;
    private final ManyToOneRingBuffer commands;
    private final ClientCommandAdapter commandAdapter;
    /** Decodes what every command begins with: only the conductor's thread reads commands. */
    private final CorrelatedFlyweight command = new CorrelatedFlyweight();
    private final Long2ObjectHashMap<ClientSession> sessions = new Long2ObjectHashMap<>();
    private final List<ClientSession> toRemove = new ArrayList<>();
    private final AttachFlyweight attach = new AttachFlyweight();
    private final ClientScheduler<ClientSession> scheduler;
    private final ClientScheduler.Taker<ClientSession> take = this::takeDeferred;
    private final ServiceClass defaultClass;
    private final int defaultWeight;
    /** The monotonic clock's origin is arbitrary: its first reading may be below 0. */
    private long nextHeartbeat = Long.MIN_VALUE;
    /** Written by the conductor alone. */
    private final AtomicCounter clientsAttached;
    private final AtomicCounter clientsTimedOut;
    private final AtomicCounter commandsUnblocked;
    /** Where the conductor's reading of the command ring stood when it was last seen to move. */
    private long commandsConsumed = -1;
    /** When the reading of the command ring was last seen to move, by the heartbeat clock. */
    private long commandsMovedAt;
    /** An attached client's process was found gone since the command ring was last seen with nothing in it. */
    private boolean clientGoneSinceRingEmpty;
    /**
     * Registers and withdraws the nodes attached clients are, one after another in the order asked (a node that
     * detaches and attaches again is withdrawn before it is registered again), off the duty cycle: each is a directory
     * RPC.
     */
    private final ExecutorService hostedNodes =
        Executors.newSingleThreadExecutor(Thread.ofVirtual().name("dkv-raas-hosted-nodes").factory());

    DriverConductor(
        final RaasDriver driver,
        final EpochClock heartbeatClock,
        final long clientTimeoutMs,
        final Path directory,
        final CncHeaderFlyweight cnc,
        final ManyToOneRingBuffer commands,
        final RaasContext context)
    {
        this.scheduler = new ClientScheduler<>(context.isolation(), commands.maxMsgLength());
        this.defaultClass = context.defaultClass();
        this.defaultWeight = context.defaultWeight();
        this.driver = driver;
        this.heartbeatClock = heartbeatClock;
        this.commandAdapter = new ClientCommandAdapter(driver, context.isolation());
        this.registrations = driver.registrations();
        this.clientTimeoutMs = clientTimeoutMs;
        this.directory = directory;
        this.cnc = cnc;
        this.commands = commands;
        this.clientsAttached = driver.counters().get(DriverCounter.CLIENTS_ATTACHED);
        this.clientsTimedOut = driver.counters().get(DriverCounter.CLIENTS_TIMED_OUT);
        this.commandsUnblocked = driver.counters().get(DriverCounter.COMMANDS_UNBLOCKED);
    }

    public String roleName()
    {
        return "dkv-raas-driver-" + driver.self().id();
    }

    public int doWork()
    {
        int work = commands.read(this, 64);
        work += scheduler.takeBulk(take);
        work += driver.drainSubmissions();
        work += driver.poll();
        final long now = heartbeatClock.time();
        if (now >= nextHeartbeat)
        {
            nextHeartbeat = now + HEARTBEAT_INTERVAL_MS;
            cnc.heartbeat(now);
            work += driver.housekeeping();
            work += checkClients(now);
            work += unblockCommands(now);
        }
        return work;
    }

    /**
     * A client killed between claiming room in the command ring and committing its command leaves a record the
     * conductor waits on for ever, and every command behind it, another client's attach included, with it. The record
     * at the head is made padding (a whole one never is) once the ring stood still behind written commands for longer
     * than a client may stay silent and an attached client's process was found gone since the ring last held nothing
     * (the dead client's record has held it since): never while every client lives, as one paused midway (SIGSTOP)
     * writes on into the record when it wakes, into room that may by then hold another's command. A client killed with
     * several threads mid-command leaves one record each, passed over one after another. Left waiting: a process
     * killed mid-command before it was attached (its attach).
     *
     * @return 1 when a dead writer's record was passed over.
     */
    private int unblockCommands(final long now)
    {
        final long consumed = commands.consumerPosition();
        if (commands.producerPosition() == consumed)
        {
            // nothing claimed: a client that died since left no record here
            clientGoneSinceRingEmpty = false;
        }
        if (consumed != commandsConsumed || commands.producerPosition() == consumed)
        {
            commandsConsumed = consumed;
            commandsMovedAt = now;
            return 0;
        }
        if (now - commandsMovedAt <= clientTimeoutMs || !clientGoneSinceRingEmpty || !commands.unblock())
        {
            return 0;
        }
        commandsUnblocked.incrementRelease();
        LOG.log(System.Logger.Level.WARNING, "the command ring stood still at position " + consumed + " for " +
            (now - commandsMovedAt) + " ms behind commands up to " + commands.producerPosition() +
            ": a client died mid-command; its record passed over");
        commandsMovedAt = now;
        return 1;
    }

    public void onClose()
    {
        for (final ClientSession session : new ArrayList<>(sessions.values()))
        {
            remove(session, "driver closing");
        }
        hostedNodes.shutdown();
        try
        {
            // the withdrawals go out before the directory detaches, which would withdraw them anyway
            hostedNodes.awaitTermination(HOSTED_CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void takeDeferred(final int type, final MutableDirectBuffer buffer, final int index, final int length,
        final ClientSession session)
    {
        execute(type, buffer, index, length, session, command.wrap(buffer, index).correlationId());
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
            if (now - heartbeat > timeout || !ProcessLiveness.isAlive(session.pid))
            {
                toRemove.add(session);
            }
        }
        final int removed = toRemove.size();
        for (final ClientSession session : toRemove)
        {
            clientsTimedOut.incrementRelease();
            if (!ProcessLiveness.isAlive(session.pid))
            {
                // a client killed with commands half-written (one per thread of its) holds the ring until passed over
                clientGoneSinceRingEmpty = true;
            }
            remove(session, now - session.heartbeat() > timeout ?
                "silent for " + (now - session.heartbeat()) + " ms" : "process " + session.pid + " is gone");
        }
        toRemove.clear();
        return removed;
    }

    private void remove(final ClientSession session, final String reason)
    {
        sessions.remove(session.clientId);
        scheduler.remove(session.queue);
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
        if (session.nodeId != 0 && !hostedNodes.isShutdown())
        {
            final long nodeId = session.nodeId;
            hostedNodes.execute(() -> driver.deregisterHosted(nodeId));
        }
        try
        {
            Files.deleteIfExists(session.file);
        }
        catch (final java.io.IOException ignore)
        {
            // the next driver start sweeps it
        }
    }

    public void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (length < BODY_OFFSET)
        {
            return;
        }
        command.wrap(buffer, index);
        final long clientId = command.clientId();
        final long correlation = command.correlationId();
        if (type == ADD_CLIENT)
        {
            attach.wrap(buffer, index);
            addClient(clientId, correlation, ServiceClass.ofCode(attach.serviceClassIn(length)),
                attach.weightIn(length), attach.nodeIdIn(length), attach.roleIn(length));
            return;
        }
        final ClientSession session = sessions.get(clientId);
        if (session == null)
        {
            return;
        }
        if (type != REMOVE_CLIENT && scheduler.defer(type, buffer, index, length, session.queue))
        {
            return;
        }
        execute(type, buffer, index, length, session, correlation);
    }

    private void execute(final int type, final MutableDirectBuffer buffer, final int index, final int length,
        final ClientSession session, final long correlation)
    {
        try
        {
            if (type == REMOVE_CLIENT)
            {
                remove(session, "detached");
            }
            else
            {
                commandAdapter.onCommand(type, buffer, index, length, session, correlation);
            }
        }
        catch (final RuntimeException ex)
        {
            session.error(correlation, String.valueOf(ex.getMessage()));
        }
    }

    private void addClient(final long clientId, final long correlation, final ServiceClass asked, final int weight,
        final long nodeId, final int role)
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
            final ClientHeaderFlyweight header = new ClientHeaderFlyweight()
                .wrap(new UnsafeBuffer(mapping.address(), CncDescriptor.CLIENT_HEADER_LENGTH));
            if (!header.isReadyFor(clientId) ||
                mapping.byteSize() < CncDescriptor.clientLength(header.responseLength(), header.dataLength()))
            {
                arena.close();
                return;
            }
            final ClientSession session =
                new ClientSession(registrations, clientId, nodeId, file, arena, mapping, header);
            final String refused = refusedNode(nodeId, session.pid);
            if (refused != null)
            {
                session.error(correlation, refused);
                session.markClosed();
                session.release(registrations);
                Files.deleteIfExists(file);
                return;
            }
            session.queue = new ClientQueue<>(session, asked == null ? defaultClass : asked,
                weight > 0 ? Math.min(weight, RaasConfiguration.MAX_WEIGHT) : defaultWeight);
            sessions.put(clientId, session);
            scheduler.add(session.queue);
            clientsAttached.incrementRelease();
            LOG.log(System.Logger.Level.INFO, "attached " + session);
            if (nodeId == 0)
            {
                session.ready(correlation, driver.self());
                return;
            }
            // ready once the node it is can be found; a client whose node cannot be registered fails its attach and
            // goes, and is removed as any that went
            hostedNodes.execute(() ->
            {
                try
                {
                    driver.registerHosted(nodeId, role);
                    session.ready(correlation, driver.self());
                }
                catch (final RuntimeException ex)
                {
                    session.error(correlation, "node " + nodeId + " cannot be registered in driver node " +
                        driver.self().id() + "'s directory: " + ex.getMessage());
                }
            });
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            arena.close();
            LOG.log(System.Logger.Level.WARNING, "cannot attach client " + Long.toHexString(clientId) + ": " + ex);
        }
    }

    /**
     * @return why a client may not be the node it asks to be (this driver's own id, or a node another process's client
     * is), or null when it may: two listeners of one node's service could not be told apart. The same process's
     * earlier client of that node is removed instead: a handle that judged this driver gone (silent past its timeout
     * on a starved host) attaches again while its first attachment still stands here.
     */
    private String refusedNode(final long nodeId, final long pid)
    {
        if (nodeId == 0)
        {
            return null;
        }
        if (nodeId == driver.self().id())
        {
            return "node " + nodeId + " is this driver's own: attach as another node, or as 0 to share the driver's";
        }
        for (final ClientSession other : sessions.values())
        {
            if (other.nodeId == nodeId)
            {
                if (other.pid != pid)
                {
                    return "node " + nodeId + " is already attached to this driver, by " + other;
                }
                remove(other, "its process attached again as node " + nodeId);
                return null;
            }
        }
        return null;
    }
}
