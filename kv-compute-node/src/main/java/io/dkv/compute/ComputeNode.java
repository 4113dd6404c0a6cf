package io.dkv.compute;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvException;
import io.dkv.compute.blocking.Waiters;
import io.dkv.compute.interest.PoolInterest;
import io.dkv.compute.command.AuthThrottle;
import io.dkv.compute.command.ClusterView;
import io.dkv.compute.command.CommandEnvironment;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.command.Persistence;
import io.dkv.compute.command.RateLimitedLog;
import io.dkv.compute.command.Session;
import io.dkv.compute.command.StagedStrings;
import io.dkv.compute.command.StreamedReplies;
import io.dkv.compute.mesh.ComputeMesh;
import io.dkv.compute.limits.ClientLimits;
import io.dkv.compute.limits.ClientsMemory;
import io.dkv.compute.limits.MemoryUnits;
import io.dkv.compute.metrics.CommandLatency;
import io.dkv.compute.metrics.MetricsEndpoint;
import io.dkv.compute.metrics.PrometheusText;
import io.dkv.compute.pubsub.PubSub;
import io.dkv.compute.resp.RespDecoder;
import io.dkv.compute.store.PiecesSweep;
import io.dkv.compute.store.PoolHeaders;
import io.dkv.raas.driver.RaasDriver;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.ErrorHandler;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A compute node: a RESP server that any Redis client can use, serving the store through an embedded {@link KvClient}
 * and keeping no data of its own, so that any number of them serve the same keys. Its RaaS handle registers it with
 * the MetaServer as role compute; {@link #close()} drains: it stops accepting, lets each connection finish the
 * requests it has read, closes the connections, and then closes its client and (when it owns it) its RaaS handle,
 * which deregisters it.
 *
 * <p>Requests run on the connection's event loop thread: the client's operations are one-sided requests of a few
 * microseconds, and each loop thread has its own client session, so no hand-off is cheaper.
 *
 * <p>With {@link ComputeNodeContext#reusePort(boolean)} the RESP port is bound with SO_REUSEPORT, so that several
 * nodes of one host share it and the kernel spreads new connections among them; one that closes stops accepting
 * first and the others go on serving the port. With {@link ComputeNodeContext#metricsPort(int)} the acceptor loop
 * also serves the Prometheus text endpoint ({@link MetricsEndpoint}).
 */
public final class ComputeNode implements AutoCloseable
{
    /** How often each loop sends what it held of its writes' PERSISTs when no reply made it. */
    private static final long PERSIST_FLUSH_MS = 100;
    /** How often the memory nodes' disks and heaps are read for INFO persistence, INFO memory and /metrics. */
    private static final long POOL_HEADERS_MS = 1_000;
    private static final byte[] MAX_CLIENTS_REPLY = "-ERR max number of clients reached\r\n"
        .getBytes(StandardCharsets.US_ASCII);
    private static final long SAMPLE_MS = 100;
    /**
     * The phases of a start, in order: the event loops made and the client connected (memory nodes' metadata read);
     * the node published (port 0 bound, its cluster view, command table and mesh made); the warm-up run; the port
     * bound and accepting.
     */
    static final String[] START_PHASES = {"connected", "published", "warmed", "bound"};
    private static final String[] PRELOADED = {
        "io.netty.bootstrap.ServerBootstrap",
        "io.netty.channel.MultiThreadIoEventLoopGroup",
        "io.netty.channel.epoll.EpollIoHandler",
        "io.netty.channel.epoll.EpollServerSocketChannel",
        "io.netty.channel.epoll.EpollSocketChannel",
        "io.netty.channel.nio.NioIoHandler",
        "io.netty.buffer.PooledByteBufAllocator",
        // the first channel's: the default allocator's magazines, the ids (read from the network interfaces) and the
        // pipeline, 30-60 ms of the bind on 2 cores when made on the starting thread
        "io.netty.buffer.ByteBufAllocator",
        "io.netty.channel.DefaultChannelId",
        "io.netty.channel.DefaultChannelPipeline",
        "io.netty.channel.AbstractChannelHandlerContext",
        "io.netty.channel.ChannelOutboundBuffer",
        "io.netty.channel.DefaultChannelConfig",
        "io.netty.channel.embedded.EmbeddedChannel",
        "org.HdrHistogram.SingleWriterRecorder",
        RespDecoder.class.getName(),
        "io.dkv.compute.resp.RespReplies",
        CommandTable.class.getName(),
        RespConnection.class.getName()};

    private final ComputeNodeContext context;
    private final KvClient client;
    private PiecesSweep piecesSweep;
    /** The memory nodes' disks for INFO persistence, read once a second. */
    /** Volatile: /metrics reads it from the endpoint's loop, which starts before it is set. */
    private volatile PoolHeaders poolHeaders;
    private final boolean ownsClient;
    private final NodeStats stats;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    /** Each loop's replies held for its PERSISTs, to one flush a turn ({@link TurnFlush}). */
    private final Map<EventExecutor, TurnFlush> turnFlushes = new IdentityHashMap<>();
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final ConnectionIds connectionIds;
    private final Channel serverChannel;
    private final ScheduledFuture<?> sampler;
    private Throwable warmUpFailure;
    private final ScheduledFuture<?> windowSampler;
    private final ScheduledFuture<?> clientsMemoryScan;
    private final ClientLimits clientLimits;
    private final ClientsMemory clientsMemory;
    /** Publishes the RESP endpoint again after a restart of the host's driver; null without a cluster view. */
    private final ScheduledFuture<?> republisher;
    private final MetricsEndpoint metrics;
    private final CommandTable table;
    private final RaasClusterView cluster;
    private final ComputeMesh mesh;
    private final PubSub pubsub;
    /** appendonly and appendfsync: what the node's writes promise, which CONFIG SET changes across the pool. */
    private final Persistence persistence;
    private final RateLimitedLog outputLimitLog;
    /** Whether connections send GET, SET and INCR out asynchronously ({@link ComputeNodeContext#asyncCommands}). */
    private final boolean asyncCommands;
    /** When each phase of the start ended, on the context's nano clock: see {@link #startPhases()}. */
    private final long[] startPhases = new long[START_PHASES.length];
    private boolean closed;

    private ComputeNode(final ComputeNodeContext context)
    {
        this.context = context;
        this.stats = new NodeStats(context.epochClock(), context.nanoClock());
        this.outputLimitLog =
            new RateLimitedLog("connection closed at its output limit", context.log(), context.nanoClock());
        final boolean epoll = Epoll.isAvailable();
        this.bossGroup =
            new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        this.workerGroup = new MultiThreadIoEventLoopGroup(context.ioThreads(),
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        for (final EventExecutor loop : workerGroup)
        {
            // each loop makes its recorder (and loads HdrHistogram) while this thread goes on starting the node
            loop.execute(() -> stats.latency().recorderFor(loop));
        }
        KvClient made = null;
        RaasClusterView published = null;
        ComputeMesh meshing = null;
        Channel listening = null;
        MetricsEndpoint serving = null;
        try
        {
            if (context.client() != null)
            {
                made = context.client();
                ownsClient = false;
            }
            else
            {
                if (context.appendOnly() != null || context.appendFsync() != null)
                {
                    // the node's settings decide once the memory nodes were read: one that keeps nothing on disk may
                    // turn appendonly off, which a client asking durability at connect would refuse outright
                    context.clientContext().durability(Durability.NONE);
                }
                made = KvClient.connect(context.raas(), context.clientContext());
                ownsClient = true;
            }
            this.client = made;
            startPhases[0] = context.nanoClock().nanoTime();
            this.asyncCommands = "on".equals(context.asyncCommands()) ||
                "auto".equals(context.asyncCommands()) && made.requestsWaitOnWire();
            final RateLimitedLog idsLog = new RateLimitedLog("connection ids", context.log(), context.nanoClock());
            this.connectionIds = new ConnectionIds(made, ex -> idsLog.event("store", ex.getMessage()));
            final Class<? extends ServerChannel> channelClass = epoll ? EpollServerSocketChannel.class :
                NioServerSocketChannel.class;
            final ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(channelClass)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // a connection whose replies pass the high mark stops running and reading until they are below half
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                    new WriteBufferWaterMark(context.writeHighWaterBytes() / 2, context.writeHighWaterBytes()))
                .childHandler(new Initializer());
            if (context.reusePort())
            {
                reusePort(bootstrap, epoll);
            }
            // A port given is bound last, once the node can serve: with SO_REUSEPORT the kernel queues connections for
            // a socket as soon as it is bound, and a client the node then left waiting would see the whole start (on 2
            // busy cores, half a second) as one request's latency. Port 0 is bound first to learn which it is, with
            // accepting held until the command table exists; no other node shares a port chosen so.
            if (context.port() == 0)
            {
                listening = bind(bootstrap.option(ChannelOption.AUTO_READ, false), epoll);
            }
            final int port =
                listening == null ? context.port() : ((InetSocketAddress)listening.localAddress()).getPort();
            // only here is the endpoint's class (and through it Netty's HTTP) loaded
            serving = context.metricsPort() < 0 ? null : MetricsEndpoint.start(bossGroup, channelClass,
                context.bindAddress(), context.metricsPort(), new PrometheusText(stats, nodeId(),
                context.raas() instanceof RaasDriver driver ? driver.counters() : null, this::poolReading));
            this.metrics = serving;
            published = context.raas() == null ? null :
                new RaasClusterView(context.raas(), context.bindAddress(), port);
            this.cluster = published;
            final RateLimitedLog meshLog = new RateLimitedLog("call to a compute node failed", context.log(),
                context.nanoClock());
            meshing = context.raas() == null ? null : new ComputeMesh(context.raas(),
                Duration.ofMillis(context.meshCallTimeoutMs()), ex -> meshLog.event("compute mesh", ex.getMessage()));
            this.mesh = meshing;
            final PoolInterest interest = new PoolInterest(meshing, Duration.ofMillis(context.meshCallTimeoutMs()),
                ex -> meshLog.event("pool interest", ex.getMessage()));
            this.persistence = persistence(made, meshing, ex -> meshLog.event("config set", ex.getMessage()));
            this.clientLimits = new ClientLimits(context.outputLimitBytes(), context.maxCommandBytes(),
                context.clientsMemoryBytes());
            this.clientsMemory = new ClientsMemory(clientLimits);
            this.pubsub = new PubSub(interest, ByteBufAllocator.DEFAULT,
                ex -> meshLog.event("pub/sub", ex.getMessage()));
            final ClusterView view = published != null ? published : ClusterView.alone(new ClusterView.Member(
                ClusterView.Member.id(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE)),
                RaasClusterView.announcedHost(context.bindAddress()), port));
            this.table = new CommandTable(new CommandEnvironment(client, context.requirePass(), stats, port,
                context.maxClients(), context.maxBulkBytes(), context.raas() == null ? 0 : context.raas().self().id(),
                view, clientLimits, AuthThrottle.ofMillis(context.authFailureDelayMs(),
                context.authFailureDelayMaxMs(), context.authFailuresMax(),
                new RateLimitedLog("failed AUTH", context.log(), context.nanoClock())), pubsub,
                new Waiters(interest, context.epochNanoClock(),
                    ex -> meshLog.event("blocking commands", ex.getMessage())), persistence));
            if (meshing != null)
            {
                // once every call's handler is in place; peers are met in the background, and pub/sub's and blocking
                // commands' first uses wait for that, nothing else does
                meshing.start();
            }
            this.sampler =
                bossGroup.next().scheduleAtFixedRate(stats::sample, SAMPLE_MS, SAMPLE_MS, TimeUnit.MILLISECONDS);
            this.clientsMemoryScan = bossGroup.next().scheduleAtFixedRate(this::scanClientsMemory,
                ClientsMemory.SCAN_MS, ClientsMemory.SCAN_MS, TimeUnit.MILLISECONDS);
            final long intervalMs = context.metricsWindowMs() / CommandLatency.INTERVALS;
            this.windowSampler = bossGroup.next().scheduleAtFixedRate(stats::sampleWindow, intervalMs, intervalMs,
                TimeUnit.MILLISECONDS);
            final RaasClusterView endpoint = published;
            this.republisher = endpoint == null ? null : bossGroup.next().scheduleAtFixedRate(endpoint::keepPublished,
                RaasClusterView.REPUBLISH_CHECK_MS, RaasClusterView.REPUBLISH_CHECK_MS, TimeUnit.MILLISECONDS);
            this.piecesSweep = context.piecesSweepMs() == 0 ? null : PiecesSweep.start(client,
                context.piecesSweepMs(), stats);
            this.poolHeaders = PoolHeaders.start(client, POOL_HEADERS_MS);
            persistence.pool(poolHeaders);
            if (context.maxMemory() != null)
            {
                try
                {
                    poolHeaders.maxMemory(MemoryUnits.parse(context.maxMemory()));
                }
                catch (final KvException ex)
                {
                    // the nodes that took it hold it; one that comes back without it is given its share
                    meshLog.event("maxmemory", ex.getMessage());
                }
            }
            for (final EventExecutor loop : workerGroup)
            {
                turnFlushes.put(loop, new TurnFlush(client::holdsPersists, client::flushPersists));
                loop.scheduleAtFixedRate(this::flushPersists, PERSIST_FLUSH_MS, PERSIST_FLUSH_MS,
                    TimeUnit.MILLISECONDS);
            }
            startPhases[1] = context.nanoClock().nanoTime();
            warmUp(view, port);
            startPhases[2] = context.nanoClock().nanoTime();
            if (listening == null)
            {
                listening = bind(bootstrap, epoll);
            }
            else
            {
                listening.config().setAutoRead(true);
            }
            this.serverChannel = listening;
            startPhases[3] = context.nanoClock().nanoTime();
        }
        catch (final RuntimeException ex)
        {
            if (meshing != null)
            {
                meshing.close();
            }
            if (published != null)
            {
                published.close();
            }
            // the ports are free again when start has failed, for a caller that tries another way
            if (serving != null)
            {
                serving.close();
            }
            if (listening != null)
            {
                listening.close().syncUninterruptibly();
            }
            if (piecesSweep != null)
            {
                piecesSweep.close();
            }
            if (poolHeaders != null)
            {
                poolHeaders.close();
            }
            bossGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            workerGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            if (made != null && context.client() == null)
            {
                made.close();
            }
            throw ex;
        }
    }

    /**
     * appendonly and appendfsync as the context says, else as the client's durability does; over a memory node that
     * keeps nothing on disk, appendonly no said in one line where the context allows it, else a failed start.
     */
    private Persistence persistence(final KvClient client, final ComputeMesh mesh, final ErrorHandler errors)
    {
        final Durability had = client.durability();
        boolean appendOnly = context.appendOnly() == null ? had != Durability.NONE :
            AppendFsync.parseYesNo(context.appendOnly());
        final AppendFsync fsync = context.appendFsync() == null ? AppendFsync.of(had) :
            AppendFsync.parse(context.appendFsync());
        final long[] withoutDisk = client.memoryNodesWithoutDisk();
        if (fsync.durability(appendOnly) != Durability.NONE && withoutDisk.length > 0)
        {
            final String node = "memory node " + Long.toUnsignedString(withoutDisk[0]);
            if (!context.appendOnlyFallback())
            {
                throw new IllegalStateException(node + " keeps nothing on disk (it was started without --data-dir), " +
                    "so appendonly yes with appendfsync " + fsync.text() + " cannot be had: start the memory nodes " +
                    "with --data-dir, or this compute node with --appendonly no");
            }
            context.log().accept("dkv compute node " + Long.toUnsignedString(nodeId()) + ": appendonly no: " + node +
                " keeps nothing on disk (started without --data-dir), so writes are kept in memory only");
            appendOnly = false;
        }
        return new Persistence(client, appendOnly, fsync, mesh, Duration.ofMillis(context.meshCallTimeoutMs()),
            errors);
    }

    /** @return appendonly and appendfsync as the node runs with them now (CONFIG SET changes them). */
    public String durability()
    {
        return "appendonly " + (persistence.appendOnly() ? "yes" : "no") + ", appendfsync " +
            persistence.appendFsync().text();
    }

    /** Bind the RESP port, checking that SO_REUSEPORT took where it was asked for. */
    private Channel bind(final ServerBootstrap bootstrap, final boolean epoll)
    {
        final ChannelFuture bound = bootstrap.bind(new InetSocketAddress(context.bindAddress(), context.port()))
            .awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            throw new IllegalStateException("cannot serve RESP on " + context.bindAddress() + ":" + context.port() +
                " (" + bound.cause().getMessage() + "); give another --port, or 0 for a free one" +
                (context.reusePort() ? "" : ", or --reuse-port to each node that is to share it"), bound.cause());
        }
        final Channel channel = bound.channel();
        if (context.reusePort() && !reusingPort(channel, epoll))
        {
            channel.close().syncUninterruptibly();
            throw new IllegalStateException("SO_REUSEPORT was asked for (--reuse-port) but the " +
                (epoll ? "epoll" : "nio") + " transport did not set it on " + context.bindAddress() + ":" +
                ((InetSocketAddress)channel.localAddress()).getPort() + ": this platform does not support it");
        }
        return channel;
    }

    /**
     * Run the RESP path on every event loop before the first client comes ({@link WarmUp}), its commands counted apart
     * from the node's. A warm-up that fails (the store out of reach a moment) leaves the node to serve cold: the
     * failure is kept for {@link #warmUpFailure()}, and the clients' own requests will say what is wrong.
     */
    private void warmUp(final ClusterView view, final int port)
    {
        final int rounds = context.warmupRounds();
        if (rounds <= 0)
        {
            return;
        }
        final NodeStats scratch = new NodeStats(context.epochClock(), context.nanoClock());
        final CommandTable warmTable = new CommandTable(new CommandEnvironment(client, null, scratch, port,
            context.maxClients(), context.maxBulkBytes(), nodeId(), view));
        // a node given a client in place of a RaaS handle (tests) has no id: its port tells it from others of the host
        final String owner = nodeId() != 0 ? Long.toUnsignedString(nodeId()) : "port-" + port;
        final List<Future<?>> done = new ArrayList<>();
        int index = 0;
        for (final EventExecutor loop : workerGroup)
        {
            final int loopIndex = index++;
            done.add(loop.submit(() -> WarmUp.run(warmTable, scratch, owner, loopIndex, rounds)));
        }
        for (final Future<?> future : done)
        {
            if (!future.awaitUninterruptibly().isSuccess() && warmUpFailure == null)
            {
                warmUpFailure = future.cause();
            }
        }
    }

    /** @return true when GET, SET and INCR go out asynchronously ({@link ComputeNodeContext#asyncCommands}). */
    public boolean asyncCommands()
    {
        return asyncCommands;
    }

    /**
     * @return as {@code name=nanos} pairs, one per {@link #START_PHASES}, space-separated: when each phase of this
     * node's start ended, on its context's nano clock ({@code dkv bench compute --only join} reads them).
     */
    public String startPhases()
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < START_PHASES.length; i++)
        {
            text.append(i == 0 ? "" : " ").append(START_PHASES[i]).append('=').append(startPhases[i]);
        }
        return text.toString();
    }

    /** @return why the warm-up before serving failed, or null when it ran (or was not asked for). */
    public Throwable warmUpFailure()
    {
        return warmUpFailure;
    }

    /**
     * Start a compute node: its client connects to the memory nodes, then the port opens.
     *
     * @param context how; concluded here.
     */
    public static ComputeNode start(final ComputeNodeContext context)
    {
        return new ComputeNode(context.conclude());
    }

    /**
     * Load and initialise, on a thread of their own, the classes a node's start needs next to its RaaS handle: Netty's
     * event loops and the native epoll transport (its library is unpacked and loaded on first use), the RESP path,
     * HdrHistogram, and the metrics endpoint's HTTP codec when one is asked for. A start then finds them ready
     * rather than loading them one after another; measured on 2 cores, the event loop groups alone took about 200 ms
     * of a join after the RaaS attach. Failures are left for the start itself to meet and report.
     *
     * @param metrics whether the node will serve its metrics endpoint.
     * @return the thread, started; a daemon.
     */
    public static Thread preload(final boolean metrics)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                Epoll.isAvailable();
                final ClassLoader loader = ComputeNode.class.getClassLoader();
                for (final String name : PRELOADED)
                {
                    Class.forName(name, true, loader);
                }
                if (metrics)
                {
                    Class.forName("io.netty.handler.codec.http.HttpServerCodec", true, loader);
                    Class.forName(MetricsEndpoint.class.getName(), true, loader);
                }
            }
            catch (final ClassNotFoundException | LinkageError ex)
            {
                // the start loads them again and says what is missing
            }
        }, "dkv-compute-preload");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** @return the port served (the one bound when the context asked for 0). */
    public int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    /** @return the port of the metrics endpoint (the one bound when the context asked for 0), or -1 when none. */
    public int metricsPort()
    {
        return metrics == null ? -1 : metrics.port();
    }

    /**
     * @return connections open now, as maxclients counts them: one counts until its close has run to
     * the end, so a test that waits for this figure never finds a place still taken.
     */
    public int connections()
    {
        return (int)stats.open();
    }

    /** @return the memory nodes' headers as last read; none before the first reading. */
    private PoolHeaders.Reading poolReading()
    {
        final PoolHeaders headers = poolHeaders;
        return headers == null ? PoolHeaders.Reading.NONE : headers.latest();
    }

    /** @return the node's id in the cluster, or 0 when it serves a client it was given. */
    public long nodeId()
    {
        return context.raas() == null ? 0 : context.raas().self().id();
    }

    /** @return whether the epoll transport serves (else NIO). */
    public static boolean epoll()
    {
        return Epoll.isAvailable();
    }

    /**
     * @return whether this platform lets a listening socket share its port (SO_REUSEPORT), as the JDK finds by asking
     * the kernel; the epoll transport sets it through the same call.
     */
    public static boolean reusePortSupported()
    {
        try (ServerSocketChannel probe = ServerSocketChannel.open())
        {
            return probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static void reusePort(final ServerBootstrap bootstrap, final boolean epoll)
    {
        if (epoll)
        {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
        else
        {
            bootstrap.option(NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT), true);
        }
    }

    /** Netty sets an option the platform lacks by logging a warning: whether it took is read back from the socket. */
    private static boolean reusingPort(final Channel channel, final boolean epoll)
    {
        return Boolean.TRUE.equals(epoll ? channel.config().getOption(EpollChannelOption.SO_REUSEPORT) :
            channel.config().getOption(NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT)));
    }

    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        stats.drainBegan();
        sampler.cancel(false);
        clientsMemoryScan.cancel(false);
        windowSampler.cancel(false);
        if (republisher != null)
        {
            republisher.cancel(false);
        }
        // with SO_REUSEPORT the kernel resets what this listener's accept queue holds; new connections go to the others
        serverChannel.close().syncUninterruptibly();
        // each connection stops reading, answers the requests it has read and closes; one whose peer takes no
        // replies (or that a failed AUTH holds) is closed at the deadline whatever its peer does
        final long drainNanos = TimeUnit.MILLISECONDS.toNanos(context.drainTimeoutMs());
        final long deadline = System.nanoTime() + drainNanos;
        for (final Channel channel : connections)
        {
            final RespConnection connection = channel.pipeline().get(RespConnection.class);
            if (connection == null)
            {
                channel.close();
            }
            else
            {
                channel.eventLoop().execute(connection::drain);
            }
        }
        for (final Channel channel : connections)
        {
            channel.closeFuture().awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()),
                TimeUnit.NANOSECONDS);
        }
        connections.close().awaitUninterruptibly(drainNanos, TimeUnit.NANOSECONDS);
        if (metrics != null)
        {
            // scraped until now, it showed the drain
            metrics.close();
        }
        // bounded too: the loops run short tasks, but a stop must not wait on one that does not
        workerGroup.shutdownGracefully(0, context.drainTimeoutMs(), TimeUnit.MILLISECONDS)
            .awaitUninterruptibly(2 * drainNanos, TimeUnit.NANOSECONDS);
        bossGroup.shutdownGracefully(0, context.drainTimeoutMs(), TimeUnit.MILLISECONDS)
            .awaitUninterruptibly(2 * drainNanos, TimeUnit.NANOSECONDS);
        if (piecesSweep != null)
        {
            piecesSweep.close();
        }
        if (poolHeaders != null)
        {
            poolHeaders.close();
        }
        if (mesh != null)
        {
            mesh.close();
        }
        if (ownsClient)
        {
            client.close();
        }
        if (cluster != null)
        {
            cluster.close();
        }
        if (context.ownsRaas())
        {
            context.raas().close();
        }
    }

    public String toString()
    {
        return "ComputeNode{port=" + port() + ", node=" + nodeId() + ", transport=" + (epoll() ? "epoll" : "nio") + "}";
    }

    private final class Initializer extends ChannelInitializer<SocketChannel>
    {
        protected void initChannel(final SocketChannel channel)
        {
            if (stats.connected() > context.maxClients())
            {
                stats.rejected();
                channel.pipeline().addLast(new Refused());
                return;
            }
            connections.add(channel);
            channel.closeFuture().addListener(future -> stats.disconnected());
            final boolean open = context.requirePass() == null;
            final RespDecoder decoder = new RespDecoder(context.maxArgs(), context.maxBulkBytes(), clientLimits, open,
                context.nanoClock(), new StagedStrings(client, table.background()));
            final Session session =
                new Session(connectionIds.next(), open, () -> decoder.authenticated(true));
            session.streams(new StreamedReplies(client));
            session.remote(channel.remoteAddress());
            session.outlet(channel);
            final RespConnection connection = new RespConnection(table, stats, decoder, session,
                context.partialTimeoutMs(), clientLimits, clientsMemory, outputLimitLog, asyncCommands);
            // on the connection's loop: its writes' PERSISTs (everysec) go out in one message per memory node before
            // the replies it writes, rather than one each
            client.deferPersists();
            connection.turnFlush(turnFlushes.get(channel.eventLoop()));
            channel.pipeline().addLast(decoder, connection);
        }
    }

    /** Sum the connections' pending replies and close those holding most past maxmemory-clients. */
    private void scanClientsMemory()
    {
        clientsMemory.scan();
        stats.clientsOutputBytes(clientsMemory.lastTotal());
    }

    /**
     * What a loop held of its writes' PERSISTs goes out before any reply leaves ({@code RespConnection.write}), and
     * every {@link #PERSIST_FLUSH_MS} whatever (a write with no reply, a key expired on the loop).
     */
    private void flushPersists()
    {
        client.flushPersists();
    }

    /** A connection beyond maxclients: redis's error, then closed, having held nothing. */
    private final class Refused extends ChannelInboundHandlerAdapter
    {
        public void channelActive(final ChannelHandlerContext ctx)
        {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(MAX_CLIENTS_REPLY)).addListener(ChannelFutureListener.CLOSE);
            ctx.channel().closeFuture().addListener(future -> stats.disconnected());
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            io.netty.util.ReferenceCountUtil.release(msg);
        }
    }
}
