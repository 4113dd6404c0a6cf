package io.dkv.compute;

import io.dkv.client.KvClient;
import io.dkv.compute.command.ClusterView;
import io.dkv.compute.command.CommandEnvironment;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.command.Session;
import io.dkv.compute.resp.RespDecoder;
import io.netty.bootstrap.ServerBootstrap;
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
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A compute node: a RESP server that any Redis client can use, serving the store through an embedded {@link KvClient}
 * and keeping no data of its own, so that any number of them serve the same keys. Its RaaS handle registers it with
 * the MetaServer as role compute; {@link #close()} drains: it stops accepting, lets each connection finish the
 * requests it has read, closes the connections, and then closes its client and (when it owns it) its RaaS handle,
 * which deregisters it.
 *
 * <p>Requests run on the connection's event loop thread: the client's operations are one-sided requests of a few
 * microseconds, and each loop thread has its own client session, so no hand-off is cheaper.
 */
public final class ComputeNode implements AutoCloseable
{
    private static final byte[] MAX_CLIENTS_REPLY = "-ERR max number of clients reached\r\n"
        .getBytes(StandardCharsets.US_ASCII);
    private static final long SAMPLE_MS = 100;

    private final ComputeNodeContext context;
    private final KvClient client;
    private final boolean ownsClient;
    private final NodeStats stats = new NodeStats();
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final AtomicLong connectionIds = new AtomicLong();
    private final Channel serverChannel;
    private final ScheduledFuture<?> sampler;
    private final CommandTable table;
    private final RaasClusterView cluster;
    private boolean closed;

    private ComputeNode(final ComputeNodeContext context)
    {
        this.context = context;
        final boolean epoll = Epoll.isAvailable();
        this.bossGroup = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        this.workerGroup = new MultiThreadIoEventLoopGroup(context.ioThreads(),
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        KvClient made = null;
        RaasClusterView published = null;
        try
        {
            if (context.client() != null)
            {
                made = context.client();
                ownsClient = false;
            }
            else
            {
                made = KvClient.connect(context.raas(), context.clientContext());
                ownsClient = true;
            }
            this.client = made;
            final Class<? extends ServerChannel> channelClass = epoll ? EpollServerSocketChannel.class :
                NioServerSocketChannel.class;
            final ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(channelClass)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new Initializer());
            final ChannelFuture bound = bootstrap.bind(new InetSocketAddress(context.bindAddress(), context.port()))
                .awaitUninterruptibly();
            if (!bound.isSuccess())
            {
                throw new IllegalStateException("cannot serve RESP on " + context.bindAddress() + ":" + context.port() +
                    " (" + bound.cause().getMessage() + "); give another --port, or 0 for a free one", bound.cause());
            }
            this.serverChannel = bound.channel();
            published = context.raas() == null ? null :
                new RaasClusterView(context.raas(), context.bindAddress(), port());
            this.cluster = published;
            final ClusterView view = published != null ? published : ClusterView.alone(new ClusterView.Member(
                ClusterView.Member.id(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE)),
                RaasClusterView.announcedHost(context.bindAddress()), port()));
            this.table = new CommandTable(new CommandEnvironment(client, context.requirePass(), stats, port(),
                context.maxClients(), context.maxBulkBytes(), context.raas() == null ? 0 : context.raas().self().id(),
                view));
            this.sampler = bossGroup.next().scheduleAtFixedRate(stats::sample, SAMPLE_MS, SAMPLE_MS, TimeUnit.MILLISECONDS);
        }
        catch (final RuntimeException ex)
        {
            if (published != null)
            {
                published.close();
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
     * Start a compute node: its client connects to the memory nodes, then the port opens.
     *
     * @param context how; concluded here.
     */
    public static ComputeNode start(final ComputeNodeContext context)
    {
        return new ComputeNode(context.conclude());
    }

    /** @return the port served (the one bound when the context asked for 0). */
    public int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    /**
     * @return connections open now, as maxclients counts them: one counts until its close has run to
     * the end, so a test that waits for this figure never finds a place still taken.
     */
    public int connections()
    {
        return (int)stats.open();
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
        sampler.cancel(false);
        serverChannel.close().syncUninterruptibly();
        // each close runs on the connection's loop after the read under way: the requests it read are answered first
        connections.close().awaitUninterruptibly(context.drainTimeoutMs(), TimeUnit.MILLISECONDS);
        workerGroup.shutdownGracefully(0, context.drainTimeoutMs(), TimeUnit.MILLISECONDS).syncUninterruptibly();
        bossGroup.shutdownGracefully(0, context.drainTimeoutMs(), TimeUnit.MILLISECONDS).syncUninterruptibly();
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
            final RespDecoder decoder = new RespDecoder(context.maxArgs(), context.maxBulkBytes(),
                context.maxCommandBytes(), open);
            final Session session = new Session(connectionIds.incrementAndGet(), open, () -> decoder.authenticated(true));
            channel.pipeline().addLast(decoder, new RespConnection(table, stats, decoder, session,
                context.partialTimeoutMs()));
        }
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
