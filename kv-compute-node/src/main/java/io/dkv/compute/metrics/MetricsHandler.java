package io.dkv.compute.metrics;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One metrics connection: its first request gets the exposition when it is {@code GET /metrics} (a query string
 * aside), 404 otherwise, and the connection is closed after the answer; a request the decoder found malformed or too
 * long, or a connection still open at its deadline, is closed without one.
 */
final class MetricsHandler extends SimpleChannelInboundHandler<HttpObject>
{
    private static final String PATH = "/metrics";
    private static final byte[] NOT_FOUND = "not found: this endpoint serves GET /metrics only\n"
        .getBytes(StandardCharsets.US_ASCII);

    private final PrometheusText text;
    private final long deadlineMs;
    private ScheduledFuture<?> deadline;
    private boolean answered;

    MetricsHandler(final PrometheusText text, final long deadlineMs)
    {
        this.text = text;
        this.deadlineMs = deadlineMs;
    }

    public void channelActive(final ChannelHandlerContext ctx)
    {
        deadline = ctx.executor().schedule(() -> ctx.close(), deadlineMs, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    public void channelInactive(final ChannelHandlerContext ctx)
    {
        if (deadline != null)
        {
            deadline.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    protected void channelRead0(final ChannelHandlerContext ctx, final HttpObject msg)
    {
        if (msg.decoderResult().isFailure())
        {
            ctx.close();
            return;
        }
        if (!(msg instanceof HttpRequest request) || answered)
        {
            return;
        }
        answered = true;
        final boolean scrape = HttpMethod.GET.equals(request.method()) && PATH.equals(path(request.uri()));
        final FullHttpResponse response = scrape ? response(HttpResponseStatus.OK,
            text.render().getBytes(StandardCharsets.UTF_8), PrometheusText.CONTENT_TYPE) :
            response(HttpResponseStatus.NOT_FOUND, NOT_FOUND, "text/plain; charset=utf-8");
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        ctx.close();
    }

    private static String path(final String uri)
    {
        final int query = uri.indexOf('?');
        return query < 0 ? uri : uri.substring(0, query);
    }

    private static FullHttpResponse response(final HttpResponseStatus status, final byte[] body,
        final String contentType)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
            Unpooled.wrappedBuffer(body));
        response.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, contentType)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
