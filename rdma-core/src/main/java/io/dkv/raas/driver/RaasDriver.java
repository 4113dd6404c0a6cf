package io.dkv.raas.driver;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Directory;
import io.dkv.raas.Listener;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;
import io.dkv.verbs.AddressHandle;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.DcTarget;
import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.SharedReceiveQueue;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.WcOpcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The RaaS driver of a host: one verbs device, a pool of shared DC initiators (and RC queue pairs
 * to hot peers), a DC target with a shared receive queue for incoming messages, and the logical
 * connections multiplexed over them.
 *
 * <p>Submission is lock-free for callers: a request goes into a many-producer queue and whichever
 * thread holds the submitter role (a caller, or the Worker agent) drains it into doorbell batches;
 * an uncontended caller posts directly. Completions are polled the same way (a waiting caller, or
 * the Poller agent) and dispatched to their connection by the vQPN in wr_id.
 */
public final class RaasDriver implements Raas
{
    private static final java.lang.invoke.VarHandle CALLER_POLLED;

    static
    {
        try
        {
            CALLER_POLLED = java.lang.invoke.MethodHandles.lookup().findVarHandle(RaasDriver.class, "callerPolled", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    static final ValueLayout.OfLong BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final int VQPN_INDEX_BITS = 20;
    static final int MAX_CONNECTIONS = 1 << VQPN_INDEX_BITS;
    static final int MAX_RETRIES = 8;
    private static final System.Logger LOG = System.getLogger(RaasDriver.class.getName());

    final RaasContext context;
    final Directory directory;
    final Device device;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final SharedReceiveQueue srq;
    final DcTarget dct;
    final NodeRecord self;
    final MemoryRegion staging;
    final int stagingSlotBytes;
    final RequestSlot[] slots;
    final ManyToManyConcurrentArrayQueue<RequestSlot> freeSlots;
    final ManyToOneConcurrentArrayQueue<RequestSlot> pending;
    final PooledQp[] dcis;
    /** The driver's datagram queue pair, for messages sent with FORCE_UD. */
    final PooledQp ud;
    final List<PooledQp> pooled = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicBoolean submitting = new AtomicBoolean();
    private final AtomicBoolean polling = new AtomicBoolean();
    private final WorkCompletion[] sendCompletions = new WorkCompletion[64];
    private final WorkCompletion[] recvCompletions = new WorkCompletion[64];
    private final Long2ObjectHashMap<NodeRoute> routes = new Long2ObjectHashMap<>();
    private long routesGivenUp;
    private final AtomicReferenceArray<DriverConnection> connections;
    private final int[] connectionGenerations;
    private final AtomicInteger deferredCount = new AtomicInteger();
    private volatile boolean maintenance;
    private final Map<RemoteRegion, Boolean> knownRegions = new ConcurrentHashMap<>();
    private final Map<String, MemoryRegion> localRegions = new ConcurrentHashMap<>();
    final Messaging messaging;
    /** Queue pairs with a doorbell batch being built by the submitter (an array: this is on every request's path). */
    private PooledQp[] toPost = new PooledQp[8];
    private int toPostCount;
    private int nextConnectionIndex = 1;
    private int pollTurn;
    @SuppressWarnings("unused")
    private boolean callerPolled;
    private volatile long clockMillis = System.currentTimeMillis();
    private AgentRunner worker;
    private AgentRunner poller;
    private volatile boolean closed;

    private RaasDriver(final RaasContext context, final Directory directory)
    {
        this.context = context.conclude();
        this.directory = directory;
        this.device = Verbs.open(context.verbs());
        try
        {
            pd = device.allocPd();
            final int depth = context.qpDepth();
            final int cqDepth = Math.min(device.attributes().maxCqe(),
                BitUtil.findNextPositivePowerOfTwo(depth * (context.dciCount() + 8) + context.requestSlots()));
            sendCq = device.createCq(cqDepth);
            recvCq = device.createCq(Math.min(device.attributes().maxCqe(), context.receiveBuffers() * 2 + 64));
            srq = pd.createSrq(context.receiveBuffers(), 1);
            final long dcKey = context.dcKey() != 0 ? context.dcKey() : ThreadLocalRandom.current().nextLong();
            dct = pd.createDct(new DctInitAttributes().cq(recvCq).srq(srq).dcKey(dcKey).accessFlags(Access.REMOTE_MASK));
            self = new NodeRecord(context.nodeId(), context.role(), device.address(), dct.dctNumber(), dcKey,
                System.currentTimeMillis(), 0);

            stagingSlotBytes = BitUtil.align(Math.max(context.stagingBytes(), 256), 64);
            staging = pd.allocate((long)stagingSlotBytes * context.requestSlots(), Access.LOCAL_WRITE);
            slots = new RequestSlot[context.requestSlots()];
            freeSlots = new ManyToManyConcurrentArrayQueue<>(BitUtil.findNextPositivePowerOfTwo(context.requestSlots()));
            for (int i = 0; i < slots.length; i++)
            {
                final long offset = (long)i * stagingSlotBytes;
                slots[i] = new RequestSlot(i, staging.segment().asSlice(offset, stagingSlotBytes), offset);
                freeSlots.offer(slots[i]);
            }
            pending = new ManyToOneConcurrentArrayQueue<>(BitUtil.findNextPositivePowerOfTwo(context.requestSlots()));

            dcis = new PooledQp[context.dciCount()];
            for (int i = 0; i < dcis.length; i++)
            {
                final QueuePair qp = pd.createQp(new QpInitAttributes().type(QpType.DCI).sendCq(sendCq)
                    .maxSendWr(depth).maxSendSge(1).maxInlineData(64));
                bringUp(qp);
                dcis[i] = new PooledQp(qp, depth, depth);
                pooled.add(dcis[i]);
            }
            final QueuePair udQp = pd.createQp(new QpInitAttributes().type(QpType.UD).sendCq(sendCq).recvCq(recvCq).srq(srq)
                .maxSendWr(depth).maxSendSge(1).maxInlineData(64));
            udQp.modify(QpAttributes.init(0).qkey(io.dkv.raas.ControlHeader.UD_QKEY));
            udQp.modify(QpAttributes.rtr());
            udQp.modify(QpAttributes.rts());
            ud = new PooledQp(udQp, depth, depth);
            pooled.add(ud);
            for (int i = 0; i < sendCompletions.length; i++)
            {
                sendCompletions[i] = new WorkCompletion();
                recvCompletions[i] = new WorkCompletion();
            }
            final int maxConnections = MAX_CONNECTIONS;
            connections = new AtomicReferenceArray<>(maxConnections);
            connectionGenerations = new int[maxConnections];
            messaging = new Messaging(this);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(device);
            throw ex;
        }
    }

    /**
     * Start a driver in this JVM, with its Worker and Poller agents unless the context says not to.
     */
    public static RaasDriver start(final RaasContext context, final Directory directory)
    {
        final RaasDriver driver = new RaasDriver(context, directory);
        try
        {
            if (context.startAgents())
            {
                driver.startAgents();
            }
            directory.attach(driver);
            directory.register(driver.self);
        }
        catch (final RuntimeException ex)
        {
            driver.close();
            throw ex;
        }
        return driver;
    }

    private void startAgents()
    {
        final BackoffIdleStrategy workerIdle = new BackoffIdleStrategy(100, 100, 1_000, 1_000_000);
        final BackoffIdleStrategy pollerIdle = new BackoffIdleStrategy(100, 100, 1_000, 1_000_000);
        worker = new AgentRunner(workerIdle, Throwable::printStackTrace, (AtomicCounter)null, new WorkerAgent(this));
        poller = new AgentRunner(pollerIdle, Throwable::printStackTrace, (AtomicCounter)null, new PollerAgent(this));
        AgentRunner.startOnThread(worker, daemonThreads());
        AgentRunner.startOnThread(poller, daemonThreads());
    }

    private static java.util.concurrent.ThreadFactory daemonThreads()
    {
        return runnable ->
        {
            final Thread thread = new Thread(runnable);
            thread.setDaemon(true);
            return thread;
        };
    }

    static void bringUp(final QueuePair qp)
    {
        qp.modify(QpAttributes.init(0));
        qp.modify(QpAttributes.rtr());
        qp.modify(QpAttributes.rts());
    }

    // ---------------------------------------------------------------------------------------------
    // Raas

    public NodeRecord self()
    {
        return self;
    }

    /**
     * @return the protection domain the driver's regions are registered in, for raw verbs beside the
     * driver on the same memory (benchmarks, diagnostics); what the caller creates in it is the
     * caller's to close, before the driver closes.
     */
    public ProtectionDomain protectionDomain()
    {
        return pd;
    }

    public Directory directory()
    {
        return directory;
    }

    public Connection open(final long nodeId, final CompletionHandler handler)
    {
        requireOpen();
        return newConnection(route(nodeId), handler);
    }

    public Connection connect(final long nodeId, final int service, final int flags, final CompletionHandler handler)
    {
        requireOpen();
        io.dkv.raas.Flags.validate(flags);
        final DriverConnection connection = newConnection(route(nodeId), handler);
        try
        {
            messaging.connect(connection, service, flags);
        }
        catch (final RuntimeException ex)
        {
            connection.close();
            throw ex;
        }
        return connection;
    }

    public Listener listen(final int service)
    {
        requireOpen();
        return messaging.listen(service);
    }

    public RemoteRegion malloc(final long nodeId, final long size, final String name, final int access)
    {
        requireOpen();
        requireRemoteRights(access, name);
        if (nodeId != self.id())
        {
            return messaging.remoteMalloc(route(nodeId), size, name, access);
        }
        return allocateLocal(size, name, access);
    }

    static void requireRemoteRights(final int access, final String name)
    {
        if (access == 0 || (access & ~Access.REMOTE_MASK) != 0)
        {
            throw new RaasException("region '" + name + "' asks for access " + Access.describe(access) +
                ": give the remote rights its users need (REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC), and only those");
        }
    }

    /** Allocate and publish a region of this node's memory, registered with only the remote rights given. */
    RemoteRegion allocateLocal(final long size, final String name, final int access)
    {
        if (!name.isEmpty() && localRegions.containsKey(name))
        {
            throw new RaasException("a region named '" + name + "' already exists");
        }
        final RemoteRegion published = name.isEmpty() ? null : directory.region(name);
        // a node that restarted with its id takes back the names its previous incarnation published
        if (published != null && (published.nodeId() != self.id() || published.nodeEpoch() == self.epoch()))
        {
            throw new RaasException("a region named '" + name + "' already exists (on node " + published.nodeId() + ")");
        }
        requireRemoteRights(access, name);
        // remote writes and atomics need local write too (ibv_reg_mr refuses them without it)
        final int local = (access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 ? Access.LOCAL_WRITE : 0;
        final MemoryRegion memory = pd.allocate(size, local | access);
        final RemoteRegion region = RemoteRegion.of(memory, name, self.id(), self.epoch(), access, 1);
        localRegions.put(regionKey(region), memory);
        knownRegions.put(region, Boolean.TRUE);
        if (!name.isEmpty())
        {
            directory.publish(region);
        }
        return region;
    }

    private static String regionKey(final RemoteRegion region)
    {
        return region.name().isEmpty() ? "#" + region.rkey() : region.name();
    }

    public List<NodeRecord> nodes(final int role)
    {
        requireOpen();
        try
        {
            return directory.nodes(role);
        }
        catch (final UnsupportedOperationException ex)
        {
            throw new RaasException(ex.getMessage(), ex);
        }
    }

    public RemoteRegion lookup(final String name)
    {
        requireOpen();
        final RemoteRegion region = directory.region(name);
        if (region == null)
        {
            throw new RaasException("no region named '" + name + "' in the directory");
        }
        knownRegions.put(region, Boolean.TRUE);
        return region;
    }

    public void free(final RemoteRegion region)
    {
        if (region.nodeId() != self.id())
        {
            throw new RaasException("region '" + region.name() + "' belongs to node " + region.nodeId() + "; only its node frees it");
        }
        final MemoryRegion memory = localRegions.remove(regionKey(region));
        if (memory == null)
        {
            throw new RaasException("region '" + region.name() + "' was not allocated by this driver");
        }
        knownRegions.remove(region);
        if (!region.name().isEmpty())
        {
            directory.withdraw(region.name());
        }
        memory.deregister();
    }

    public MemorySegment localMemory(final RemoteRegion region)
    {
        final MemoryRegion memory = localRegions.get(regionKey(region));
        if (memory == null || region.nodeId() != self.id())
        {
            throw new RaasException("region '" + region.name() + "' is not memory of this node");
        }
        return memory.segment();
    }

    /** @return the device under the driver, for its own figures (a tcp engine's links, say). */
    public Device device()
    {
        return device;
    }

    public MemorySegment allocateBuffer(final int size)
    {
        requireOpen();
        final MemoryRegion region = pd.allocate(size, Access.LOCAL_WRITE);
        registrations.pin(region);
        return region.segment();
    }

    /** Make a region obtained elsewhere (e.g. in an RPC reply) usable by this driver's connections. */
    public void trust(final RemoteRegion region)
    {
        knownRegions.put(region, Boolean.TRUE);
    }

    boolean owns(final RemoteRegion region)
    {
        return knownRegions.containsKey(region);
    }

    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            directory.detach();
        }
        catch (final RuntimeException ignore)
        {
            // closing anyway: the directory's lease on this node will expire
        }
        closed = true;
        CloseHelper.quietCloseAll(worker, poller);
        for (int i = 0; i < connections.length(); i++)
        {
            final DriverConnection connection = connections.get(i);
            if (connection != null)
            {
                connection.closeQuietly();
            }
        }
        device.close();
    }

    boolean isClosed()
    {
        return closed;
    }

    private void requireOpen()
    {
        if (closed)
        {
            throw new RaasException("RaaS driver of node " + self.id() + " is closed");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // routes and connections

    NodeRoute route(final long nodeId)
    {
        synchronized (routes)
        {
            final NodeRoute existing = routes.get(nodeId);
            if (existing != null && !existing.stale)
            {
                return existing;
            }
        }
        // not under the lock: a directory may read the MetaServer through this driver, and the poller
        // that completes that READ takes the lock when a CONNECT arrives
        final NodeRecord node = directory.node(nodeId);
        if (node == null)
        {
            throw new RaasException("node " + nodeId + " is not in the directory");
        }
        if (!node.address().provider().equals(device.provider()))
        {
            throw new RaasException("node " + nodeId + " is at " + node.address() + "; this driver uses " + device.provider());
        }
        synchronized (routes)
        {
            final NodeRoute existing = routes.get(nodeId);
            if (existing != null && !existing.stale)
            {
                return existing;
            }
            return replaceRoute(existing, node);
        }
    }

    /**
     * The route to a node as it described itself (in a CONNECT): replaces a cached route of an older
     * incarnation.
     */
    NodeRoute routeFor(final NodeRecord node)
    {
        synchronized (routes)
        {
            final NodeRoute existing = routes.get(node.id());
            if (existing != null && !existing.stale && existing.node.epoch() == node.epoch() && existing.node.dcKey() == node.dcKey())
            {
                return existing;
            }
            return replaceRoute(existing, node);
        }
    }

    /**
     * A route to the node as its record now says, in place of the one there was (stale, or of an
     * older incarnation), keeping its address handle when the address is the same and its
     * promotion back-off. Called holding the routes' lock.
     */
    private NodeRoute replaceRoute(final NodeRoute existing, final NodeRecord node)
    {
        final AddressHandle ah = existing != null && existing.node.address().equals(node.address()) ?
            existing.ah : pd.createAh(node.address());
        final NodeRoute route = new NodeRoute(node, ah, dcis[(Long.hashCode(node.id()) & 0x7fffffff) % dcis.length]);
        if (existing != null)
        {
            route.promoteNotBeforeMillis = existing.promoteNotBeforeMillis;
        }
        else if (routes.size() >= context.maxRoutes())
        {
            giveUpARoute();
        }
        routes.put(node.id(), route);
        return route;
    }

    /**
     * Make room for a route: node ids cost a peer nothing to make up, one per message. A route without
     * an RC queue pair is given up (connections that hold it keep using it; the next lookup of its node
     * makes it again from the directory). Called holding the routes' lock.
     */
    private void giveUpARoute()
    {
        final Long2ObjectHashMap<NodeRoute>.ValueIterator candidates = routes.values().iterator();
        while (candidates.hasNext())
        {
            final NodeRoute candidate = candidates.next();
            if (candidate.rc == null && !candidate.promoting && candidate.node.id() != self.id())
            {
                candidates.remove();
                routesGivenUp++;
                return;
            }
        }
    }

    /** @return routes given up to keep within maxRoutes. */
    public long routesGivenUp()
    {
        synchronized (routes)
        {
            return routesGivenUp;
        }
    }

    /** @return routes to nodes the driver keeps now. */
    public int routeCount()
    {
        synchronized (routes)
        {
            return routes.size();
        }
    }

    /** A request to the node failed as if its metadata were stale: read it anew next time. */
    void markStale(final NodeRoute route)
    {
        if (!route.stale)
        {
            route.stale = true;
            directory.invalidate(route.node.id());
        }
    }

    DriverConnection newConnection(final NodeRoute route, final CompletionHandler handler)
    {
        synchronized (connections)
        {
            for (int i = 0; i < MAX_CONNECTIONS - 1; i++)
            {
                final int index = nextConnectionIndex;
                nextConnectionIndex = index + 1 == MAX_CONNECTIONS ? 1 : index + 1;
                if (connections.get(index) == null)
                {
                    int generation = (connectionGenerations[index] + 1) & 0x7ff;
                    if (generation == 0)
                    {
                        generation = 1;
                    }
                    connectionGenerations[index] = generation;
                    final DriverConnection connection = new DriverConnection(this, generation << VQPN_INDEX_BITS | index, route, handler);
                    connections.set(index, connection);
                    return connection;
                }
            }
        }
        throw new RaasException("driver has " + (MAX_CONNECTIONS - 1) + " logical connections; no vQPN is free");
    }

    DriverConnection connection(final int vqpn)
    {
        final DriverConnection connection = connections.get(vqpn & (MAX_CONNECTIONS - 1));
        return connection != null && connection.vqpn() == vqpn ? connection : null;
    }

    void release(final DriverConnection connection)
    {
        connections.compareAndSet(connection.vqpn() & (MAX_CONNECTIONS - 1), connection, null);
    }

    /** @return logical connections open now. */
    public int connectionCount()
    {
        int count = 0;
        for (int i = 0; i < connections.length(); i++)
        {
            if (connections.get(i) != null)
            {
                count++;
            }
        }
        return count;
    }

    // ---------------------------------------------------------------------------------------------
    // request slots

    RequestSlot acquireSlot()
    {
        RequestSlot slot;
        int spins = 0;
        while ((slot = freeSlots.poll()) == null)
        {
            requireOpen();
            if (poll() == 0)
            {
                idle(++spins);
            }
        }
        slot.state = RequestSlot.PENDING;
        return slot;
    }

    void releaseSlot(final RequestSlot slot)
    {
        slot.clear();
        freeSlots.offer(slot);
    }

    /**
     * Back off while waiting: spin a little, then yield, which on two cores lets the thread that
     * has the work (a NIC engine, a peer) run.
     */
    static void idle(final int spins)
    {
        if (spins < 64)
        {
            Thread.onSpinWait();
        }
        else
        {
            Thread.yield();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // virtual QP checks and one-sided requests

    /**
     * The checks a request passes before it may reach a shared queue pair.
     *
     * @return {@link RaasStatus#SUCCESS} or why it is refused.
     */
    int check(final RemoteRegion region, final long offset, final int length, final int requiredAccess, final boolean atomic)
    {
        return check(region, offset, length, requiredAccess, atomic, false);
    }

    /**
     * @param knownOwned the caller checked this very region object before (ownership only grows until
     *                   the region is freed, when its node refuses requests anyway).
     */
    int check(
        final RemoteRegion region,
        final long offset,
        final int length,
        final int requiredAccess,
        final boolean atomic,
        final boolean knownOwned)
    {
        if (!knownOwned && !owns(region))
        {
            return RaasStatus.NOT_OWNED;
        }
        if (!region.contains(offset, length))
        {
            return RaasStatus.OUT_OF_BOUNDS;
        }
        if ((region.access() & requiredAccess) == 0)
        {
            return RaasStatus.NOT_PERMITTED;
        }
        if (atomic && ((region.address() + offset) & 7) != 0)
        {
            return RaasStatus.MISALIGNED;
        }
        return RaasStatus.SUCCESS;
    }

    /**
     * Fill a slot's work request for a one-sided operation. Small transfers go through the slot's
     * staging memory; larger ones use the caller's memory, registered once and cached.
     */
    void prepareOneSided(
        final RequestSlot slot,
        final DriverConnection connection,
        final Opcode opcode,
        final RemoteRegion region,
        final long offset,
        final MemorySegment local,
        final long localOffset,
        final int length,
        final MemoryRegion registeredLocal,
        final long registeredOffset)
    {
        slot.kind = RequestSlot.KIND_ONE_SIDED;
        slot.connection = connection;
        slot.route = connection.route();
        slot.vqpn = connection.vqpn();
        slot.opcode = opcode;
        slot.length = length;
        final SendWorkRequest wr = slot.wr;
        wr.reset().wrId(slot.wrId()).opcode(opcode).sendFlags(SendFlags.SIGNALED).remote(region.address() + offset, region.rkey());
        if (opcode.isAtomic())
        {
            slot.atomicResult = true;
            wr.local(staging, slot.stagingOffset, 8);
        }
        else if (registeredLocal != null)
        {
            wr.local(registeredLocal, registeredOffset, length);
        }
        else if (local.isNative() && length > stagingSlotBytes && length > context.copyThreshold())
        {
            final MemoryRegion registered = registrations.registered(local);
            wr.local(registered, local.address() - registered.address() + localOffset, length);
        }
        else
        {
            final MemoryRegion bounceRegion;
            final long bounceOffset;
            if (length <= stagingSlotBytes)
            {
                bounceRegion = staging;
                bounceOffset = slot.stagingOffset;
                slot.bounce = slot.staging;
            }
            else if (length <= messaging.sendBufferBytes)
            {
                final Messaging.SendBuffer buffer = messaging.acquireSendBuffer();
                slot.sendBuffer = buffer.index;
                bounceRegion = messaging.sendPool;
                bounceOffset = buffer.offset;
                slot.bounce = messaging.sendPool.segment().asSlice(buffer.offset, length);
            }
            else
            {
                bounceRegion = pd.allocate(length, Access.LOCAL_WRITE);
                bounceOffset = 0;
                slot.attachment = bounceRegion;
                slot.bounce = bounceRegion.segment();
            }
            if (opcode == Opcode.RDMA_READ)
            {
                slot.copyBack = local;
                slot.copyBackOffset = localOffset;
            }
            else
            {
                MemorySegment.copy(local, localOffset, slot.bounce, 0, length);
            }
            wr.local(bounceRegion, bounceOffset, length);
        }
        setDestination(slot);
    }

    final Registrations registrations = new Registrations(this);

    void setDestination(final RequestSlot slot)
    {
        final NodeRoute route = slot.route;
        slot.wr.dc(route.ah, route.node.dctNumber(), route.node.dcKey());
    }

    // ---------------------------------------------------------------------------------------------
    // submission

    /**
     * Hand a request to the queue pairs. The uncontended caller posts it itself; otherwise it joins
     * the queue and whoever holds the submitter role posts it, in order.
     */
    void submit(final RequestSlot slot)
    {
        if (pending.isEmpty() && !needsMaintenance() && submitting.compareAndSet(false, true))
        {
            try
            {
                enqueueForPost(slot);
                postBatches();
            }
            finally
            {
                submitting.setRelease(false);
            }
            if (!pending.isEmpty())
            {
                drainSubmissions();
            }
            return;
        }
        int spins = 0;
        while (!pending.offer(slot))
        {
            drainSubmissions();
            if (poll() == 0)
            {
                idle(++spins);
            }
        }
        drainSubmissions();
    }

    /**
     * Take the submitter role if free and post what waits.
     *
     * @return requests posted.
     */
    int drainSubmissions()
    {
        int posted = 0;
        while ((!pending.isEmpty() || needsMaintenance()) && submitting.compareAndSet(false, true))
        {
            final int before = posted;
            try
            {
                posted += retryDeferred();
                RequestSlot slot;
                while ((slot = pending.poll()) != null)
                {
                    enqueueForPost(slot);
                    posted++;
                }
                postBatches();
            }
            finally
            {
                submitting.setRelease(false);
            }
            if (posted == before)
            {
                // nothing could move: what waits needs completions first, and only a poll brings them
                break;
            }
        }
        return posted;
    }

    private boolean needsMaintenance()
    {
        return deferredCount.get() > 0 || maintenance;
    }

    /** A queue pair broke or retired: the submitter looks at the pool on its next turn. */
    void requestMaintenance()
    {
        maintenance = true;
    }

    /** Put a request back in line (its queue pair went away before posting it). */
    void requeue(final RequestSlot slot)
    {
        deferredCount.decrementAndGet();
        slot.postedOn = null;
        while (!pending.offer(slot))
        {
            Thread.onSpinWait();
        }
    }

    private int retryDeferred()
    {
        if (!needsMaintenance())
        {
            return 0;
        }
        maintenance = false;
        int moved = 0;
        // from the end: a queue pair closed in this turn leaves the list (only the submitter removes)
        for (int i = pooled.size() - 1; i >= 0; i--)
        {
            final PooledQp qp = pooled.get(i);
            if (qp.retired)
            {
                RequestSlot waiting;
                while ((waiting = qp.deferred.poll()) != null)
                {
                    requeue(waiting);
                }
                if (!messaging.closeIfDrained(qp, clockMillis))
                {
                    maintenance = true;
                }
                continue;
            }
            if (qp.broken)
            {
                if (qp.outstanding() == 0)
                {
                    recycle(qp);
                }
                if (qp.broken)
                {
                    maintenance = true;
                    continue;
                }
            }
            RequestSlot slot;
            while ((slot = qp.deferred.peek()) != null && qp.hasCredit(batchSize(qp)))
            {
                qp.deferred.poll();
                deferredCount.decrementAndGet();
                addToBatch(qp, slot);
                moved++;
            }
        }
        return moved;
    }

    private void enqueueForPost(final RequestSlot slot)
    {
        if (slot.connection != null && slot.connection.isClosed() && slot.kind == RequestSlot.KIND_ONE_SIDED)
        {
            complete(slot, RaasStatus.CLOSED, 0);
            return;
        }
        final PooledQp qp = chooseQp(slot);
        if (qp.broken || !qp.deferred.isEmpty() || !qp.hasCredit(batchSize(qp)))
        {
            qp.deferred.add(slot);
            deferredCount.incrementAndGet();
            return;
        }
        addToBatch(qp, slot);
    }

    private PooledQp chooseQp(final RequestSlot slot)
    {
        if (slot.udQpn != 0)
        {
            return ud;
        }
        final NodeRoute route = slot.route;
        final PooledQp rc = route.rc;
        if (rc != null && !rc.broken && slot.kind != RequestSlot.KIND_CONTROL)
        {
            return rc;
        }
        return route.dci;
    }

    private int batchSize(final PooledQp qp)
    {
        return qp.batchCount;
    }

    private void addToBatch(final PooledQp qp, final RequestSlot slot)
    {
        if (qp.type == QpType.RC)
        {
            slot.wr.dc(null, 0, 0);
        }
        else if (qp.type == QpType.UD)
        {
            slot.wr.ud(slot.route.ah, slot.udQpn, io.dkv.raas.ControlHeader.UD_QKEY);
        }
        else
        {
            setDestination(slot);
        }
        slot.wr.next(null);
        if (qp.batchCount == 0)
        {
            qp.batchHead = slot.wr;
            if (toPostCount == toPost.length)
            {
                toPost = Arrays.copyOf(toPost, toPostCount * 2);
            }
            toPost[toPostCount++] = qp;
        }
        else
        {
            qp.batchTail.next(slot.wr);
        }
        qp.batchTail = slot.wr;
        qp.batchCount++;
        slot.postedOn = qp;
        slot.state = RequestSlot.POSTED;
    }

    private void postBatches()
    {
        for (int i = 0, n = toPostCount; i < n; i++)
        {
            final PooledQp qp = toPost[i];
            toPost[i] = null;
            final int count = qp.batchCount;
            final SendWorkRequest head = qp.batchHead;
            qp.batchHead = null;
            qp.batchTail = null;
            qp.batchCount = 0;
            if (qp.addPosted(count) == 0)
            {
                qp.progressMillis = clockMillis;
            }
            qp.lastUsedMillis = clockMillis;
            try
            {
                qp.qp.postSend(head);
            }
            catch (final RuntimeException ex)
            {
                // the queue pair refused the batch (it is being closed): the requests fail, the pool recycles it
                qp.broken = true;
                for (SendWorkRequest wr = head; wr != null; wr = wr.next())
                {
                    qp.unpost();
                    final RequestSlot slot = slots[(int)wr.wrId()];
                    complete(slot, RaasStatus.UNREACHABLE, 0);
                }
            }
        }
        toPostCount = 0;
    }

    // ---------------------------------------------------------------------------------------------
    // completions

    /**
     * The Poller agent's turn: skipped when a caller polled since the last turn, because a caller
     * waiting for its request polls anyway, and two threads polling one queue only pass its cache
     * lines back and forth.
     */
    int pollFromAgent()
    {
        if ((boolean)CALLER_POLLED.getOpaque(this))
        {
            CALLER_POLLED.setOpaque(this, false);
            return 0;
        }
        return pollCompletions();
    }

    public int poll()
    {
        // read before writing: a store on every poll would take the line from the Poller agent's core each time
        if (!(boolean)CALLER_POLLED.getOpaque(this))
        {
            CALLER_POLLED.setOpaque(this, true);
        }
        return pollCompletions();
    }

    private int pollCompletions()
    {
        if (!polling.compareAndSet(false, true))
        {
            return 0;
        }
        int count = 0;
        try
        {
            final int sent = sendCq.poll(sendCompletions);
            for (int i = 0; i < sent; i++)
            {
                onSendCompletion(sendCompletions[i]);
            }
            // receives are looked at on every other turn that completed sends, and on every idle one:
            // a busy requester pays for the receive queue half as often, and nothing waits long
            if (sent == 0 || (++pollTurn & 1) == 0)
            {
                final int received = recvCq.poll(recvCompletions);
                for (int i = 0; i < received; i++)
                {
                    messaging.onReceive(recvCompletions[i]);
                }
                count = received;
            }
            count += sent;
        }
        catch (final RuntimeException ex)
        {
            if (!closed)
            {
                throw ex;
            }
        }
        finally
        {
            polling.setRelease(false);
        }
        if (count > 0 && (deferredCount.get() > 0 || !pending.isEmpty()))
        {
            drainSubmissions();
        }
        return count;
    }

    private void onSendCompletion(final WorkCompletion wc)
    {
        final long wrId = wc.wrId();
        final int index = (int)wrId;
        if (index < 0 || index >= slots.length)
        {
            return;
        }
        final RequestSlot slot = slots[index];
        if (slot.state != RequestSlot.POSTED || slot.vqpn != (int)(wrId >>> 32))
        {
            return;
        }
        final PooledQp qp = slot.postedOn;
        qp.addCompleted();
        final WcStatus status = wc.status();
        if (status == WcStatus.SUCCESS)
        {
            if (qp.progressMillis != clockMillis)
            {
                qp.progressMillis = clockMillis;
            }
            onSuccess(slot, wc);
            return;
        }
        qp.broken = true;
        maintenance = true;
        if (qp.stalled)
        {
            // the request the queue pair stalled on: its peer neither answers nor fails, so it does not go again
            qp.stalled = false;
            qp.outcomeUnknown = true;
            markStale(slot.route);
            complete(slot, RaasStatus.UNREACHABLE, 0);
            return;
        }
        if (status == WcStatus.RETRY_EXC_ERR)
        {
            qp.outcomeUnknown = true;
        }
        if (status == WcStatus.WR_FLUSH_ERR && qp.outcomeUnknown && slot.wr.opcode().isAtomic())
        {
            // flushed behind a request the transport gave up on: it may have been executed and its answer lost, and
            // a compare-and-swap or fetch-and-add done twice is wrong (a second CAS fails on the first one's word)
            complete(slot, RaasStatus.OUTCOME_UNKNOWN, 0);
            return;
        }
        if (status == WcStatus.WR_FLUSH_ERR && slot.retries < MAX_RETRIES && !(slot.connection != null && slot.connection.isClosed()))
        {
            // flushed behind a failure the responder answered (which drops what follows) or unexecuted, or a READ or
            // WRITE, which may run twice: it goes again on a recycled queue pair
            slot.retries++;
            slot.state = RequestSlot.PENDING;
            slot.postedOn = null;
            while (!pending.offer(slot))
            {
                Thread.onSpinWait();
            }
            return;
        }
        if (status == WcStatus.RETRY_EXC_ERR || (status == WcStatus.REM_ACCESS_ERR && qp.type == QpType.DCI))
        {
            // gone, or (over DC) answering with another DC key: a new incarnation, or another node at its address
            markStale(slot.route);
        }
        complete(slot, status.code(), 0);
    }

    private void onSuccess(final RequestSlot slot, final WorkCompletion wc)
    {
        long value = wc.byteLen();
        if (slot.atomicResult)
        {
            value = slot.staging.get(BIG_ENDIAN_LONG, 0);
        }
        else if (slot.copyBack != null)
        {
            copyBack(slot.bounce, slot.copyBack, slot.copyBackOffset, slot.length);
        }
        complete(slot, RaasStatus.SUCCESS, value);
    }

    /**
     * A READ's result into the caller's memory. A word goes by one load and store: the bulk copy's
     * overlap and size checks cost more than copying the 8 bytes a lookup or a CAS-guarded read brings.
     */
    private static void copyBack(final MemorySegment from, final MemorySegment to, final long toOffset, final int length)
    {
        if (length == Long.BYTES)
        {
            to.set(ValueLayout.JAVA_LONG_UNALIGNED, toOffset, from.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        }
        else
        {
            MemorySegment.copy(from, 0, to, toOffset, length);
        }
    }

    /**
     * Finish a request: hand its outcome to the waiting caller or to its connection's handler.
     */
    void complete(final RequestSlot slot, final int status, final long value)
    {
        final DriverConnection connection = slot.connection;
        if (slot.kind != RequestSlot.KIND_ONE_SIDED)
        {
            messaging.onSent(slot, status);
        }
        if (slot.kind == RequestSlot.KIND_ONE_SIDED)
        {
            if (connection != null && !slot.sync)
            {
                connection.onCompleted();
            }
            if (slot.sendBuffer >= 0)
            {
                messaging.releaseSendBuffer(slot.sendBuffer);
                slot.sendBuffer = -1;
            }
            if (slot.attachment instanceof MemoryRegion temporary)
            {
                temporary.deregister();
                slot.attachment = null;
            }
        }
        if (slot.sync)
        {
            slot.status = status;
            slot.value = value;
            if (slot.markDone())
            {
                slot.signalDone();
            }
            else
            {
                // its waiter gave up on it: nobody else will release it
                releaseSlot(slot);
            }
            return;
        }
        final CompletionHandler handler = slot.handler;
        final long token = slot.token;
        releaseSlot(slot);
        if (handler != null)
        {
            handler.onCompletion(token, status, value);
        }
    }

    /**
     * Wait for a synchronous request, polling meanwhile.
     *
     * @return its status; the slot is released.
     */
    long awaitSync(final RequestSlot slot, final String what)
    {
        final int status = awaitStatus(slot);
        final long value = slot.value;
        releaseSlot(slot);
        if (status != RaasStatus.SUCCESS)
        {
            throw new RaasException(what + " failed: " + RaasStatus.describe(status));
        }
        return value;
    }

    /**
     * Wait for a synchronous request, polling meanwhile; the slot stays the caller's.
     *
     * @return its status.
     * @throws RaasException on timeout: the request is abandoned, and its slot is released when it
     *                       completes.
     */
    int awaitStatus(final RequestSlot slot)
    {
        final long deadline = System.nanoTime() + context.timeoutMs() * 1_000_000L;
        int spins = 0;
        while (!slot.isDone())
        {
            if (poll() == 0 && drainSubmissions() == 0)
            {
                idle(++spins);
                if ((spins & 1023) == 0 && System.nanoTime() > deadline && slot.abandon())
                {
                    throw new RaasException("request to node " + (slot.route == null ? "?" : slot.route.node.id()) +
                        " did not complete within " + context.timeoutMs() + " ms");
                }
            }
        }
        return slot.status;
    }

    // ---------------------------------------------------------------------------------------------
    // recycling and housekeeping

    /**
     * A shared queue pair broke (a request failed on it): bring it back. Its other requests were
     * flushed and go again, but for atomics behind a transport failure. Called by the submitter once
     * nothing is outstanding on it.
     */
    private void recycle(final PooledQp qp)
    {
        qp.recycles++;
        if (qp.type == QpType.RC)
        {
            messaging.dropRc(qp);
            return;
        }
        if (qp.type == QpType.UD)
        {
            try
            {
                qp.qp.modify(QpAttributes.reset());
                qp.qp.modify(QpAttributes.init(0).qkey(io.dkv.raas.ControlHeader.UD_QKEY));
                qp.qp.modify(QpAttributes.rtr());
                qp.qp.modify(QpAttributes.rts());
                qp.outcomeUnknown = false;
                qp.broken = false;
            }
            catch (final RuntimeException ex)
            {
                // stays broken; the next turn tries again
            }
            return;
        }
        try
        {
            qp.qp.modify(QpAttributes.reset());
            bringUp(qp.qp);
            qp.outcomeUnknown = false;
            qp.broken = false;
        }
        catch (final RuntimeException ex)
        {
            // keep it broken; the next turn tries again
        }
    }

    /** @return how often pooled queue pairs were recycled after errors. */
    public int recycledQueuePairs()
    {
        int total = 0;
        for (int i = 0; i < pooled.size(); i++)
        {
            total += pooled.get(i).recycles;
        }
        return total + messaging.rcRecycles();
    }

    /** @return RC queue pairs this driver asked peers for since it started (promotions begun). */
    public long rcPromotions()
    {
        return messaging.rcPromotions();
    }

    /** @return connections peers opened to listeners here that are open now (bounded per peer and in all). */
    public int inboundConnections()
    {
        return messaging.admission.inbound();
    }

    /** @return inbound connections accepted but not used yet (no message either way): they hold no buffer. */
    public int unusedInboundConnections()
    {
        return messaging.admission.unused();
    }

    /** @return advertised buffers (registered regions) inbound connections hold now. */
    public int inboundAdverts()
    {
        return messaging.admission.adverts();
    }

    /** @return bytes of the advertised buffers inbound connections hold now. */
    public long inboundAdvertisedBytes()
    {
        return messaging.admission.advertBytes();
    }

    /** @return CONNECTs refused since the driver started: no listener, a bound on inbound connections, or busy. */
    public long connectRefusals()
    {
        return messaging.admission.refusals();
    }

    /** @return inbound connections closed unused since the driver started: past their deadline, or made room. */
    public long unusedConnectionsReclaimed()
    {
        return messaging.admission.reclaims();
    }

    /** @return RC queue pairs to hot peers in use now (bounded by the RC pool size). */
    public int rcQueuePairs()
    {
        return messaging.rcCount();
    }

    /** @return the route to the node as it stands, or null when none was made. */
    NodeRoute knownRoute(final long nodeId)
    {
        synchronized (routes)
        {
            return routes.get(nodeId);
        }
    }

    /** @return true when requests to the node travel over an RC queue pair now. */
    public boolean usesRc(final long nodeId)
    {
        synchronized (routes)
        {
            final NodeRoute route = routes.get(nodeId);
            return route != null && route.rc != null;
        }
    }

    /**
     * @return what the driver holds and waits on now, one line, for diagnosing a request that does
     * not complete: requests pending and deferred, free request slots, and each pooled queue pair.
     */
    public String describeState()
    {
        final StringBuilder text = new StringBuilder(256);
        text.append("node ").append(self.id()).append(": pending ").append(pending.size())
            .append(", deferred ").append(deferredCount.get())
            .append(", free slots ").append(freeSlots.size()).append(" of ").append(slots.length)
            .append(", submitting ").append(submitting.get())
            .append(", polling ").append(polling.get())
            .append(", maintenance ").append(maintenance)
            .append(", inbound ").append(inboundConnections())
            .append(" (unused ").append(unusedInboundConnections())
            .append(", adverts ").append(inboundAdverts()).append(')');
        for (final PooledQp qp : pooled)
        {
            text.append("; ").append(qp).append(" deferred ").append(qp.deferred.size());
        }
        return text.toString();
    }

    int housekeeping()
    {
        final long now = System.currentTimeMillis();
        clockMillis = now;
        return recycleStalled(now) + messaging.housekeeping(now);
    }

    /**
     * A shared queue pair completes in order: a request that never completes (a message to a peer
     * that takes none, retried without end) holds back every request behind it, whoever made them.
     * Force such a queue pair to ERROR: the stalled request fails UNREACHABLE, the others are
     * flushed and go again on the recycled queue pair.
     */
    private int recycleStalled(final long nowMillis)
    {
        final long stallMillis = context.qpStallMs();
        int recycled = 0;
        for (int i = 0, n = pooled.size(); i < n; i++)
        {
            final PooledQp qp = pooled.get(i);
            if (qp.outstanding() > 0 && !qp.broken && !qp.stalled && nowMillis - qp.progressMillis > stallMillis)
            {
                qp.stalled = true;
                try
                {
                    qp.qp.modify(QpAttributes.error());
                }
                catch (final RuntimeException ex)
                {
                    qp.stalled = false;
                    continue;
                }
                LOG.log(System.Logger.Level.WARNING, qp + " made no progress for " + (nowMillis - qp.progressMillis) +
                    " ms: recycled, its oldest request fails UNREACHABLE");
                recycled++;
            }
        }
        return recycled;
    }

    long clockMillis()
    {
        return clockMillis;
    }

    void countRequest(final NodeRoute route)
    {
        messaging.countForPromotion(route, clockMillis);
    }
}
