package io.dkv.load.bench.verbs;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The client half of the tcp floor: a blocking loopback socket with TCP_NODELAY. Latency: send one
 * request, read its whole reply. Throughput: a window of requests in flight; the replies each read
 * brings in are replaced by one write of as many requests.
 */
final class PingPongProbe implements Probe
{
    private final PingPongExchange exchange;
    private final int window;
    private final EchoServer server;
    private final SocketChannel client;
    private final ByteBuffer requests;
    private final ByteBuffer replies;

    PingPongProbe(final PingPongExchange exchange, final int window)
    {
        this.exchange = exchange;
        this.window = window;
        this.requests = ByteBuffer.allocateDirect(window * exchange.requestLength());
        this.replies = ByteBuffer.allocateDirect(window * exchange.replyLength());
        EchoServer started = null;
        SocketChannel connected = null;
        try
        {
            started = new EchoServer(exchange, window);
            connected = SocketChannel.open(started.address());
            connected.setOption(StandardSocketOptions.TCP_NODELAY, true);
        }
        catch (final IOException ex)
        {
            closeQuietly(connected, ex);
            closeQuietly(started, ex);
            throw new UncheckedIOException("cannot set up the tcp ping-pong " + exchange, ex);
        }
        this.server = started;
        this.client = connected;
    }

    public void runTimed(final int count, final Histogram latencies)
    {
        final long highest = latencies.getHighestTrackableValue();
        final int requestLength = exchange.requestLength();
        final int replyLength = exchange.replyLength();
        try
        {
            for (int i = 0; i < count; i++)
            {
                final long start = System.nanoTime();
                requests.clear().limit(requestLength);
                writeFully();
                replies.clear().limit(replyLength);
                while (replies.hasRemaining())
                {
                    readSome();
                }
                latencies.recordValue(Math.min(System.nanoTime() - start, highest));
            }
        }
        catch (final IOException ex)
        {
            throw failed(ex);
        }
    }

    public long runBatch(final int count)
    {
        final int window = Math.min(this.window, count);
        final int requestLength = exchange.requestLength();
        final int replyLength = exchange.replyLength();
        try
        {
            final long start = System.nanoTime();
            requests.clear().limit(window * requestLength);
            writeFully();
            int posted = window;
            int completed = 0;
            int partialBytes = 0;
            while (completed < count)
            {
                replies.clear();
                partialBytes += readSome();
                final int answered = partialBytes / replyLength;
                partialBytes -= answered * replyLength;
                completed += answered;
                final int refill = Math.min(answered, count - posted);
                if (refill > 0)
                {
                    requests.clear().limit(refill * requestLength);
                    writeFully();
                    posted += refill;
                }
            }
            return System.nanoTime() - start;
        }
        catch (final IOException ex)
        {
            throw failed(ex);
        }
    }

    private void writeFully() throws IOException
    {
        while (requests.hasRemaining())
        {
            client.write(requests);
        }
    }

    private int readSome() throws IOException
    {
        final int read = client.read(replies);
        if (read < 0)
        {
            throw new IOException("echo server closed the connection" +
                (server.failure() != null ? " after failing: " + server.failure() : ""));
        }
        return read;
    }

    private UncheckedIOException failed(final IOException ex)
    {
        return new UncheckedIOException("tcp ping-pong " + exchange + " failed", ex);
    }

    public void close()
    {
        try
        {
            client.close();
            server.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot close the tcp ping-pong " + exchange, ex);
        }
    }

    private static void closeQuietly(final AutoCloseable closeable, final IOException cause)
    {
        if (closeable != null)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ex)
            {
                cause.addSuppressed(ex);
            }
        }
    }
}
