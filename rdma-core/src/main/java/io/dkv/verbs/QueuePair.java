package io.dkv.verbs;

/**
 * Queue pair, as {@code ibv_qp}: a send queue and a receive queue (or an SRQ) with a transport
 * type and the state machine RESET → INIT → RTR → RTS, and ERROR from any state. One thread posts
 * to a queue pair at a time.
 */
public interface QueuePair extends AutoCloseable
{
    /** @return the QP number peers address (24 bits). */
    int qpNum();

    QpType type();

    QpState state();

    /**
     * Move to another state, as {@code ibv_modify_qp}. Moving to ERROR completes every outstanding
     * send and receive request with {@link WcStatus#WR_FLUSH_ERR}; moving to RESET discards them.
     *
     * @param attributes target state and what the transition needs.
     * @throws VerbsException for a transition the state machine does not allow, or missing attributes.
     */
    void modify(QpAttributes attributes);

    /**
     * Post a list of send requests (a doorbell batch), as {@code ibv_post_send}. Allocates nothing.
     * In ERROR state every request completes with WR_FLUSH_ERR.
     *
     * @param wr first request; further ones follow {@link SendWorkRequest#next()}.
     * @throws VerbsException when a request cannot be queued (wrong state, queue full, too many SGEs,
     *                        inline or message too large); the requests before it were posted.
     */
    void postSend(SendWorkRequest wr);

    /**
     * Post a list of receive requests, as {@code ibv_post_recv}.
     *
     * @param wr first request; further ones follow {@link RecvWorkRequest#next()}.
     * @throws VerbsException when a request cannot be queued; the requests before it were posted.
     */
    void postRecv(RecvWorkRequest wr);

    /** Destroy the queue pair; its number is never reused by the device. */
    void close();
}
