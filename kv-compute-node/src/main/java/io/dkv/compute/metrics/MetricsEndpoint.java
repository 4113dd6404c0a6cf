package io.dkv.compute.metrics;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's Prometheus endpoint: {@code GET /metrics} over HTTP/1.1 on the event loop group it is given (the node's
 * acceptor loop), so it adds no thread and never runs on a RESP loop. A scrape is a few hundred microseconds of that
 * loop's time. Bounded as the RESP side is: a request line over {@value #MAX_INITIAL_LINE_BYTES} bytes or headers over
 * {@value #MAX_HEADER_BYTES}, or anything malformed, closes the connection unanswered; each connection gets one answer
 * and is closed, and within {@value #CONNECTION_DEADLINE_MS} ms in any case; at most {@value #MAX_CONNECTIONS} are
 * open at once.
 *
 * <p>Netty's HTTP classes load only when a node is started with the endpoint on, as the node refers to this class only
 * then: a compute node's join is benchmarked.
 */
public final class MetricsEndpoint implements AutoCloseable
{
    static final int MAX_INITIAL_LINE_BYTES = 1024;
    static final int MAX_HEADER_BYTES = 4096;
    static final int MAX_CONNECTIONS = 16;
    static final long CONNECTION_DEADLINE_MS = 10_000;

    private final Channel serverChannel;

    private MetricsEndpoint(final Channel serverChannel)
    {
        this.serverChannel = serverChannel;
    }

    /**
     * Serve the metrics.
     *
     * @param group        the loops that accept and serve its connections.
     * @param channelClass the server channel of the group's transport.
     * @param bindAddress  the address to listen on (the RESP server's).
     * @param port         the port, 0 for a free one.
     * @param text         what a scrape is answered with.
     * @return the endpoint, listening.
     * @throws IllegalStateException naming the address when it cannot be bound.
     */
    public static MetricsEndpoint start(final EventLoopGroup group, final Class<? extends ServerChannel> channelClass,
        final String bindAddress, final int port, final PrometheusText text)
    {
        final AtomicInteger open = new AtomicInteger();
        final ChannelFuture bound = new ServerBootstrap()
            .group(group)
            .channel(channelClass)
            .option(ChannelOption.SO_BACKLOG, MAX_CONNECTIONS)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<Channel>()
            {
                protected void initChannel(final Channel channel)
                {
                    channel.closeFuture().addListener(future -> open.decrementAndGet());
                    if (open.incrementAndGet() > MAX_CONNECTIONS)
                    {
                        channel.close();
                        return;
                    }
                    channel.pipeline().addLast(new HttpServerCodec(new HttpDecoderConfig()
                        .setMaxInitialLineLength(MAX_INITIAL_LINE_BYTES)
                        .setMaxHeaderSize(MAX_HEADER_BYTES)
                        .setMaxChunkSize(MAX_HEADER_BYTES)),
                        new MetricsHandler(text, CONNECTION_DEADLINE_MS));
                }
            })
            .bind(new InetSocketAddress(bindAddress, port))
            .awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            throw new IllegalStateException("cannot serve metrics on " + bindAddress + ":" + port + " (" +
                bound.cause().getMessage() + "); give another --metrics-port, or 0 for a free one", bound.cause());
        }
        return new MetricsEndpoint(bound.channel());
    }

    /** @return the port served (the one bound when 0 was asked for). */
    public int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    /** Stop listening; connections being answered finish, as the loops they run on stop later. */
    public void close()
    {
        serverChannel.close().syncUninterruptibly();
    }
}
