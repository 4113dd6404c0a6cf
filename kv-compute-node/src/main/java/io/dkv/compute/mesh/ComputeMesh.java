package io.dkv.compute.mesh;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.lite.RpcClient;
import io.dkv.raas.lite.RpcServer;
import org.agrona.ErrorHandler;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.dkv.compute.mesh.MeshFrameLayout.FLAGS_OFFSET;
import static io.dkv.compute.mesh.MeshFrameLayout.FLAG_LAST;
import static io.dkv.compute.mesh.MeshFrameLayout.MAX_PAYLOAD;
import static io.dkv.compute.mesh.MeshFrameLayout.MORE_OFFSET;
import static io.dkv.compute.mesh.MeshFrameLayout.REPLY_HEADER;
import static io.dkv.compute.mesh.MeshFrameLayout.REQUEST_HEADER;
import static io.dkv.compute.mesh.MeshFrameLayout.STATUS_OFFSET;
import static io.dkv.compute.mesh.MeshFrameLayout.TRANSFER_OFFSET;
import static io.dkv.compute.mesh.MeshFrameLayout.TYPE_HELLO;
import static io.dkv.compute.mesh.MeshFrameLayout.TYPE_MORE;
import static io.dkv.compute.mesh.MeshFrameLayout.TYPE_OFFSET;

/**
 * The compute nodes of a pool, met over RaaS: each serves calls of its peers on a LITE RPC service
 * ({@link #SERVICE}) and calls them through one {@link RpcClient} a peer. Peers are the live compute nodes the
 * MetaServer lists (role compute) and those that said hello; no address is configured and no socket opened beside
 * RaaS.
 *
 * <p>Joining: a node lists the compute nodes and says hello to each before it is {@link #ready()}; a hello carries
 * what the {@link Participant} hands a new peer both ways (its subscriptions, for pub/sub), and each side counts the
 * other a peer before it builds what it hands over, so a change made meanwhile reaches the other by a call of its own.
 * Of two nodes starting together at least one lists the other (each registered with the MetaServer before it lists),
 * so every pair meets. A refresher lists the compute nodes every {@link #REFRESH_MS} ms: a node gone from the list
 * is dropped; one listed and not met, or whose call failed, is greeted again (a fresh exchange replaces what each
 * holds of the other, so a missed change heals).
 *
 * <p>Handlers run on the RPC service's one thread and must not wait (nor call peers). Calls may come from any
 * thread; calls to one peer go one at a time.
 */
public final class ComputeMesh implements AutoCloseable
{
    /** The RaaS service number compute nodes serve their peers on. */
    public static final int SERVICE = 0x4353;
    /** How often the compute nodes are listed. */
    public static final long REFRESH_MS = 250;

    /** Serves one type of call, on the service's thread. */
    @FunctionalInterface
    public interface Handler
    {
        /**
         * @param caller  the calling node's id.
         * @param request the request's payload.
         * @return the reply's payload, empty for none.
         * @throws RuntimeException to fail the call, its message the caller's error.
         */
        byte[] handle(long caller, ByteBuffer request);
    }

    /** What a node hands a peer when they meet, and drops when it leaves. */
    public interface Participant
    {
        /** @return what a peer just counted is to know of this node (built after it is counted). */
        byte[] handOver(long peer);

        /** A peer's hand-over, replacing what was held of it. */
        void takeOver(long peer, ByteBuffer handedOver);

        /** The peer left (or is met anew): forget what was held of it. */
        void left(long peer);
    }

    private final Raas raas;
    private final long selfId;
    private final long incarnation = ThreadLocalRandom.current().nextLong();
    private final Duration callTimeout;
    private final ErrorHandler errors;
    private final Handler[] handlers = new Handler[128];
    private final Map<Long, Peer> peers = new ConcurrentHashMap<>();
    private final AtomicInteger transfers = new AtomicInteger();
    private final CountDownLatch met = new CountDownLatch(1);
    /** Parts of requests being gathered and rests of replies being fetched: the service thread's alone. */
    private final Map<Long, Map<Integer, ByteBuffer>> partials = new ConcurrentHashMap<>();
    private final Thread refresher;
    private Participant participant;
    private RpcServer server;
    private volatile boolean closed;

    private static final class Peer
    {
        final long id;
        volatile long incarnation;
        volatile boolean greet;
        RpcClient client;
        MemorySegment reply;
        Arena arena;

        Peer(final long id)
        {
            this.id = id;
        }
    }

    /**
     * @param raas        the node's handle, registered as role compute.
     * @param callTimeout how long a call waits for its peer: a peer paused longer is taken as not answering.
     * @param errors      where failed calls of the refresher and the service are counted.
     */
    public ComputeMesh(final Raas raas, final Duration callTimeout, final ErrorHandler errors)
    {
        this.raas = raas;
        this.selfId = raas.self().id();
        this.callTimeout = callTimeout;
        this.errors = errors;
        this.refresher = new Thread(this::refreshLoop, "dkv-mesh-" + selfId);
        refresher.setDaemon(true);
    }

    /** @param type a handler's type, from {@link MeshFrameLayout#FIRST_HANDLER_TYPE}; before {@link #start}. */
    public void handle(final byte type, final Handler handler)
    {
        if (type < MeshFrameLayout.FIRST_HANDLER_TYPE || handlers[type] != null)
        {
            throw new IllegalArgumentException("handler type " + type + " is reserved or taken");
        }
        handlers[type] = handler;
    }

    /** @param participant what meeting a peer hands over; before {@link #start}. */
    public void participant(final Participant participant)
    {
        this.participant = participant;
    }

    /** Serve peers' calls, then meet every compute node listed, in the background. */
    public void start()
    {
        server = RpcServer.start(raas, SERVICE, this::serve);
        refresher.start();
    }

    /** @return this node's id. */
    public long selfId()
    {
        return selfId;
    }

    /**
     * @return the peers to call, by id: those met or being met, less those whose last call failed (until the
     * refresher met them again, which hands over what they missed).
     */
    public List<Long> peers()
    {
        final List<Long> callable = new ArrayList<>(peers.size());
        for (final Peer peer : peers.values())
        {
            if (!peer.greet)
            {
                callable.add(peer.id);
            }
        }
        return callable;
    }

    /**
     * @return every peer this node knows, by id, those whose last call failed too: the nodes a change that every node
     * of the pool must take is to reach ({@link #call} fails at once for one not met again yet).
     */
    public List<Long> known()
    {
        return new ArrayList<>(peers.keySet());
    }

    /** @return true once every compute node listed at the start was met (or found not answering). */
    public boolean ready()
    {
        return met.getCount() == 0;
    }

    /** Wait until {@link #ready()}, at most {@code timeout}. @return whether it is. */
    public boolean awaitReady(final Duration timeout)
    {
        try
        {
            return met.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Call a peer and wait for its reply.
     *
     * @return the reply's payload.
     * @throws MeshException when the peer does not answer within the call timeout, is gone, or its handler failed; a
     *                       peer that did not answer is greeted again by the refresher.
     */
    public byte[] call(final long peerId, final byte type, final byte[] payload)
    {
        final Peer peer = peers.get(peerId);
        if (peer == null)
        {
            throw new MeshException("compute node " + peerId + " is not a peer of node " + selfId);
        }
        if (peer.greet)
        {
            throw new MeshException("compute node " + peerId + " did not answer its last call; it is met again " +
                "within " + REFRESH_MS + " ms");
        }
        return call(peer, type, payload);
    }

    private byte[] call(final Peer peer, final byte type, final byte[] payload)
    {
        final int transfer = transfers.incrementAndGet();
        synchronized (peer)
        {
            try
            {
                int offset = 0;
                ByteBuffer reply;
                do
                {
                    final int length = Math.min(MAX_PAYLOAD, payload.length - offset);
                    final boolean last = offset + length == payload.length;
                    final byte[] frame = new byte[REQUEST_HEADER + length];
                    frame[TYPE_OFFSET] = type;
                    frame[FLAGS_OFFSET] = last ? FLAG_LAST : 0;
                    ByteBuffer.wrap(frame).putInt(TRANSFER_OFFSET, transfer);
                    System.arraycopy(payload, offset, frame, REQUEST_HEADER, length);
                    reply = rpc(peer, frame);
                    offset += length;
                    if (last)
                    {
                        break;
                    }
                }
                while (true);
                if (reply.get(MORE_OFFSET) == 0)
                {
                    return payloadOf(reply);
                }
                final java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
                whole.writeBytes(payloadOf(reply));
                final byte[] more = new byte[REQUEST_HEADER];
                more[TYPE_OFFSET] = TYPE_MORE;
                more[FLAGS_OFFSET] = FLAG_LAST;
                ByteBuffer.wrap(more).putInt(TRANSFER_OFFSET, transfer);
                do
                {
                    reply = rpc(peer, more);
                    whole.writeBytes(payloadOf(reply));
                }
                while (reply.get(MORE_OFFSET) != 0);
                return whole.toByteArray();
            }
            catch (final RaasException ex)
            {
                // the connection may hold a late reply or be broken: the next call makes a new one
                dropClient(peer);
                peer.greet = true;
                throw new MeshException("call to compute node " + peer.id + " failed: " + ex.getMessage(), ex);
            }
        }
    }

    /** One RPC to the peer, under its lock. @return the reply frame. */
    private ByteBuffer rpc(final Peer peer, final byte[] frame)
    {
        if (peer.client == null)
        {
            peer.client = RpcClient.connect(raas, peer.id, SERVICE);
            peer.arena = Arena.ofShared();
            peer.reply = peer.arena.allocate(RpcServer.MAX_MESSAGE_BYTES_DEFAULT);
        }
        final int length = peer.client.call(MemorySegment.ofArray(frame), 0, frame.length, peer.reply, 0,
            (int)peer.reply.byteSize(), callTimeout);
        final ByteBuffer reply = ByteBuffer.wrap(peer.reply.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
        if (length < REPLY_HEADER)
        {
            throw new RaasException("a reply of " + length + " bytes from compute node " + peer.id);
        }
        if (reply.get(STATUS_OFFSET) != MeshFrameLayout.STATUS_OK)
        {
            throw new MeshException("compute node " + peer.id + " refused the call: " +
                new String(payloadOf(reply), java.nio.charset.StandardCharsets.UTF_8));
        }
        return reply;
    }

    private static byte[] payloadOf(final ByteBuffer reply)
    {
        final byte[] payload = new byte[reply.limit() - REPLY_HEADER];
        reply.get(REPLY_HEADER, payload);
        return payload;
    }

    private static void dropClient(final Peer peer)
    {
        if (peer.client != null)
        {
            peer.client.close();
            peer.arena.close();
            peer.client = null;
            peer.reply = null;
            peer.arena = null;
        }
    }

    /** The RPC service's handler: gathers parts, runs the request's handler, hands out the reply in parts. */
    private int serve(final long caller, final MemorySegment request, final int length, final MemorySegment reply)
    {
        if (length < REQUEST_HEADER)
        {
            throw new IllegalArgumentException("a request of " + length + " bytes from compute node " + caller);
        }
        final byte type = request.get(ValueLayout.JAVA_BYTE, TYPE_OFFSET);
        final boolean last = (request.get(ValueLayout.JAVA_BYTE, FLAGS_OFFSET) & FLAG_LAST) != 0;
        final int transfer = ByteBuffer.wrap(request.asSlice(TRANSFER_OFFSET, Integer.BYTES)
            .toArray(ValueLayout.JAVA_BYTE)).getInt();
        final byte[] part = request.asSlice(REQUEST_HEADER, length - REQUEST_HEADER).toArray(ValueLayout.JAVA_BYTE);
        final Map<Integer, ByteBuffer> ofCaller = partials.computeIfAbsent(caller, id -> new ConcurrentHashMap<>());
        final ByteBuffer out;
        if (type == TYPE_MORE)
        {
            out = ofCaller.remove(transfer);
            if (out == null)
            {
                throw new IllegalStateException("no reply of transfer " + transfer + " is kept for compute node " +
                    caller);
            }
        }
        else
        {
            final ByteBuffer gathered = ofCaller.remove(transfer);
            final ByteBuffer whole = gathered == null ? ByteBuffer.wrap(part) : append(gathered, part);
            if (!last)
            {
                ofCaller.put(transfer, whole);
                return header(reply, MeshFrameLayout.STATUS_OK, false);
            }
            whole.rewind();
            out = ByteBuffer.wrap(dispatch(caller, type, whole));
        }
        final int chunk = Math.min(MAX_PAYLOAD, out.remaining());
        final boolean more = chunk < out.remaining();
        MemorySegment.copy(out.array(), out.arrayOffset() + out.position(), reply, ValueLayout.JAVA_BYTE,
            REPLY_HEADER, chunk);
        out.position(out.position() + chunk);
        if (more)
        {
            ofCaller.put(transfer, out);
        }
        return header(reply, MeshFrameLayout.STATUS_OK, more) + chunk;
    }

    private byte[] dispatch(final long caller, final byte type, final ByteBuffer request)
    {
        if (type == TYPE_HELLO)
        {
            return welcome(caller, request);
        }
        final Handler handler = type > 0 && type < handlers.length ? handlers[type] : null;
        if (handler == null)
        {
            throw new IllegalArgumentException("compute node " + selfId + " serves no call of type " + type);
        }
        return handler.handle(caller, request);
    }

    private static ByteBuffer append(final ByteBuffer gathered, final byte[] part)
    {
        final ByteBuffer grown = ByteBuffer.allocate(gathered.position() + part.length);
        grown.put(gathered.array(), 0, gathered.position()).put(part);
        return grown;
    }

    private static int header(final MemorySegment reply, final byte status, final boolean more)
    {
        reply.set(ValueLayout.JAVA_BYTE, STATUS_OFFSET, status);
        reply.set(ValueLayout.JAVA_BYTE, MORE_OFFSET, (byte)(more ? 1 : 0));
        return REPLY_HEADER;
    }

    /** A peer said hello: it is counted (anew if it is another incarnation), its hand-over taken, ours answered. */
    private byte[] welcome(final long caller, final ByteBuffer request)
    {
        final long callerIncarnation = request.getLong();
        final Peer known = peers.get(caller);
        if (known != null && known.incarnation != callerIncarnation)
        {
            // the node was met before, as another process: what was held of it is that one's
            participant.left(caller);
        }
        final Peer peer = peers.computeIfAbsent(caller, Peer::new);
        peer.incarnation = callerIncarnation;
        // met now, whatever a call before it met (a node listed before it served its peers refuses calls)
        peer.greet = false;
        participant.takeOver(caller, request.slice());
        return withIncarnation(participant.handOver(caller));
    }

    private byte[] withIncarnation(final byte[] handedOver)
    {
        return ByteBuffer.allocate(Long.BYTES + handedOver.length).putLong(incarnation).put(handedOver).array();
    }

    /** Meet a node: count it, then exchange hand-overs. @return whether it answered. */
    private boolean greet(final long nodeId)
    {
        final Peer peer = peers.computeIfAbsent(nodeId, Peer::new);
        peer.greet = false;
        try
        {
            final ByteBuffer reply = ByteBuffer.wrap(call(peer, TYPE_HELLO, withIncarnation(participant.handOver(
                nodeId))));
            final long theirs = reply.getLong();
            if (peer.incarnation != 0 && peer.incarnation != theirs)
            {
                participant.left(nodeId);
            }
            peer.incarnation = theirs;
            participant.takeOver(nodeId, reply.slice());
            return true;
        }
        catch (final MeshException ex)
        {
            errors.onError(ex);
            peer.greet = true;
            return false;
        }
    }

    private void refreshLoop()
    {
        boolean first = true;
        while (!closed)
        {
            try
            {
                refresh();
            }
            catch (final RuntimeException ex)
            {
                errors.onError(ex);
            }
            if (first)
            {
                first = false;
                met.countDown();
            }
            try
            {
                Thread.sleep(REFRESH_MS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    /** List the compute nodes: drop the peers gone, greet the nodes not met and the peers whose call failed. */
    private void refresh()
    {
        final List<NodeRecord> listed = raas.nodes(NodeRecord.ROLE_COMPUTE);
        final Set<Long> live = new HashSet<>();
        for (final NodeRecord node : listed)
        {
            live.add(node.id());
        }
        for (final Peer peer : peers.values())
        {
            if (!live.contains(peer.id))
            {
                peers.remove(peer.id);
                partials.remove(peer.id);
                participant.left(peer.id);
                synchronized (peer)
                {
                    dropClient(peer);
                }
            }
        }
        for (final long id : live)
        {
            if (id == selfId || closed)
            {
                continue;
            }
            final Peer peer = peers.get(id);
            if (peer == null || peer.greet || peer.incarnation == 0)
            {
                greet(id);
            }
        }
    }

    public void close()
    {
        closed = true;
        refresher.interrupt();
        try
        {
            refresher.join(callTimeout.toMillis() + REFRESH_MS * 2);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        if (server != null)
        {
            server.close();
        }
        for (final Peer peer : peers.values())
        {
            synchronized (peer)
            {
                dropClient(peer);
            }
        }
        peers.clear();
    }
}
