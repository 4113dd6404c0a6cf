package io.dkv.cli.cluster;

import io.dkv.load.resp.RespSocket;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * Waits until a RESP server answers PING: a compute node that has said it serves is asked once more the way a
 * redis-cli would, so that what {@code dkv up} prints works when it is printed.
 */
final class RespPing
{
    private static final String PONG = "+PONG";
    /** An error reply as {@code RespSocket} says it: "... answered -MISCONF ...". */
    private static final String MISCONF = "-MISCONF ";
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
            final int misconf = last == null ? -1 : last.indexOf(MISCONF);
            if (misconf >= 0)
            {
                // it serves, and refuses PING as redis does while a memory node's disk refuses writes: say so
                System.err.println("dkv: the compute node on port " + port + " serves reads only: " +
                    last.substring(misconf + 1));
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("the compute node on port " + port + " did not answer PING with " +
                    PONG +
                    " within " + timeout + " ms; last: " + last);
            }
            Thread.sleep(RETRY_MS);
        }
    }

    private static String ping(final int port)
    {
        try
        {
            final String loopback = InetAddress.getLoopbackAddress().getHostAddress();
            return RespSocket.callOnce(loopback, port, SOCKET_TIMEOUT_MS, "PING");
        }
        catch (final RuntimeException ex)
        {
            return ex.getMessage();
        }
    }
}
