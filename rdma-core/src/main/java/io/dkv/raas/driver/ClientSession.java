package io.dkv.raas.driver;

import io.dkv.agent.Doorbell;
import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.cnc.ClientHeaderFlyweight;
import io.dkv.raas.cnc.ClientReadyFlyweight;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.raas.cnc.CompletionFlyweight;
import io.dkv.raas.cnc.CorrelatedFlyweight;
import io.dkv.raas.cnc.ErrorFlyweight;
import io.dkv.raas.cnc.OkFlyweight;
import io.dkv.raas.cnc.RegionFlyweight;
import io.dkv.verbs.MemoryRegion;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * What a standalone driver holds for one attached client: its mapped file (response ring and data
 * area, the data area registered once), and the connections, listeners and regions it obtained,
 * which the driver frees when the client closes or dies. Only regions the client obtained can be
 * named in its requests: they are addressed by handle.
 *
 * <p>Responses are written by whichever thread has one to give (the conductor, the thread that
 * polled a completion, a blocking call's thread), so each thread encodes them with flyweights of its
 * own: one shared by those threads would be wrapped by one while another writes through it. The two
 * a request's path writes (OK, COMPLETION) are kept per thread, so that path allocates nothing
 * whether or not the JIT proves a new one does not escape; the rare ones are made per response.
 */
final class ClientSession
{
    private static final ThreadLocal<OkFlyweight> OK = ThreadLocal.withInitial(OkFlyweight::new);
    private static final ThreadLocal<CompletionFlyweight> COMPLETION =
        ThreadLocal.withInitial(CompletionFlyweight::new);

    final long clientId;
    final long pid;
    final Path file;
    private final Arena arena;
    private final ClientHeaderFlyweight header;
    /** Rung after each response, so that a client thread asleep waiting for one wakes at once. */
    private final Doorbell doorbell;
    private final ManyToOneRingBuffer responses;
    final MemorySegment data;
    final MemoryRegion dataRegion;
    final Int2ObjectHashMap<DriverConnection> connections = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<Listener> listeners = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<RemoteRegion> regions = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<RemoteRegion> allocated = new Int2ObjectHashMap<>();
    private int nextHandle = 1;
    volatile boolean closed;
    /** The node the client is, whose services it listens on: 0 for the driver's own. */
    final long nodeId;
    /** How the conductor serves this client's commands, as it asked at attach or by the driver's defaults. */
    ClientQueue<ClientSession> queue;

    /**
     * @param header the client's file's header, checked by the caller.
     */
    ClientSession(
        final Registrations registrations,
        final long clientId,
        final long nodeId,
        final Path file,
        final Arena arena,
        final MemorySegment mapping,
        final ClientHeaderFlyweight header)
    {
        this.clientId = clientId;
        this.nodeId = nodeId;
        this.file = file;
        this.arena = arena;
        this.header = header;
        this.doorbell = header.doorbell();
        this.pid = header.pid();
        final int responseLength = header.responseLength();
        final long ringAddress = mapping.address() + CncDescriptor.CLIENT_HEADER_LENGTH;
        this.responses = new ManyToOneRingBuffer(
            new UnsafeBuffer(ringAddress, responseLength + RingBufferDescriptor.TRAILER_LENGTH));
        this.data = mapping.asSlice(CncDescriptor.dataOffset(responseLength), header.dataLength());
        this.dataRegion = registrations.registerPinned(data);
    }

    long heartbeat()
    {
        return header.heartbeat();
    }

    boolean inData(final long offset, final long length)
    {
        return offset >= 0 && length >= 0 && offset <= data.byteSize() - length;
    }

    int addRegion(final RemoteRegion region)
    {
        final int handle = nextHandle++;
        regions.put(handle, region);
        return handle;
    }

    // ---- responses: written by the conductor, completion handlers and blocking-call threads ----

    void ok(final long correlation, final long value, final long value2)
    {
        final OkFlyweight ok = claim(RSP_OK, OK_LENGTH, correlation, OK.get());
        if (ok != null)
        {
            commit(ok.value(value).value2(value2));
        }
    }

    void completion(final long correlation, final int status, final long value)
    {
        final CompletionFlyweight completion =
            claim(RSP_COMPLETION, COMPLETION_LENGTH, correlation, COMPLETION.get());
        if (completion != null)
        {
            commit(completion.status(status).value(value));
        }
    }

    void error(final long correlation, final String message)
    {
        final byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(bytes.length, MAX_ERROR_LENGTH);
        final ErrorFlyweight error = claim(RSP_ERROR, ErrorFlyweight.length(length), correlation, new ErrorFlyweight());
        if (error != null)
        {
            commit(error.message(bytes, length));
        }
    }

    void region(final long correlation, final int handle, final RemoteRegion region)
    {
        final byte[] name = region.name().getBytes(StandardCharsets.UTF_8);
        final RegionFlyweight response =
            claim(RSP_REGION, RegionFlyweight.length(name.length), correlation, new RegionFlyweight());
        if (response != null)
        {
            commit(response.handle(handle).region(region, name));
        }
    }

    void ready(final long correlation, final NodeRecord self)
    {
        final ClientReadyFlyweight ready =
            claim(RSP_CLIENT_READY, ClientReadyFlyweight.length(self), correlation, new ClientReadyFlyweight());
        if (ready != null)
        {
            commit(ready.node(self));
        }
    }

    /**
     * Room for a response, wrapped by its flyweight with the client id and correlation id written; a
     * client that stopped reading its responses cannot make the driver wait: after a short while the
     * response is dropped (the client will time out and be removed).
     *
     * @return the flyweight, or null when the response is dropped.
     */
    private <T extends CorrelatedFlyweight> T claim(
        final int type, final int length, final long correlation, final T response)
    {
        if (closed)
        {
            return null;
        }
        for (int attempt = 0; attempt < 100_000; attempt++)
        {
            final int index = responses.tryClaim(type, length);
            if (index >= 0)
            {
                response.wrap(responses.buffer(), index).clientId(clientId).correlationId(correlation);
                return response;
            }
            Thread.onSpinWait();
        }
        return null;
    }

    private void commit(final CorrelatedFlyweight response)
    {
        responses.commit(response.offset());
        doorbell.ring();
    }

    void markClosed()
    {
        closed = true;
        header.markClosed();
    }

    void release(final Registrations registrations)
    {
        registrations.deregisterPinned(dataRegion);
        arena.close();
    }

    Connection connection(final int vqpn)
    {
        return connections.get(vqpn);
    }

    public String toString()
    {
        final String node = nodeId == 0 ? "" : ", node " + nodeId;
        return queue == null ? String.format("client %016x (pid %d%s)", clientId, pid, node) :
            String.format("client %016x (pid %d%s, %s, weight %d)", clientId, pid, node, queue.serviceClass,
                queue.weight);
    }
}
