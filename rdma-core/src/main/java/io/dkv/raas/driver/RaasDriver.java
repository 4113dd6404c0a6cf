package io.dkv.raas.driver;

import io.dkv.agent.ErrorLog;
import io.dkv.agent.IdleStrategies;
import io.dkv.agent.SystemCounters;
import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.ControlHeader;
import io.dkv.raas.Directory;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.SharedReceiveQueue;
import io.dkv.verbs.Verbs;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The RaaS driver of a host: one verbs device, a pool of shared DC initiators (and RC queue pairs
 * to hot peers), a DC target with a shared receive queue for incoming messages, and the logical
 * connections multiplexed over them.
 *
 * <p>This class is the {@link Raas} API and the wiring; the work is done by its parts:
 * <ul>
 *   <li>{@link RequestPipeline}: request slots and the one entry for a request, batched onto the
 *   queue pairs of the {@link QpPool} along the {@link Routes} to each node;</li>
 *   <li>{@link CompletionPoller}: completions, dispatched to their connection by the vQPN in wr_id;</li>
 *   <li>{@link ConnectionTable} and {@link RegionTable}: the logical connections, and the regions
 *   requests may name;</li>
 *   <li>{@link MessageService}, {@link RcPromotion} and {@link RemoteAllocation}: messages and the
 *   control messages between drivers.</li>
 * </ul>
 */
public final class RaasDriver implements Raas
{
    private final Directory directory;
    private final Device device;
    private final ProtectionDomain pd;
    private final NodeRecord self;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    /** The driver's timers' clock (monotonic) as housekeeping last read it: what requests and the timers read. */
    private final DriverMillis clock;
    private final Registrations registrations;
    private final QpPool qpPool;
    /** No DC: every peer over an RC queue pair (RNICs without DC, or asked). */
    private final boolean rcOnly;
    private final Routes routes;
    private final RegionTable regions;
    private final ConnectAdmission admission;
    private final RequestPipeline pipeline;
    private final SyncLanes lanes;
    private final ConnectionTable connections;
    private final ControlMessages control;
    private final RcPromotion promotion;
    private final RemoteAllocation allocation;
    private final MessageService messages;
    private final CompletionPoller completions;
    private AgentRunner worker;
    private AgentRunner poller;
    /** The agents' errors: counted and kept, then told once when the driver closes. */
    private final ErrorLog errorLog;
    private final DriverCounters counters;

    private RaasDriver(final RaasContext context, final Directory directory)
    {
        context.conclude();
        this.epochClock = context.epochClock();
        this.nanoClock = context.nanoClock();
        this.clock = new DriverMillis(nanoClock);
        this.errorLog = ErrorLog.inMemory(epochClock);
        this.directory = directory;
        this.counters = new DriverCounters(context.countersManager() != null ? context.countersManager() :
            SystemCounters.inMemory(DriverCounter.values().length));
        this.device = Verbs.open(context.verbs());
        try
        {
            device.receiverNotReadyCounter(counters.get(DriverCounter.RNR_RETRIES));
            device.abandonedMessagesCounter(counters.get(DriverCounter.MESSAGES_ABANDONED));
            pd = device.allocPd();
            final int maxCqe = device.attributes().maxCqe();
            final CompletionQueue sendCq = device.createCq(Math.min(maxCqe, BitUtil.findNextPositivePowerOfTwo(
                context.qpDepth() * (context.dciCount() + 8) + context.requestSlots())));
            final CompletionQueue recvCq = device.createCq(Math.min(maxCqe, context.receiveBuffers() * 2 + 64));
            final SharedReceiveQueue srq = pd.createSrq(context.receiveBuffers(), 1);
            rcOnly = context.rcOnly(device);
            final long dcKey;
            int reachedAt = 0;
            if (!rcOnly)
            {
                // the first queue the driver makes, so its number is the same at every start: deployments write the
                // MetaServer's endpoint, which holds it, into their manifests
                dcKey = context.dcKey() != 0 ? context.dcKey() : drawDcKey();
                reachedAt = pd.createDct(new DctInitAttributes().cq(recvCq).srq(srq).dcKey(dcKey)
                    .accessFlags(Access.REMOTE_MASK)).dctNumber();
            }
            else
            {
                // no DC target: peers reach this node's datagram queue pair, whose number the record carries, to
                // set up the RC queue pair every request then takes; DC key 0 says so
                dcKey = NodeRecord.RC_ONLY_DC_KEY;
            }
            qpPool = new QpPool(context, pd, sendCq, recvCq, rcOnly, counters);
            if (rcOnly)
            {
                reachedAt = qpPool.udQpn();
            }
            self = new NodeRecord(context.nodeId(), context.role(), device.address(), reachedAt, dcKey,
                epochClock.time(), 0);

            registrations = new Registrations(pd);
            final SendBuffers sendBuffers = new SendBuffers(pd,
                Math.max(context.receiveBufferBytes(), context.copyThreshold() + ControlHeader.LENGTH));
            pipeline =
                new RequestPipeline(context, pd, qpPool, clock, registrations, sendBuffers, counters, self.id());
            routes = new Routes(directory, pd, device.provider(), qpPool, context.maxRoutes(), self.id());
            regions = new RegionTable(directory, pd, self);
            admission = new ConnectAdmission(context, device.attributes().maxMr());
            // a lane is a DC initiator of its own: none without DC
            lanes = new SyncLanes(device, pd, routes, context, rcOnly ? 0 : context.syncLanes(),
                counters.get(DriverCounter.QP_RECYCLES));
            connections =
                new ConnectionTable(pipeline, regions, lanes, routes, admission, context.connectionCredits());
            final ReceiveBuffers receiveBuffers =
                new ReceiveBuffers(pipeline, pd, srq, qpPool.ud().qp, context.receiveBuffers(),
                    context.receiveBufferBytes(), context.messageCredits());
            qpPool.datagramBuffers(receiveBuffers);
            control = new ControlMessages(pipeline, receiveBuffers, self, device.provider());
            promotion = new RcPromotion(
                context, pd, sendCq, recvCq, srq, control, receiveBuffers, routes, qpPool, pipeline, clock, rcOnly);
            allocation = new RemoteAllocation(control, receiveBuffers, regions, routes, pipeline, context.timeoutMs(),
                context.remoteMallocBytes());
            messages = new MessageService(context, pd, device.attributes().mtu(), pipeline, control, receiveBuffers,
                sendBuffers, registrations, connections, routes, admission, promotion, allocation, clock,
                qpPool.udQpn(), self.id());
            completions = new CompletionPoller(pipeline, messages, routes, sendBuffers, sendCq, recvCq);
            pipeline.bind(completions, promotion);
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
                driver.startAgents(context);
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

    public boolean pollsItself()
    {
        return poller != null;
    }

    /** @return the Worker's and Poller's errors, counted and kept. */
    public ErrorLog errorLog()
    {
        return errorLog;
    }

    /**
     * @return the driver's counters ({@link DriverCounter}), in the counters file the context named, else in memory.
     */
    public DriverCounters counters()
    {
        return counters;
    }

    private void startAgents(final RaasContext context)
    {
        final IdleStrategy workerIdle = IdleStrategies.parse(context.workerIdleStrategy());
        final IdleStrategy pollerIdle = IdleStrategies.parse(context.pollerIdleStrategy());
        final AtomicCounter errors = counters.get(DriverCounter.ERRORS);
        worker = new AgentRunner(workerIdle, errorLog, errors, new WorkerAgent(this, nanoClock));
        poller = new AgentRunner(pollerIdle, errorLog, errors, new PollerAgent(this));
        AgentRunner.startOnThread(worker, daemonThreads());
        AgentRunner.startOnThread(poller, daemonThreads());
    }

    private static ThreadFactory daemonThreads()
    {
        return runnable ->
        {
            final Thread thread = new Thread(runnable);
            thread.setDaemon(true);
            return thread;
        };
    }

    // ---------------------------------------------------------------------------------------------
    // Raas

    public NodeRecord self()
    {
        return self;
    }

    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    public int connectionCredits()
    {
        return connections.connectionCredits();
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

    /** @return the device under the driver, for its own figures (a tcp engine's links, say). */
    public Device device()
    {
        return device;
    }

    public Connection open(final long nodeId, final CompletionHandler handler)
    {
        requireOpen();
        return connections.open(reachable(nodeId), handler);
    }

    /**
     * @return the route to a node; for a node reached without DC, once its RC queue pair holds (set up by a datagram
     * handshake, on the caller's thread).
     */
    private NodeRoute reachable(final long nodeId)
    {
        final NodeRoute route = routes.route(nodeId);
        if (route.dci == null)
        {
            promotion.awaitRc(route);
        }
        return route;
    }

    public Connection connect(final long nodeId, final int service, final int flags, final CompletionHandler handler)
    {
        return connectAs(0, nodeId, service, flags, handler);
    }

    /**
     * Connect to a service as the node an attached application is ({@link io.dkv.raas.RaasContext#attachAs}): the
     * listener's side sees that node as the caller, reached at this driver's address.
     *
     * @param asNodeId that node, or 0 for this driver's own.
     */
    Connection connectAs(
        final long asNodeId, final long nodeId, final int service, final int flags, final CompletionHandler handler)
    {
        requireOpen();
        Flags.validate(flags);
        final DriverConnection connection = connections.open(reachable(nodeId), handler);
        try
        {
            messages.connect(connection, asNodeId, service, flags);
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
        return messages.listen(self.id(), service);
    }

    /**
     * Listen on a service as a node an attached application is: peers' CONNECTs name that node as their target, so
     * several applications of this driver each listen on the same service as their own node.
     */
    Listener listenAs(final long nodeId, final int service)
    {
        requireOpen();
        return messages.listen(nodeId, service);
    }

    public RemoteRegion malloc(final long nodeId, final long size, final String name, final int access)
    {
        requireOpen();
        RegionTable.requireRemoteRights(access, name);
        if (nodeId != self.id())
        {
            return allocation.malloc(reachable(nodeId), size, name, access);
        }
        return regions.allocateLocal(size, name, access);
    }

    public RemoteRegion publish(final long nodeId, final String name, final MemorySegment contents, final int access)
    {
        if (nodeId != self.id())
        {
            throw new RaasException("region '" + name + "' asked of node " + nodeId + ": this driver publishes " +
                "regions with their contents of its own node " + self.id() + " only");
        }
        return publishAs(nodeId, name, contents.byteSize(), contents, access);
    }

    /**
     * Allocate, fill and publish a region of this node's memory as a region of {@code nodeId}: this node, or one an
     * attached application is ({@link io.dkv.raas.RaasContext#attachAs}).
     *
     * @param contents null for zeros.
     */
    RemoteRegion publishAs(
        final long nodeId, final String name, final long size, final MemorySegment contents, final int access)
    {
        requireOpen();
        RegionTable.requireRemoteRights(access, name);
        return regions.allocateLocal(nodeId, size, name, access, contents);
    }

    /**
     * Register, in this driver's directory, the node an attached application is: reached at this driver's address, by
     * its DC target and key, renewed with this driver's lease.
     *
     * @throws RaasException when the directory publishes no such nodes, or the registration is refused.
     */
    void registerHosted(final long nodeId, final int role)
    {
        requireOpen();
        try
        {
            directory.registerHosted(
                new NodeRecord(nodeId, role, self.address(), self.dctNumber(), self.dcKey(), self.epoch(), 0));
        }
        catch (final UnsupportedOperationException ex)
        {
            throw new RaasException(ex.getMessage(), ex);
        }
    }

    /** Withdraw the node of an application that detached or died: see {@link #registerHosted}. */
    void deregisterHosted(final long nodeId)
    {
        try
        {
            directory.deregisterHosted(nodeId);
        }
        catch (final UnsupportedOperationException ex)
        {
            // it could not have been registered
        }
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

    public Membership membership()
    {
        requireOpen();
        try
        {
            return directory.membership();
        }
        catch (final UnsupportedOperationException ex)
        {
            throw new RaasException(ex.getMessage(), ex);
        }
    }

    public RemoteRegion lookup(final String name)
    {
        requireOpen();
        return regions.lookup(name);
    }

    public void free(final RemoteRegion region)
    {
        regions.free(region);
    }

    public MemorySegment localMemory(final RemoteRegion region)
    {
        return regions.localMemory(region);
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
        regions.trust(region);
    }

    public int poll()
    {
        return completions.poll();
    }

    public void close()
    {
        if (pipeline.isClosed())
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
        pipeline.markClosed();
        CloseHelper.quietCloseAll(worker, poller);
        if (errorLog.errors() > 0)
        {
            System.err.print("dkv RaaS driver of node " + self.id() + " recorded " + errorLog.errors() +
                " error(s) in its agents:\n" + errorLog.describe());
        }
        connections.closeAll();
        lanes.close();
        device.close();
    }

    private void requireOpen()
    {
        pipeline.requireOpen();
    }

    // ---------------------------------------------------------------------------------------------
    // duty cycles: the Worker's and Poller's agents, or a standalone driver's conductor

    /** Post what callers queued but did not post themselves. @return requests posted. */
    int drainSubmissions()
    {
        return pipeline.drainSubmissions();
    }

    /** The Poller agent's turn (see {@link CompletionPoller#pollFromAgent}). */
    int pollFromAgent()
    {
        return completions.pollFromAgent();
    }

    /**
     * Keep the driver in shape: the clock requests read, stalled queue pairs, unused inbound
     * connections, the backlog of control messages and the RC queue pairs.
     */
    int housekeeping()
    {
        final long now = clock.update();
        return qpPool.recycleStalled(now) + messages.housekeeping(now);
    }

    /** The checks a request passes before it may reach a shared queue pair (see {@link RegionTable#check}). */
    int check(
        final RemoteRegion region, final long offset, final int length, final int requiredAccess, final boolean atomic)
    {
        return regions.check(region, offset, length, requiredAccess, atomic, false);
    }

    /** @return caller memory registered for transfers, where a standalone driver's clients' data areas go too. */
    Registrations registrations()
    {
        return registrations;
    }

    // ---------------------------------------------------------------------------------------------
    // parts, for tests in this package that act as a hostile driver would

    RequestPipeline pipeline()
    {
        return pipeline;
    }

    Routes routes()
    {
        return routes;
    }

    QpPool qpPool()
    {
        return qpPool;
    }

    ControlMessages controlMessages()
    {
        return control;
    }

    /** @return the number of the driver's UD queue pair, which its CONNECTs tell peers. */
    int udQpn()
    {
        return qpPool.udQpn();
    }

    // ---------------------------------------------------------------------------------------------
    // figures, for operators and tests

    /** @return how often queue pairs (pooled, and threads' {@link #syncLanes() lanes}) were recycled after errors. */
    public int recycledQueuePairs()
    {
        return qpPool.recycles() + promotion.recycles() + lanes.recycles();
    }

    /** @return RC queue pairs this driver asked peers for since it started (promotions begun). */
    public long rcPromotions()
    {
        return promotion.promotions();
    }

    /** @return RC queue pairs to hot peers in use now (bounded by the RC pool size). */
    public int rcQueuePairs()
    {
        return promotion.count();
    }

    /** @return true when requests to the node travel over an RC queue pair now. */
    public boolean usesRc(final long nodeId)
    {
        return routes.usesRc(nodeId);
    }

    /** @return connections peers opened to listeners here that are open now (bounded per peer and in all). */
    public int inboundConnections()
    {
        return admission.inbound();
    }

    /** @return inbound connections accepted but not used yet (no message either way): they hold no buffer. */
    public int unusedInboundConnections()
    {
        return admission.unused();
    }

    /** @return advertised buffers (registered regions) inbound connections hold now. */
    public int inboundAdverts()
    {
        return admission.adverts();
    }

    /** @return bytes of the advertised buffers inbound connections hold now. */
    public long inboundAdvertisedBytes()
    {
        return admission.advertBytes();
    }

    /** @return CONNECTs refused since the driver started: no listener, a bound on inbound connections, or busy. */
    public long connectRefusals()
    {
        return admission.refusals();
    }

    /** @return inbound connections closed unused since the driver started: past their deadline, or made room. */
    public long unusedConnectionsReclaimed()
    {
        return admission.reclaims();
    }

    /** @return routes given up to keep within maxRoutes. */
    public long routesGivenUp()
    {
        return routes.givenUp();
    }

    /** @return routes to nodes the driver keeps now. */
    public int routeCount()
    {
        return routes.count();
    }

    /** @return logical connections open now. */
    public int connectionCount()
    {
        return connections.count();
    }

    /**
     * @return what the driver holds and waits on now, one line, for diagnosing a request that does
     * not complete: requests pending and deferred, free request slots, and each pooled queue pair.
     */
    public String describeState()
    {
        final StringBuilder text = new StringBuilder(256);
        text.append("node ").append(self.id()).append(": ");
        pipeline.describe(text);
        text.append(", inbound ").append(inboundConnections())
            .append(" (unused ").append(unusedInboundConnections())
            .append(", adverts ").append(inboundAdverts()).append(')');
        lanes.describe(text);
        qpPool.describe(text);
        return text.toString();
    }

    /** @return threads holding a lane of their own for synchronous requests now. */
    public int syncLanes()
    {
        return lanes.active();
    }

    /** @return a random DC key other than the one that marks an RC-only node. */
    private static long drawDcKey()
    {
        long key;
        do
        {
            key = ThreadLocalRandom.current().nextLong();
        }
        while (key == NodeRecord.RC_ONLY_DC_KEY);
        return key;
    }
}
