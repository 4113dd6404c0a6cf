package io.dkv.raas.cnc;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.file.Path;

/**
 * Files of a standalone driver, in {@code <dir>/<driver name>/}: the driver's {@code cnc} file,
 * which clients write commands into, one {@code client-<id>} file per attached client, which
 * the driver writes responses and data into, and the driver's {@code counters} file (laid out as
 * {@link io.dkv.agent.CountersFileDescriptor} says), which monitors read. Their headers are read and written through
 * {@link CncHeaderFlyweight} and {@link ClientHeaderFlyweight}; the messages in their rings are
 * described by {@link CommandDescriptor}.
 *
 * <pre>
 * cnc
 *   0  magic            long   "DKVRAAS1"
 *   8  version          int
 *  12  toDriverLength   int    capacity of the command ring (power of two)
 *  16  driverPid        long
 *  24  heartbeat        long   driver's monotonic clock in ms ({@link #heartbeatClock}), renewed every interval
 *  32  nodeId           long   the node the driver serves
 *  40  clientTimeoutMs  int    a client silent this long is removed
 *  44  driverTimeoutMs  int    a driver silent this long is dead to its clients
 *  48  closed           int    1 once the driver shut down
 *  52  errorLogLength   int    bytes of the error log
 *  64  doorbell         8 bytes the conductor sleeps on when idle; a client rings it with each command
 *                       ({@link io.dkv.agent.Doorbell})
 * 128  command ring     many-to-one ring buffer (toDriverLength + trailer)
 *  ..  error log        64-byte aligned: the driver's distinct errors (Agrona's DistinctErrorLog), read by
 *                       ./dkv driver --errors; kept after a stop that recorded errors
 *
 * client-&lt;id&gt;
 *   0  magic            long   "DKVCLNT1"
 *   8  clientId         long
 *  16  pid              long
 *  24  heartbeat        long   client's monotonic clock in ms ({@link #heartbeatClock})
 *  32  responseLength   int    capacity of the response ring (power of two)
 *  36  dataLength       int    bytes of the data area
 *  40  closed           int    1 once the driver removed the client
 *  48  doorbell         8 bytes the client's waiting threads sleep on; the driver rings it with each response
 *  64  response ring    many-to-one ring buffer (responseLength + trailer)
 *  ..  data area        64-byte aligned: buffers requests read from and write into
 * </pre>
 */
public final class CncDescriptor
{
    public static final long CNC_MAGIC = 0x3153414152564b44L;
    public static final long CLIENT_MAGIC = 0x31544e4c4356_4b44L;
    /**
     * 7: doorbells in both headers, which a driver and its clients sleep on and ring (6: ADD_CLIENT carries the node
     * the client is, and a driver serves listeners of several nodes; 5: the phase HANDOVER (3) comes before CLEANUP
     * (4, was 3); 4: MEMBERSHIP data carries the change's phase and each member's placement).
     */
    public static final int VERSION = 7;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int TO_DRIVER_LENGTH_OFFSET = 12;
    public static final int DRIVER_PID_OFFSET = 16;
    public static final int HEARTBEAT_OFFSET = 24;
    public static final int NODE_ID_OFFSET = 32;
    public static final int CLIENT_TIMEOUT_OFFSET = 40;
    public static final int DRIVER_TIMEOUT_OFFSET = 44;
    public static final int CLOSED_OFFSET = 48;
    public static final int ERROR_LOG_LENGTH_OFFSET = 52;
    public static final int DRIVER_DOORBELL_OFFSET = 64;
    public static final int CNC_HEADER_LENGTH = 128;

    public static final int CLIENT_ID_OFFSET = 8;
    public static final int CLIENT_PID_OFFSET = 16;
    public static final int CLIENT_HEARTBEAT_OFFSET = 24;
    public static final int RESPONSE_LENGTH_OFFSET = 32;
    public static final int DATA_LENGTH_OFFSET = 36;
    public static final int CLIENT_CLOSED_OFFSET = 40;
    public static final int CLIENT_DOORBELL_OFFSET = 48;
    public static final int CLIENT_HEADER_LENGTH = 64;

    public static final String CNC_FILE = "cnc";
    /** The driver's counters: beside the cnc file, as every role's counters file is laid out. */
    public static final String COUNTERS_FILE = "counters";

    /**
     * The clock heartbeats are stamped and judged by: the monotonic clock in milliseconds. A driver and its clients
     * share a host, whose CLOCK_MONOTONIC ({@code System.nanoTime}) every process reads alike and nothing steps; a
     * wall clock stepped forward by more than the driver's timeout (an operator, NTP) made every client give its
     * driver up at once ({@code ./dkv check}'s clock nemesis found it).
     */
    public static EpochClock heartbeatClock(final NanoClock nanoClock)
    {
        return () -> nanoClock.nanoTime() / 1_000_000L;
    }

    private CncDescriptor()
    {
    }

    public static long errorLogOffset(final int toDriverLength)
    {
        return (CNC_HEADER_LENGTH + toDriverLength + RingBufferDescriptor.TRAILER_LENGTH + 63) & ~63L;
    }

    public static long cncLength(final int toDriverLength, final int errorLogLength)
    {
        return errorLogOffset(toDriverLength) + errorLogLength;
    }

    public static long dataOffset(final int responseLength)
    {
        return (CLIENT_HEADER_LENGTH + responseLength + RingBufferDescriptor.TRAILER_LENGTH + 63) & ~63L;
    }

    public static long clientLength(final int responseLength, final int dataLength)
    {
        return dataOffset(responseLength) + dataLength;
    }

    public static String clientFileName(final long clientId)
    {
        return String.format("client-%016x", clientId);
    }

    public static Path driverDirectory(final Path root, final String driverName)
    {
        return root.resolve("dkv-raas").resolve(driverName);
    }
}
