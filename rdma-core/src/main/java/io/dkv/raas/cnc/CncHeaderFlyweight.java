package io.dkv.raas.cnc;

import io.dkv.agent.Doorbell;
import org.agrona.concurrent.AtomicBuffer;

import static io.dkv.raas.cnc.CncDescriptor.*;

/**
 * The header of a driver's {@code cnc} file (see {@link CncDescriptor}): written by the driver, read by
 * the clients that attach. The magic is written last (ordered) and read first (volatile): a client
 * that sees it sees the rest; the heartbeat and the closed flag change while both run.
 */
public final class CncHeaderFlyweight
{
    private AtomicBuffer buffer;

    public CncHeaderFlyweight wrap(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
        return this;
    }

    /** @return true when the driver finished writing the header of this version of the file. */
    public boolean isReady()
    {
        return buffer.getLongVolatile(MAGIC_OFFSET) == CNC_MAGIC && buffer.getInt(VERSION_OFFSET) == VERSION;
    }

    /** The header is complete: clients may use the file from now on. */
    public CncHeaderFlyweight publish()
    {
        buffer.putInt(VERSION_OFFSET, VERSION);
        buffer.putLongOrdered(MAGIC_OFFSET, CNC_MAGIC);
        return this;
    }

    public int toDriverLength()
    {
        return buffer.getInt(TO_DRIVER_LENGTH_OFFSET);
    }

    public CncHeaderFlyweight toDriverLength(final int length)
    {
        buffer.putInt(TO_DRIVER_LENGTH_OFFSET, length);
        return this;
    }

    public long driverPid()
    {
        return buffer.getLong(DRIVER_PID_OFFSET);
    }

    public CncHeaderFlyweight driverPid(final long pid)
    {
        buffer.putLong(DRIVER_PID_OFFSET, pid);
        return this;
    }

    public long heartbeat()
    {
        return buffer.getLongVolatile(HEARTBEAT_OFFSET);
    }

    public CncHeaderFlyweight heartbeat(final long nowMillis)
    {
        buffer.putLongOrdered(HEARTBEAT_OFFSET, nowMillis);
        return this;
    }

    public long nodeId()
    {
        return buffer.getLong(NODE_ID_OFFSET);
    }

    public CncHeaderFlyweight nodeId(final long nodeId)
    {
        buffer.putLong(NODE_ID_OFFSET, nodeId);
        return this;
    }

    public int clientTimeoutMs()
    {
        return buffer.getInt(CLIENT_TIMEOUT_OFFSET);
    }

    public CncHeaderFlyweight clientTimeoutMs(final int timeoutMs)
    {
        buffer.putInt(CLIENT_TIMEOUT_OFFSET, timeoutMs);
        return this;
    }

    public int driverTimeoutMs()
    {
        return buffer.getInt(DRIVER_TIMEOUT_OFFSET);
    }

    public CncHeaderFlyweight driverTimeoutMs(final int timeoutMs)
    {
        buffer.putInt(DRIVER_TIMEOUT_OFFSET, timeoutMs);
        return this;
    }

    public int errorLogLength()
    {
        return buffer.getInt(ERROR_LOG_LENGTH_OFFSET);
    }

    public CncHeaderFlyweight errorLogLength(final int length)
    {
        buffer.putInt(ERROR_LOG_LENGTH_OFFSET, length);
        return this;
    }

    /** @return true once the driver shut down. */
    public boolean isClosed()
    {
        return buffer.getIntVolatile(CLOSED_OFFSET) != 0;
    }

    /** The driver shut down: its clients fail their calls, saying so. */
    public CncHeaderFlyweight markClosed()
    {
        buffer.putIntVolatile(CLOSED_OFFSET, 1);
        return this;
    }

    /** @return the doorbell the conductor sleeps on, which clients ring with each command (a new object). */
    public Doorbell doorbell()
    {
        return new Doorbell(buffer, DRIVER_DOORBELL_OFFSET);
    }
}
