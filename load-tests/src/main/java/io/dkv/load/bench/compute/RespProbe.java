package io.dkv.load.bench.compute;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One RESP request on a new connection, timed to its reply's first line: the first request a new server serves.
 */
final class RespProbe
{
    private static final int READ_TIMEOUT_MS = 30_000;

    private RespProbe()
    {
    }

    /**
     * @param arguments the command and its arguments.
     * @return the reply's first line (e.g. "+PONG", "$5").
     */
    static String call(final String host, final int port, final String... arguments) throws IOException
    {
        final StringBuilder request = new StringBuilder("*").append(arguments.length).append("\r\n");
        for (final String argument : arguments)
        {
            request.append('$').append(argument.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                .append(argument).append("\r\n");
        }
        try (Socket socket = new Socket(host, port))
        {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            final OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            final InputStream in = socket.getInputStream();
            final StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) != -1 && b != '\n')
            {
                line.append((char)b);
            }
            if (b == -1)
            {
                throw new IOException(host + ":" + port + " closed the connection after " + line.length() +
                    " bytes of a reply to " + arguments[0]);
            }
            return line.toString().strip();
        }
    }
}
