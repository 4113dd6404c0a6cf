package io.dkv.compute;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.nio.charset.StandardCharsets;

/**
 * A RESP client that shows replies exactly as they came: each reply is read into one text that keeps its type
 * ({@code +OK}, {@code -ERR ...}, {@code :3}, {@code $hello}, {@code $nil}, {@code *2[...]}), so two servers' replies
 * compare as strings.
 */
final class RawResp implements AutoCloseable
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawResp(final int port) throws IOException
    {
        this(port, 0);
    }

    /** @param receiveBuffer the socket's receive buffer (SO_RCVBUF), set before it connects; 0: the system's. */
    RawResp(final int port, final int receiveBuffer) throws IOException
    {
        socket = new Socket();
        if (receiveBuffer > 0)
        {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(30_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    String call(final String... args) throws IOException
    {
        send(args);
        return read();
    }

    /** @return the bulk string a request is answered, its bytes as they came (a binary value). */
    byte[] callBytes(final String... args) throws IOException
    {
        send(args);
        final int type = in.read();
        final String line = line();
        if (type != '$')
        {
            throw new IOException("not a bulk string: " + (char)type + line);
        }
        final byte[] body = in.readNBytes(Integer.parseInt(line));
        in.readNBytes(2);
        return body;
    }

    /** A request whose arguments are any bytes (binary keys), not text. */
    String call(final byte[]... args) throws IOException
    {
        send(args);
        return read();
    }

    void send(final String... args) throws IOException
    {
        final byte[][] bytes = new byte[args.length][];
        for (int i = 0; i < args.length; i++)
        {
            bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        send(bytes);
    }

    void send(final byte[]... args) throws IOException
    {
        final ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (final byte[] bytes : args)
        {
            request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(bytes);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        sendRaw(request.toByteArray());
    }

    /** @return {@code command} as a RESP request (an array of bulk strings), to send with others in one write. */
    static byte[] encode(final String... command)
    {
        final ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + command.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (final String arg : command)
        {
            final byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(bytes);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return request.toByteArray();
    }

    /** @return the requests encoded one after the other: a pipeline to send in one write ({@link #sendRaw}). */
    static byte[] encodeAll(final List<String[]> requests)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final String[] request : requests)
        {
            out.writeBytes(encode(request));
        }
        return out.toByteArray();
    }

    /** @return the node's count of requests answered as asynchronous steps (INFO stats' dkv_async_steps). */
    long asyncSteps() throws IOException
    {
        return stat("dkv_async_steps");
    }

    /** @return the node's count of requests whose store work went to a store thread (dkv_store_thread_steps). */
    long storeThreadSteps() throws IOException
    {
        return stat("dkv_store_thread_steps");
    }

    private long stat(final String name) throws IOException
    {
        final String info = call("INFO", "stats");
        for (final String line : info.substring(1).split("\r\n"))
        {
            if (line.startsWith(name + ":"))
            {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("INFO stats has no " + name + ": " + info);
    }

    void sendRaw(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    String read() throws IOException
    {
        final int type = in.read();
        if (type < 0)
        {
            return "<closed>";
        }
        final String line = line();
        return switch (type)
        {
            case '+', '-', ':', '_', ',', '#', '(' -> (char)type + line;
            case '$', '=' ->
            {
                final int length = Integer.parseInt(line);
                if (length < 0)
                {
                    yield "$nil";
                }
                final byte[] body = in.readNBytes(length);
                in.readNBytes(2);
                yield "$" + new String(body, StandardCharsets.UTF_8);
            }
            case '*', '%', '~', '>' ->
            {
                final int count = Integer.parseInt(line);
                if (count < 0)
                {
                    yield "*nil";
                }
                final int items = type == '%' ? count * 2 : count;
                final StringBuilder text = new StringBuilder().append((char)type).append(count).append('[');
                for (int i = 0; i < items; i++)
                {
                    text.append(i == 0 ? "" : ", ").append(read());
                }
                yield text.append(']').toString();
            }
            default -> throw new IOException("not a RESP reply: type byte " + type + " then '" + line + "'");
        };
    }

    /** @return true when the server closed the connection (after what it had to say). */
    boolean closedByServer() throws IOException
    {
        try
        {
            return in.read() < 0;
        }
        catch (final java.net.SocketException ex)
        {
            return true;
        }
    }

    private String line() throws IOException
    {
        final ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r')
        {
            if (b < 0)
            {
                throw new IOException("connection closed in a reply line: " + line);
            }
            line.write(b);
        }
        in.read();
        return line.toString(StandardCharsets.UTF_8);
    }

    public void close() throws IOException
    {
        socket.close();
    }
}
