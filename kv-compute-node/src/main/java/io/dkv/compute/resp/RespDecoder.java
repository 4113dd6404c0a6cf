package io.dkv.compute.resp;

import io.dkv.compute.limits.ClientLimits;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;
import java.util.List;

/**
 * Decodes requests as redis-server reads them (multibulk arrays of bulk strings, or inline lines) into {@code byte[][]}
 * arguments, bounding what a peer can make it hold before holding it: the argument count, each bulk's length, the
 * command's bytes and a line's length are checked when announced, and a request that breaks a bound or the protocol
 * becomes a {@link RespProtocolError} with redis's text, after which the connection's input is dropped.
 *
 * <p>A bulk longer than the bulk bound (and at most redis's 512 MB) of an authenticated connection is not held: given a
 * {@link LongBulkSink}, the decoder hands its bytes on as they arrive and its request becomes a {@link LongRequest}.
 *
 * <p>Written by hand rather than with netty-codec-redis: its array aggregator sizes a list by the count a peer
 * announces (one {@code *2147483647} line takes gigabytes), its errors are not redis's, and it has no notion of the
 * unauthenticated limits redis applies (10 arguments, 16 KiB bulks) before AUTH.
 */
public final class RespDecoder extends ByteToMessageDecoder
{
    /** redis's PROTO_INLINE_MAX_SIZE: a line (inline request, or a count) longer than this is refused. */
    public static final int INLINE_MAX_BYTES = 64 * 1024;
    static final int UNAUTHENTICATED_MAX_ARGS = 10;
    static final int UNAUTHENTICATED_MAX_BULK = 16 * 1024;
    /**
     * redis's proto-max-bulk-len by default, the bound of its strings: it says "invalid bulk length" only past it,
     * authenticated or not, and bounds bit offsets and LCS's table by it.
     */
    public static final long REDIS_MAX_BULK = 512L * 1024 * 1024;
    private static final int INITIAL_ARGS = 16;
    /**
     * Bytes an argument held costs beyond its own (an array's header and a reference): counted against the query
     * buffer limit, so that a request of many empty arguments is bounded as one of long ones.
     */
    static final int ARG_OVERHEAD = 24;
    private static final byte[] EMPTY = new byte[0];

    private final int maxArgs;
    private final int maxBulkBytes;
    private final ClientLimits limits;
    private final NanoClock clock;
    private final LongBulkSink longBulks;
    private boolean authenticated;
    private boolean failed;

    private byte[][] args;
    private int argCount;
    private int argIndex;
    private int bulkLength = -1;
    private long longLeft = -1;
    private Object[] staged;
    private long commandBytes;
    private long commandsDecoded;
    private long longBytes;
    private long argumentsDecoded;
    private long readNanos;

    /**
     * @param maxArgs         arguments of one request at most.
     * @param maxBulkBytes    bytes of one argument at most (a value's limit).
     * @param maxCommandBytes bytes of all the arguments of one request at most.
     * @param authenticated   false while the connection must still AUTH: redis's tighter limits apply until then.
     * @param clock           what the time bytes arrive is read from: the node's, as its commands' durations are.
     */
    public RespDecoder(final int maxArgs, final int maxBulkBytes, final long maxCommandBytes,
        final boolean authenticated, final NanoClock clock)
    {
        this(maxArgs, maxBulkBytes, maxCommandBytes, authenticated, clock, null);
    }

    /**
     * @param longBulks where bulks past {@code maxBulkBytes} go as they arrive; null: such a bulk is refused.
     */
    public RespDecoder(final int maxArgs, final int maxBulkBytes, final long maxCommandBytes,
        final boolean authenticated, final NanoClock clock, final LongBulkSink longBulks)
    {
        this(maxArgs, maxBulkBytes, new ClientLimits(0, maxCommandBytes, 0), authenticated, clock, longBulks);
    }

    /**
     * @param limits the node's: proto-max-bulk-len bounds an argument, client-query-buffer-limit the bytes of one
     *               request's arguments held (each argument counts {@link #ARG_OVERHEAD} more), read at each request.
     */
    public RespDecoder(final int maxArgs, final int maxBulkBytes, final ClientLimits limits,
        final boolean authenticated, final NanoClock clock, final LongBulkSink longBulks)
    {
        this.longBulks = longBulks;
        this.maxArgs = maxArgs;
        this.maxBulkBytes = maxBulkBytes;
        this.limits = limits;
        this.authenticated = authenticated;
        this.clock = clock;
    }

    /** The connection authenticated: the configured bounds apply from the next request on. */
    public void authenticated(final boolean authenticated)
    {
        this.authenticated = authenticated;
    }

    /** @return true while part of a request has arrived and the rest has not. */
    public boolean partial()
    {
        return !failed && (argCount > 0 || actualReadableBytes() > 0);
    }

    /** @return requests decoded so far, for telling a slow request from a stalled one. */
    public long commandsDecoded()
    {
        return commandsDecoded;
    }

    /**
     * @return a count that moves while requests arrive: requests and arguments decoded, and the bytes of long bulks
     * handed on (a 512 MB value, or an SADD of a million members, may take longer to arrive than a stalled request is
     * given).
     */
    public long progress()
    {
        return commandsDecoded + argumentsDecoded + longBytes;
    }

    /** @return true while the long bulks' sink holds more than it takes: the connection should read nothing. */
    public boolean longBulksBacklogged()
    {
        return longBulks != null && longBulks.backlogged();
    }

    /** @param drained run, on any thread, once a backlogged sink of long bulks takes bytes again. */
    public void onLongBulksDrained(final Runnable drained)
    {
        if (longBulks != null)
        {
            longBulks.onDrained(drained);
        }
    }

    /** @return when the bytes that completed the requests being handed on now arrived, by the decoder's clock. */
    public long decodedAtNanos()
    {
        return readNanos;
    }

    /**
     * Note when bytes arrive, once a read rather than once a request: the requests they complete are decoded and
     * handed on within this call, before the next read's bytes, so this is their decoding time to within the decoding.
     */
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception
    {
        readNanos = clock.nanoTime();
        super.channelRead(ctx, msg);
    }

    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
    {
        while (!failed && in.isReadable())
        {
            final Object decoded =
                argCount == 0 ? (in.getByte(in.readerIndex()) == '*' ? multibulkHeader(in) : inline(in)) :
                bulk(in);
            if (decoded == null)
            {
                return;
            }
            if (decoded instanceof RespProtocolError)
            {
                failed = true;
                abandonStaged();
                args = null;
                argCount = 0;
                in.skipBytes(in.readableBytes());
            }
            else if (decoded != Boolean.TRUE)
            {
                commandsDecoded++;
            }
            if (decoded != Boolean.TRUE)
            {
                out.add(decoded);
            }
        }
        if (failed)
        {
            in.skipBytes(in.readableBytes());
        }
    }

    /** @return null for more input, TRUE when a header was consumed, else a request or an error. */
    private Object multibulkHeader(final ByteBuf in)
    {
        final int cr = in.indexOf(in.readerIndex(), in.writerIndex(), (byte)'\r');
        if (cr < 0)
        {
            return in.readableBytes() > INLINE_MAX_BYTES ? error("too big mbulk count string") : null;
        }
        if (cr - in.readerIndex() > INLINE_MAX_BYTES)
        {
            return error("too big mbulk count string");
        }
        if (in.writerIndex() < cr + 2)
        {
            return null;
        }
        final long count = RespNumbers.parseLong(in, in.readerIndex() + 1, cr);
        if (count == RespNumbers.INVALID || count > Integer.MAX_VALUE)
        {
            return error("invalid multibulk length");
        }
        if (!authenticated && count > UNAUTHENTICATED_MAX_ARGS)
        {
            return error("unauthenticated multibulk length");
        }
        if (count > maxArgs)
        {
            return error("invalid multibulk length");
        }
        in.readerIndex(cr + 2);
        if (count > 0)
        {
            argCount = (int)count;
            argIndex = 0;
            commandBytes = 0;
            staged = null;
            args = new byte[Math.min(argCount, INITIAL_ARGS)][];
        }
        return Boolean.TRUE;
    }

    private Object bulk(final ByteBuf in)
    {
        if (longLeft >= 0)
        {
            return longBulk(in);
        }
        if (bulkLength < 0)
        {
            final int cr = in.indexOf(in.readerIndex(), in.writerIndex(), (byte)'\r');
            if (cr < 0)
            {
                return in.readableBytes() > INLINE_MAX_BYTES ? error("too big bulk count string") : null;
            }
            if (cr - in.readerIndex() > INLINE_MAX_BYTES)
            {
                return error("too big bulk count string");
            }
            final byte type = in.getByte(in.readerIndex());
            if (type != '$')
            {
                return error("expected '$', got '" + (char)(type & 0xFF) + "'");
            }
            if (in.writerIndex() < cr + 2)
            {
                return null;
            }
            final long length = RespNumbers.parseLong(in, in.readerIndex() + 1, cr);
            final long maxBulk = limits.protoMaxBulkLen();
            if (longBulks != null && authenticated && length > maxBulkBytes && length <= maxBulk)
            {
                in.readerIndex(cr + 2);
                longLeft = length;
                longBulks.begin(length);
                return longBulk(in);
            }
            if (length == RespNumbers.INVALID || length < 0 || length > Math.max(maxBulkBytes, maxBulk) ||
                (length > maxBulkBytes && (authenticated || length <= UNAUTHENTICATED_MAX_BULK)))
            {
                return error("invalid bulk length");
            }
            if (!authenticated && length > UNAUTHENTICATED_MAX_BULK)
            {
                // redis checks its own bound (512 MB by default) first, then this one: a bulk between the two gets
                // this text from it, whatever this node's smaller bound
                return error("unauthenticated bulk length");
            }
            commandBytes += length + ARG_OVERHEAD;
            final long queryLimit = limits.queryBufferLimit();
            if (commandBytes > queryLimit)
            {
                return new RespProtocolError("ERR Protocol error: a command of more than " + queryLimit +
                    " bytes of arguments (client-query-buffer-limit; each argument counts " + ARG_OVERHEAD +
                    " bytes more than its length)");
            }
            in.readerIndex(cr + 2);
            bulkLength = (int)length;
        }
        if (in.readableBytes() < bulkLength + 2)
        {
            return null;
        }
        final byte[] arg = new byte[bulkLength];
        in.readBytes(arg);
        in.skipBytes(2);
        bulkLength = -1;
        return argument(arg);
    }

    /** Hand the long bulk's bytes on as they come; its end is an argument like another. */
    private Object longBulk(final ByteBuf in)
    {
        if (longLeft > 0)
        {
            final int n = (int)Math.min(longLeft, in.readableBytes());
            if (n > 0)
            {
                longBulks.write(in, n);
                longLeft -= n;
                longBytes += n;
            }
            if (longLeft > 0)
            {
                return null;
            }
        }
        if (in.readableBytes() < 2)
        {
            return null;
        }
        in.skipBytes(2);
        longLeft = -1;
        ensureRoom();
        if (staged == null)
        {
            staged = new Object[args.length];
        }
        staged[argIndex] = longBulks.finish();
        return argument(EMPTY);
    }

    /** Grow the arguments (and the long ones) as they arrive: a count announced costs nothing before its bytes. */
    private void ensureRoom()
    {
        if (argIndex == args.length)
        {
            final int length = (int)Math.min(argCount, args.length * 2L);
            args = Arrays.copyOf(args, length);
            if (staged != null)
            {
                staged = Arrays.copyOf(staged, length);
            }
        }
    }

    private Object argument(final byte[] arg)
    {
        ensureRoom();
        args[argIndex++] = arg;
        argumentsDecoded++;
        if (argIndex < argCount)
        {
            return Boolean.TRUE;
        }
        final byte[][] request = args;
        args = null;
        argCount = 0;
        if (staged != null)
        {
            final Object[] longArgs = staged;
            staged = null;
            return new LongRequest(request, longArgs);
        }
        return request;
    }

    /** The connection went with a request half read: what it staged is nobody's. */
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        abandonStaged();
        super.channelInactive(ctx);
    }

    private void abandonStaged()
    {
        if (longLeft >= 0)
        {
            longLeft = -1;
            longBulks.abandon();
        }
        if (staged != null)
        {
            for (final Object one : staged)
            {
                if (one != null)
                {
                    longBulks.abandon(one);
                }
            }
            staged = null;
        }
    }

    private Object inline(final ByteBuf in)
    {
        final int lf = in.indexOf(in.readerIndex(), in.writerIndex(), (byte)'\n');
        if (lf < 0)
        {
            return in.readableBytes() > INLINE_MAX_BYTES ? error("too big inline request") : null;
        }
        if (lf - in.readerIndex() > INLINE_MAX_BYTES)
        {
            return error("too big inline request");
        }
        int end = lf;
        if (end > in.readerIndex() && in.getByte(end - 1) == '\r')
        {
            end--;
        }
        final byte[] line = new byte[end - in.readerIndex()];
        in.getBytes(in.readerIndex(), line);
        in.readerIndex(lf + 1);
        final List<byte[]> split = InlineSplitter.split(line);
        if (split == null)
        {
            return error("unbalanced quotes in request");
        }
        if (split.isEmpty())
        {
            return Boolean.TRUE;
        }
        return split.toArray(new byte[0][]);
    }

    private static RespProtocolError error(final String what)
    {
        return new RespProtocolError("ERR Protocol error: " + what);
    }
}
