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
    default void read(
        final RemoteRegion region, final long offset, final MemorySegment dst, final long dstOffset, final int length)
    {
        oneSided(OneSidedOperation.READ, region, offset, dst, dstOffset, length, 0, 0);
    }

    /** WRITE {@code length} bytes of {@code src} at {@code offset} of the region. */
    default void write(
        final RemoteRegion region, final long offset, final MemorySegment src, final long srcOffset, final int length)
    {
        oneSided(OneSidedOperation.WRITE, region, offset, src, srcOffset, length, 0, 0);
    }

    /** @return the word before the compare-and-swap (it swapped only if that equals {@code expected}). */
    default long cas(final RemoteRegion region, final long offset, final long expected, final long desired)
    {
        return oneSided(OneSidedOperation.CAS, region, offset, null, 0, Long.BYTES, expected, desired);
    }

    /** @return the word before {@code delta} was added. */
    default long faa(final RemoteRegion region, final long offset, final long delta)
    {
        return oneSided(OneSidedOperation.FAA, region, offset, null, 0, Long.BYTES, delta, 0);
    }

    /**
     * The one entry of a synchronous one-sided request, which {@link #read}, {@link #write}, {@link #cas}
     * and {@link #faa} call: it makes every check of the connection, submits the request and waits for it.
     *
     * @param local       the caller's memory a READ lands in or a WRITE comes from; null for an atomic.
     * @param localOffset where in {@code local}.
     * @param length      bytes to transfer; 8 for an atomic.
     * @param compareAdd  what a CAS compares with or an FAA adds; 0 otherwise.
     * @param swap        what a CAS swaps in; 0 otherwise.
     * @return the word before an atomic; nothing of use for READ and WRITE.
     * @throws RaasException saying why the request was refused or failed.
     */
    long oneSided(
        OneSidedOperation operation, RemoteRegion region, long offset, MemorySegment local, long localOffset,
        int length, long compareAdd, long swap);

    /**
     * READ {@code length} bytes at each of two offsets of the region, into {@code dst} at {@code dstOffset} and
     * right after, posted in one doorbell batch and waited for by the calling thread, where this connection can do
     * that (an embedded driver's thread with a lane of its own, nothing of the connection in flight): a RACE
     * lookup's two candidate buckets.
     *
     * @return false when it cannot (nothing was read: read them another way); true when both were read.
     * @throws RaasException saying why the READs were refused or failed.
     */
    default boolean tryReadPair(
        final RemoteRegion region, final long firstOffset, final long secondOffset, final MemorySegment dst,
        final long dstOffset, final int length)
    {
        return false;
    }

    // ---- one-sided, asynchronous: the handler hears of each by its token ----

    /**
     * READ into {@code dst} without waiting. Whichever thread polls the completion writes the result,
     * so {@code dst} must be memory any thread may write (not an {@code Arena.ofConfined()} one, which
     * the embedded driver refuses); a synchronous {@link #read} may use its caller's confined memory.
     */
    default void readAsync(
        final RemoteRegion region,
        final long offset,
        final MemorySegment dst,
        final long dstOffset,
        final int length,
        final long token)
    {
        oneSidedAsync(OneSidedOperation.READ, region, offset, dst, dstOffset, length, 0, 0, token);
    }

    default void writeAsync(
        final RemoteRegion region,
        final long offset,
        final MemorySegment src,
        final long srcOffset,
        final int length,
        final long token)
    {
        oneSidedAsync(OneSidedOperation.WRITE, region, offset, src, srcOffset, length, 0, 0, token);
    }

    default void casAsync(
        final RemoteRegion region, final long offset, final long expected, final long desired, final long token)
    {
        oneSidedAsync(OneSidedOperation.CAS, region, offset, null, 0, Long.BYTES, expected, desired, token);
    }

    default void faaAsync(final RemoteRegion region, final long offset, final long delta, final long token)
    {
        oneSidedAsync(OneSidedOperation.FAA, region, offset, null, 0, Long.BYTES, delta, 0, token);
    }

    /**
     * The one entry of an asynchronous one-sided request, as {@link #oneSided} but the outcome goes to
     * the connection's handler with {@code token} and the caller does not wait for it.
     *
     * @throws RaasException saying why the request was refused.
     */
    void oneSidedAsync(
        OneSidedOperation operation, RemoteRegion region, long offset, MemorySegment local, long localOffset,
        int length, long compareAdd, long swap, long token);

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
     * Send a message as a SEND into the peer's receive queue when the peer granted a message credit now;
     * never wait for one. The peer returns credits as its application consumes messages, so a thread that
     * serves both directions of a conversation (a byte stream) consumes what it was sent and tries again
     * instead of waiting inside {@link #send}, where two such threads could wait on each other.
     * A handle attached to a standalone driver cannot see its credits and waits as {@link #send} does.
     *
     * @return false, having sent nothing, when no credit is left.
     * @throws RaasException when the message exceeds a receive buffer or the connection is not open.
     */
    default boolean trySend(final MemorySegment src, final long offset, final int length)
    {
        send(src, offset, length, Flags.USE_SEND);
        return true;
    }

    /**
     * Post a message as a SEND into the peer's receive queue and return at once, never waiting: not for a message
     * credit, a request slot, nor the message's completion, so one thread may answer many peers and a peer that
     * stopped taking messages holds back none of the others. Messages offered on a connection arrive in the order
     * offered. A transport failure of one is counted and closes nothing; the peer, whose answer it was, times out.
     * A handle attached to a standalone driver sends as {@link #send} does, waiting.
     *
     * @return false, having sent nothing, when the peer granted no credit now or no request slot is free: offer it
     * again later.
     * @throws RaasException when the message exceeds what a request stages or a receive buffer holds, or the
     *                       connection is not open.
     */
    default boolean offer(final MemorySegment src, final long offset, final int length)
    {
        send(src, offset, length, Flags.USE_SEND);
        return true;
    }

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
