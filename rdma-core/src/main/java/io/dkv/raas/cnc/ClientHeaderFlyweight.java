package io.dkv.raas.cnc;

import io.dkv.agent.Doorbell;
import org.agrona.concurrent.AtomicBuffer;

import static io.dkv.raas.cnc.CncDescriptor.*;

/**
 * The header of a client's file (see {@link CncDescriptor}): written by the client before it asks to
 * be attached, read by the driver, which marks it closed when it removes the client. The magic is
 * written last (ordered): a driver that sees it sees the rest.
 */
public final class ClientHeaderFlyweight
{
    private AtomicBuffer buffer;

    public ClientHeaderFlyweight wrap(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
        return this;
    }

    /** @return true when the header is complete and names this client. */
    public boolean isReadyFor(final long clientId)
    {
        return buffer.getLongVolatile(MAGIC_OFFSET) == CLIENT_MAGIC && clientId() == clientId;
    }

    /** The header is complete: the driver may attach the client from now on. */
    public ClientHeaderFlyweight publish()
    {
        buffer.putLongOrdered(MAGIC_OFFSET, CLIENT_MAGIC);
        return this;
    }

    public long clientId()
    {
        return buffer.getLong(CLIENT_ID_OFFSET);
    }

    public ClientHeaderFlyweight clientId(final long clientId)
    {
        buffer.putLong(CLIENT_ID_OFFSET, clientId);
        return this;
    }

    public long pid()
    {
        return buffer.getLong(CLIENT_PID_OFFSET);
    }

    public ClientHeaderFlyweight pid(final long pid)
    {
        buffer.putLong(CLIENT_PID_OFFSET, pid);
        return this;
    }

    public long heartbeat()
    {
        return buffer.getLongVolatile(CLIENT_HEARTBEAT_OFFSET);
    }

    public ClientHeaderFlyweight heartbeat(final long nowMillis)
    {
        buffer.putLongOrdered(CLIENT_HEARTBEAT_OFFSET, nowMillis);
        return this;
    }

    public int responseLength()
    {
        return buffer.getInt(RESPONSE_LENGTH_OFFSET);
    }

    public ClientHeaderFlyweight responseLength(final int length)
    {
        buffer.putInt(RESPONSE_LENGTH_OFFSET, length);
        return this;
    }

    public int dataLength()
    {
        return buffer.getInt(DATA_LENGTH_OFFSET);
    }

    public ClientHeaderFlyweight dataLength(final int length)
    {
        buffer.putInt(DATA_LENGTH_OFFSET, length);
        return this;
    }

    /** @return true once the driver removed the client. */
    public boolean isClosed()
    {
        return buffer.getIntVolatile(CLIENT_CLOSED_OFFSET) != 0;
    }

    /** The driver removed the client: its calls fail, saying so. */
    public ClientHeaderFlyweight markClosed()
    {
        buffer.putIntVolatile(CLIENT_CLOSED_OFFSET, 1);
        return this;
    }

    /**
     * @return the doorbell the client's waiting threads sleep on, which the driver rings with each response (a new
     * object).
     */
    public Doorbell doorbell()
    {
        return new Doorbell(buffer, CLIENT_DOORBELL_OFFSET);
    }
}
