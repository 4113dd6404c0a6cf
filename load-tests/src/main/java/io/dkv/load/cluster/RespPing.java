package io.dkv.load.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Waits until a RESP server answers PING: a compute node that has said it serves is asked once more the way a
 * redis-cli would, so that what {@code dkv up} prints works when it is printed.
 */
final class RespPing
{
    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String PONG = "+PONG";
    private static final int SOCKET_TIMEOUT_MS = 5_000;
    private static final long RETRY_MS = 50;

    private RespPing()
    {
    }

    /**
     * @param port    of the loopback address.
     * @param timeout how long to keep asking, in ms.
     * @throws IllegalStateException when no PONG came within {@code timeout}, with the last answer or failure.
     */
    static void await(final int port, final long timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
        String last;
        while (true)
        {
            last = ping(port);
            if (PONG.equals(last))
            {
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("the compute node on port " + port + " did not answer PING with " + PONG +
                    " within " + timeout + " ms; last: " + last);
            }
            Thread.sleep(RETRY_MS);
        }
    }

    private static String ping(final int port)
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), SOCKET_TIMEOUT_MS);
            socket.setSoTimeout(SOCKET_TIMEOUT_MS);
            final OutputStream out = socket.getOutputStream();
            out.write(PING);
            out.flush();
            return readLine(socket.getInputStream());
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    private static String readLine(final InputStream in) throws IOException
    {
        final StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != -1 && b != '\r' && line.length() < 256; b = in.read())
        {
            line.append((char)b);
        }
        return line.toString();
    }
}
