package io.dkv.load.bench.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * The server half of the tcp floor: a thread that accepts one loopback connection and answers
 * every complete request of a fixed length with a reply of a fixed length, writing the replies
 * to all requests one read brought in with one write.
 */
final class EchoServer implements AutoCloseable
{
    /** An IPv4 literal, never resolved: the floor's traffic stays on 127.0.0.1 whatever the JVM prefers. */
    static final String LOOPBACK = "127.0.0.1";
    private static final long JOIN_TIMEOUT_MS = TimeUnit.SECONDS.toMillis(5);

    private final PingPongExchange exchange;
    private final int window;
    private final ServerSocketChannel server;
    private final ByteBuffer received;
    private final ByteBuffer replies;
    private final Thread thread;
    private volatile SocketChannel connection;
    private volatile IOException failure;
    private volatile boolean closing;

    /**
     * @param exchange message sizes.
     * @param window   most requests the client has outstanding at once.
     */
    EchoServer(final PingPongExchange exchange, final int window) throws IOException
    {
        this.exchange = exchange;
        this.window = window;
        this.received = ByteBuffer.allocateDirect(window * exchange.requestLength());
        this.replies = ByteBuffer.allocateDirect(window * exchange.replyLength());
        this.server = ServerSocketChannel.open();
        try
        {
            server.bind(new InetSocketAddress(LOOPBACK, 0), 1);
        }
        catch (final IOException ex)
        {
            server.close();
            throw ex;
        }
        this.thread = new Thread(this::serve, "dkv-bench-echo");
        thread.setDaemon(true);
        thread.start();
    }

    InetSocketAddress address() throws IOException
    {
        return (InetSocketAddress)server.getLocalAddress();
    }

    /** @return why the server stopped before it was closed, or null. */
    IOException failure()
    {
        return failure;
    }

    private void serve()
    {
        try (SocketChannel channel = server.accept())
        {
            connection = channel;
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            final int requestLength = exchange.requestLength();
            int pendingBytes = 0;
            while (true)
            {
                received.clear();
                final int read = channel.read(received);
                if (read < 0)
                {
                    return;
                }
                pendingBytes += read;
                int requests = pendingBytes / requestLength;
                pendingBytes -= requests * requestLength;
                while (requests > 0)
                {
                    final int answered = Math.min(requests, window);
                    replies.clear().limit(answered * exchange.replyLength());
                    while (replies.hasRemaining())
                    {
                        channel.write(replies);
                    }
                    requests -= answered;
                }
            }
        }
        catch (final IOException ex)
        {
            if (!closing)
            {
                failure = ex;
            }
        }
    }

    public void close() throws IOException
    {
        closing = true;
        try
        {
            server.close();
            final SocketChannel channel = connection;
            if (channel != null)
            {
                channel.close();
            }
        }
        finally
        {
            try
            {
                thread.join(JOIN_TIMEOUT_MS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        if (thread.isAlive())
        {
            throw new IOException("echo server thread did not stop within " + JOIN_TIMEOUT_MS + " ms");
        }
    }
}
