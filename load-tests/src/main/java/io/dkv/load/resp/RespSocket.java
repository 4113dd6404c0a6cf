package io.dkv.load.resp;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One blocking RESP2 connection to a server (a compute node, redis-server), a request and its reply at a time: enough
 * for PING, GET, SET and WATCH/MULTI/EXEC, whose replies are a simple string, a bulk string, an integer, an array
 * (EXEC's) or nil. Any way a call goes wrong (the connection broken or refused, no reply within the timeout, an error
 * reply, a reply of another kind) throws, and the connection is then of no further use: a late reply would answer the
 * next request.
 */
public final class RespSocket implements AutoCloseable
{
    /** A simple string reply, told apart from a bulk string of the same bytes. */
    public record Simple(String text)
    {
    }

    private final String endpoint;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /**
     * @param endpoint  host:port.
     * @param timeoutMs how long connecting and each reply may take.
     */
    public RespSocket(final String endpoint, final int timeoutMs)
    {
        this.endpoint = endpoint;
        final int colon = endpoint.lastIndexOf(':');
        socket = new Socket();
        try
        {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(endpoint.substring(0, colon),
                Integer.parseInt(endpoint.substring(colon + 1))), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }
        catch (final IOException ex)
        {
            close();
            throw new UncheckedIOException("cannot connect to " + endpoint + ": " + ex.getMessage(), ex);
        }
    }

    public String endpoint()
    {
        return endpoint;
    }

    /**
     * One request on a new connection.
     *
     * @return the reply's first line as RESP writes it ("+PONG", "$5", "$-1"), the reply read whole.
     */
    public static String callOnce(final String host, final int port, final int timeoutMs, final String... arguments)
    {
        try (RespSocket socket = new RespSocket(host + ":" + port, timeoutMs))
        {
            final byte[][] args = new byte[arguments.length][];
            for (int i = 0; i < arguments.length; i++)
            {
                args[i] = arguments[i].getBytes(StandardCharsets.UTF_8);
            }
            final Object reply = socket.call(args);
            return reply instanceof Simple simple ? "+" + simple.text() :
                reply == null ? "$-1" : "$" + ((byte[])reply).length;
        }
    }

    /**
     * @return the reply: a {@link Simple} string, the bytes of a bulk string, or null for nil.
     * @throws IllegalStateException for an error reply or a reply that is none of those.
     * @throws UncheckedIOException when the connection broke or no reply came in time.
     */
    public Object call(final byte[]... args)
    {
        send(args);
        return read();
    }

    /** Send a request and read nothing: its reply (or a pushed message) is read by {@link #read()}. */
    public void send(final byte[]... args)
    {
        try
        {
            final ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes(ascii("*" + args.length + "\r\n"));
            for (final byte[] arg : args)
            {
                request.writeBytes(ascii("$" + arg.length + "\r\n"));
                request.writeBytes(arg);
                request.writeBytes(ascii("\r\n"));
            }
            out.write(request.toByteArray());
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(endpoint + ": " + ex.getMessage(), ex);
        }
    }

    /** @return the next reply, or the next message of a subscribed connection. */
    public Object read()
    {
        try
        {
            return reply();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(endpoint + ": " + ex.getMessage(), ex);
        }
    }

    private Object reply() throws IOException
    {
        final int type = in.read();
        if (type < 0)
        {
            throw new IOException("the connection closed before the reply");
        }
        final String line = line();
        return switch (type)
        {
            case '+' -> new Simple(line);
            case '-' -> throw new IllegalStateException(endpoint + " answered -" + line);
            case '$' ->
            {
                final int length = Integer.parseInt(line);
                if (length < 0)
                {
                    yield null;
                }
                final byte[] body = in.readNBytes(length);
                if (body.length < length || in.readNBytes(2).length < 2)
                {
                    throw new IOException("the connection closed in a bulk reply of " + length + " bytes");
                }
                yield body;
            }
            case '_' -> null;
            case ':' -> Long.parseLong(line);
            case '*' ->
            {
                // EXEC's: the replies of the commands a transaction queued, or nil when a watched key changed
                final int count = Integer.parseInt(line);
                if (count < 0)
                {
                    yield null;
                }
                final List<Object> elements = new ArrayList<>(count);
                for (int i = 0; i < count; i++)
                {
                    elements.add(reply());
                }
                yield elements;
            }
            default -> throw new IllegalStateException(endpoint + " gave a reply of type '" +
                (char)type + "': " + line);
        };
    }

    private String line() throws IOException
    {
        final ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r')
        {
            if (b < 0)
            {
                throw new IOException("the connection closed in a reply line: " + line);
            }
            line.write(b);
        }
        in.read();
        return line.toString(StandardCharsets.UTF_8);
    }

    public void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignored)
        {
            // closing what is broken: nothing left to do
        }
    }

    private static byte[] ascii(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
