package io.dkv.cli.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Picks ports of the loopback address for the servers {@code dkv up} starts: the one asked for when it is free, else
 * the next free one, so that a redis-server already on 6379 moves a compute node to 6380 rather than failing it.
 */
final class LocalPorts
{
    private static final int LAST_PORT = 65_535;

    private LocalPorts()
    {
    }

    /**
     * @param from the port wanted.
     * @return {@code from} or the first port after it that can be listened on now (another process may take it before
     * the server does; the server then says so and {@code dkv up} stops).
     * @throws IllegalStateException when no port from {@code from} up is free.
     */
    static int firstFree(final int from)
    {
        for (int port = from; port <= LAST_PORT; port++)
        {
            if (isFree(port))
            {
                return port;
            }
        }
        throw new IllegalStateException("no free port from " + from + " to " + LAST_PORT + " on the loopback address");
    }

    private static boolean isFree(final int port)
    {
        try (ServerSocket socket = new ServerSocket())
        {
            // as the server will bind: without SO_REUSEADDR, so a port it could not take does not look free
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
