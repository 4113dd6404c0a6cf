package io.dkv.raas;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * A logical connection (virtual QP, identified by its vQPN) to one node. Many share few physical
 * queue pairs; each has its own credits so none can overflow a shared queue. One-sided requests
 * need only the remote region; messages need the peer to have accepted ({@link Raas#connect}).
 * Thread-safe; messages are received by one thread at a time.
 */
public interface Connection extends AutoCloseable
{
    int vqpn();

    long nodeId();

    /** @return true when both ends exchanged vQPNs and messages may flow. */
    boolean isMessaging();

    // ---- one-sided, synchronous ----

    /** READ {@code length} bytes at {@code offset} of the region into {@code dst}. */
    void read(RemoteRegion region, long offset, MemorySegment dst, long dstOffset, int length);

    /** WRITE {@code length} bytes of {@code src} at {@code offset} of the region. */
    void write(RemoteRegion region, long offset, MemorySegment src, long srcOffset, int length);

    /** @return the word before the compare-and-swap (it swapped only if that equals {@code expected}). */
    long cas(RemoteRegion region, long offset, long expected, long desired);

    /** @return the word before {@code delta} was added. */
    long faa(RemoteRegion region, long offset, long delta);

    // ---- one-sided, asynchronous: the handler hears of each by its token ----

    void readAsync(RemoteRegion region, long offset, MemorySegment dst, long dstOffset, int length, long token);

    void writeAsync(RemoteRegion region, long offset, MemorySegment src, long srcOffset, int length, long token);

    void casAsync(RemoteRegion region, long offset, long expected, long desired, long token);

    void faaAsync(RemoteRegion region, long offset, long delta, long token);

    /** Submit the asynchronous requests made since the last flush in one doorbell batch. */
    void flush();

    /** @return requests submitted and not yet completed. */
    int outstanding();

    // ---- two-sided ----

    /**
     * Send a message; returns once the bytes may be reused (copied, or delivered when sent from
     * the caller's registered memory).
     *
     * @param flags {@link Flags}: adaptive by default.
     */
    void send(MemorySegment src, long offset, int length, int flags);

    /**
     * Receive the next message into {@code dst}.
     *
     * @return the message length.
     * @throws RaasException if the message is larger than {@code maxLength} (it is dropped), or on timeout.
     */
    int recv(MemorySegment dst, long offset, int maxLength, Duration timeout);

    /**
     * @return true when {@link #recv} would not wait: a message is there, or this end or the peer
     * closed the connection (recv then throws). Lets one thread serve many connections, waiting on
     * none of them.
     */
    boolean isReadable();

    /**
     * Receive the next message without copying it.
     *
     * @return the message; release it once read.
     */
    ReceivedMessage recvZeroCopy(Duration timeout);

    /** Close this end; the peer learns of it, outstanding requests complete with CLOSED. */
    void close();
}
