package io.dkv.raas.meta;

import io.dkv.clock.Clocks;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * Calls a MetaServer over one RaaS connection: one request at a time, each answered by the reply
 * carrying its request id (a late reply to an earlier call that timed out is skipped). Requests are
 * sealed and replies checked with the cluster secret ({@link MetaFrameAuthenticator}). Not
 * thread-safe.
 */
public final class MetaRpcClient
{
    private final Connection connection;
    private final MemorySegment requestBuffer;
    private final MemorySegment replyBuffer;
    private final Duration timeout;
    private final NanoClock nanoClock;
    private final MetaFrameAuthenticator authenticator;
    private final MetaMessageWriter writer = new MetaMessageWriter();
    private final MetaMessageReader reader = new MetaMessageReader();
    /** Random start: a reply that strays to another connection (its peer restarted) matches no call there. */
    private long nextRequestId = ThreadLocalRandom.current().nextLong();
    private long requestId;
    private byte type;

    /**
     * A client whose timeouts run on the system's clock, for tools with no context to take one from.
     *
     * @see #MetaRpcClient(Connection, MemorySegment, MemorySegment, Duration, NanoClock, MetaFrameAuthenticator)
     */
    public MetaRpcClient(
        final Connection connection,
        final MemorySegment requestBuffer,
        final MemorySegment replyBuffer,
        final Duration timeout,
        final MetaFrameAuthenticator authenticator)
    {
        this(connection, requestBuffer, replyBuffer, timeout, Clocks.nanoClock(), authenticator);
    }

    /**
     * @param connection    a messaging connection to the MetaServer's {@link MetaRpcDescriptor#SERVICE}.
     * @param requestBuffer where requests are written.
     * @param replyBuffer   where replies are received; up to {@link MetaRpcDescriptor#MAX_FRAME_LENGTH} bytes.
     * @param timeout       how long a reply may take.
     * @param nanoClock     the clock the timeout runs on ({@link MetaDirectoryContext#nanoClock()}).
     * @param authenticator seals requests and checks replies.
     */
    public MetaRpcClient(
        final Connection connection,
        final MemorySegment requestBuffer,
        final MemorySegment replyBuffer,
        final Duration timeout,
        final NanoClock nanoClock,
        final MetaFrameAuthenticator authenticator)
    {
        this.connection = connection;
        this.requestBuffer = requestBuffer;
        this.replyBuffer = replyBuffer;
        this.timeout = timeout;
        this.nanoClock = nanoClock;
        this.authenticator = authenticator;
    }

    public Connection connection()
    {
        return connection;
    }

    /**
     * Start a request; put its body with the returned writer, then {@link #call()}.
     */
    public MetaMessageWriter begin(final byte type)
    {
        this.type = type;
        this.requestId = nextRequestId++;
        return writer.wrap(requestBuffer).request(type, (short)0, requestId);
    }

    /**
     * Start an operator's request ({@link MetaRpcDescriptor#FLAG_OPERATOR}): sealed with the operator
     * key, it may remove any node or region.
     */
    public MetaMessageWriter beginOperator(final byte type)
    {
        return begin(type).flags(FLAG_OPERATOR);
    }

    /**
     * Send the request begun and wait for its reply.
     *
     * @return a reader positioned at the reply body.
     * @throws MetaRpcException when the server answered with an error status, or the reply is not
     *                          authentic ({@link MetaRpcDescriptor#STATUS_UNAUTHENTICATED}).
     * @throws RaasException    when the connection failed or no reply came in time.
     */
    public MetaMessageReader call()
    {
        final int length = authenticator.seal(requestBuffer, writer.finish());
        connection.send(requestBuffer, 0, length, Flags.ADAPTIVE);
        final long deadline = nanoClock.nanoTime() + timeout.toNanos();
        while (true)
        {
            final long left = deadline - nanoClock.nanoTime();
            if (left <= 0)
            {
                throw new RaasException(typeName(type) + " request " + requestId + " to MetaServer " +
                    connection.nodeId() +
                    " had no reply within " + timeout.toMillis() + " ms");
            }
            final int received =
                connection.recv(replyBuffer, 0, (int)Math.min(replyBuffer.byteSize(), Integer.MAX_VALUE),
                    Duration.ofNanos(left));
            reader.wrap(replyBuffer, 0, Math.max(0, received - MAC_LENGTH));
            if (received < HEADER_LENGTH + MAC_LENGTH || reader.type() != TYPE_REPLY)
            {
                throw new RaasException("MetaServer " + connection.nodeId() + " answered " + typeName(type) +
                    " with a " + received +
                    "-byte frame that is no reply");
            }
            if (reader.requestId() != requestId)
            {
                continue;
            }
            final short status = reader.status();
            final String forged = authenticator.verify(replyBuffer, received);
            if (forged != null)
            {
                throw new MetaRpcException(STATUS_UNAUTHENTICATED,
                    "the reply to " + typeName(type) + " from MetaServer " +
                    connection.nodeId() + " is not authentic: " + forged + " (unverified, it says " +
                    statusName(status) + ")", MetaFrameAuthenticator.isBadMac(forged));
            }
            reader.body();
            if (status != STATUS_OK)
            {
                throw new MetaRpcException(status,
                    typeName(type) + " refused by MetaServer " + connection.nodeId() + ": " +
                    reader.getRemainingText());
            }
            return reader;
        }
    }
}
