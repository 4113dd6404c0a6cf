package io.dkv.raas;

/**
 * Header of every message RaaS carries in a SEND, ahead of its payload. The receiving logical
 * connection's vQPN travels in the work request's immediate data (0 for messages to the driver
 * itself, such as CONNECT).
 *
 * <pre>
 *   0  type        byte   TYPE_*
 *   1  flags       byte
 *   2  reserved    short
 *   4  srcVqpn     int    the sending logical connection
 *   8  credits     int    message credits granted or returned to the receiver of this header
 *  12  length      int    payload bytes after the header; for WRITTEN/READ notices, the message length
 *  16  payload
 * </pre>
 */
public final class ControlHeader
{
    public static final int TYPE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int SRC_VQPN_OFFSET = 4;
    public static final int CREDITS_OFFSET = 8;
    public static final int LENGTH_OFFSET = 12;
    public static final int LENGTH = 16;

    /** Application bytes for the connection. */
    public static final byte TYPE_DATA = 1;
    /** Open a connection to a service: payload is {@link #CONNECT_LENGTH} bytes, see the connect offsets. */
    public static final byte TYPE_CONNECT = 2;
    /** The service accepted: payload is the advertised buffer (address, rkey, length). */
    public static final byte TYPE_ACCEPT = 3;
    /** The service refused: why in the payload: no listener, or a bound on inbound connections. */
    public static final byte TYPE_REFUSE = 4;
    /** Credits given back; length is advertised-buffer bytes freed. */
    public static final byte TYPE_CREDIT = 5;
    /** The peer closed its end. */
    public static final byte TYPE_CLOSE = 6;
    /**
     * A large message waits in the sender's buffer: payload is (address, rkey, token); READ it, then answer READ_DONE.
     */
    public static final byte TYPE_READ_REQUEST = 7;
    /** The receiver has read the message named by the token in the payload. */
    public static final byte TYPE_READ_DONE = 8;

    /** Ask the receiving driver for an RC queue pair: payload is the asker's QP number. */
    public static final byte TYPE_RC_CONNECT = 9;
    /** The RC queue pair is ready: payload is the answerer's QP number. */
    public static final byte TYPE_RC_ACCEPT = 10;
    /** No RC queue pair now (pool full): stay on DC. */
    public static final byte TYPE_RC_REFUSE = 11;
    /**
     * Close the receiver's RC queue pair named in the payload (see {@link #RC_PEER_QPN_OFFSET}); the peer goes back to
     * DC.
     */
    public static final byte TYPE_RC_CLOSE = 12;
    /** The sender drained and closed its end of the receiver's RC queue pair named in the payload. */
    public static final byte TYPE_RC_CLOSED = 15;
    /**
     * The acceptor's buffer for WRITE_WITH_IMM, sent once the connection was used (an unused one holds
     * none): payload as ACCEPT's address, rkey and bytes.
     */
    public static final byte TYPE_ADVERT = 16;
    /** Allocate a named region on the receiving node: payload is size, token and name. */
    public static final byte TYPE_MALLOC = 13;
    /** The region was allocated: payload is token, address, rkey, length and epoch; or an error. */
    public static final byte TYPE_MALLOC_DONE = 14;

    /*
     * CONNECT and RC_CONNECT carry the sender's node record, so that the receiver can answer a node
     * its directory does not know yet:
     *
     *  16  service      int
     *  20  role         int
     *  24  nodeId       long
     *  32  dcKey        long
     *  40  epoch        long
     *  48  dct          int
     *  52  addrLength   int
     *  56  address      24 bytes
     *  80  advertAddr   long   (CONNECT) the buffer the sender advertises for WRITE_WITH_IMM
     *  88  advertRkey   int
     *  92  advertBytes  int
     *  96  qpn          int    the sender's RC queue pair (RC_CONNECT) or UD queue pair (CONNECT)
     * 100  targetId     long   (CONNECT) the node whose service is asked for: a driver serves its own node's
     *                          listeners and those of the nodes its attached applications are (0: its own)
     */
    public static final int CONNECT_SERVICE_OFFSET = LENGTH;
    public static final int CONNECT_ROLE_OFFSET = LENGTH + 4;
    public static final int CONNECT_NODE_ID_OFFSET = LENGTH + 8;
    public static final int CONNECT_DC_KEY_OFFSET = LENGTH + 16;
    public static final int CONNECT_EPOCH_OFFSET = LENGTH + 24;
    public static final int CONNECT_DCT_OFFSET = LENGTH + 32;
    public static final int CONNECT_ADDRESS_LENGTH_OFFSET = LENGTH + 36;
    public static final int CONNECT_ADDRESS_OFFSET = LENGTH + 40;
    public static final int CONNECT_MAX_ADDRESS = 24;
    public static final int CONNECT_ADVERT_ADDRESS_OFFSET = LENGTH + 64;
    public static final int CONNECT_ADVERT_RKEY_OFFSET = LENGTH + 72;
    public static final int CONNECT_ADVERT_BYTES_OFFSET = LENGTH + 76;
    public static final int CONNECT_QPN_OFFSET = LENGTH + 80;
    public static final int CONNECT_TARGET_ID_OFFSET = LENGTH + 84;
    public static final int CONNECT_LENGTH = 92;

    /*
     * ACCEPT: the acceptor's advertised buffer and UD QP (its vQPN is in srcVqpn, its credits in credits).
     * An acceptor advertises no buffer (0 bytes) until the connection is used, then sends ADVERT with the
     * first three fields; until then the connector sends what fits a receive buffer as SEND, the rest by READ.
     *
     *  16  advertAddr   long
     *  24  advertRkey   int
     *  28  advertBytes  int
     *  32  udQpn        int    (ACCEPT only)
     */
    public static final int ACCEPT_ADDRESS_OFFSET = LENGTH;
    public static final int ACCEPT_RKEY_OFFSET = LENGTH + 8;
    public static final int ACCEPT_BYTES_OFFSET = LENGTH + 12;
    public static final int ACCEPT_UD_QPN_OFFSET = LENGTH + 16;
    public static final int ACCEPT_LENGTH = 20;

    public static final int ADVERT_LENGTH = 16;

    /*
     * REFUSE: which service, why, and the figures behind a bound (imm is the connector's vQPN):
     *
     *  16  service      int
     *  20  reason       int    REFUSE_*
     *  24  held         int    the connections the refuser holds that the bound counts
     *  28  limit        int    the bound
     */
    public static final int REFUSE_SERVICE_OFFSET = LENGTH;
    public static final int REFUSE_REASON_OFFSET = LENGTH + 4;
    public static final int REFUSE_HELD_OFFSET = LENGTH + 8;
    public static final int REFUSE_LIMIT_OFFSET = LENGTH + 12;
    public static final int REFUSE_LENGTH = 16;
    /** No listener on the service. */
    public static final int REFUSE_NO_LISTENER = 1;
    /** The refuser holds as many inbound connections from the connector's address as it takes from one peer. */
    public static final int REFUSE_PEER_LIMIT = 2;
    /** The refuser holds as many inbound connections as it takes in all. */
    public static final int REFUSE_DRIVER_LIMIT = 3;
    /** The refuser is closing. */
    public static final int REFUSE_CLOSING = 4;

    /**
     * @return why a peer refused a connection, in words, from a REFUSE's reason and figures.
     */
    public static String describeRefusal(final int reason, final int held, final int limit)
    {
        return switch (reason)
        {
            case REFUSE_NO_LISTENER -> "no listener";
            case REFUSE_PEER_LIMIT -> "it holds " + held + " connections from this peer (limit " + limit + ")";
            case REFUSE_DRIVER_LIMIT -> "it holds " + held + " inbound connections (limit " + limit + ")";
            case REFUSE_CLOSING -> "it is closing";
            default -> "reason " + reason;
        };
    }

    /** Queue key of every RaaS driver's UD queue pair. */
    public static final int UD_QKEY = 0x444B5655;

    /* READ_REQUEST: where the message waits; READ_DONE echoes the token. */
    public static final int READ_ADDRESS_OFFSET = LENGTH;
    public static final int READ_RKEY_OFFSET = LENGTH + 8;
    public static final int READ_TOKEN_OFFSET = LENGTH + 12;
    public static final int READ_LENGTH = 16;

    /* RC_ACCEPT, RC_REFUSE: a QP number. */
    public static final int RC_QPN_OFFSET = LENGTH;
    public static final int RC_LENGTH = 4;

    /*
     * RC_CLOSE, RC_CLOSED: the receiver's QP number (at RC_QPN_OFFSET), then the sender's. QP numbers
     * are unique per device only: a node with RC queue pairs to several peers may hold two whose
     * peers' numbers are equal, so the receiver finds the queue pair by its own number and checks
     * that its peer is the sender's.
     */
    public static final int RC_PEER_QPN_OFFSET = LENGTH + 4;
    public static final int RC_CLOSE_LENGTH = 8;

    /*
     * MALLOC: size, token, the remote rights asked for, name length, name (UTF-8).
     * MALLOC_DONE: token, status, address, rkey, length, epoch, the remote rights granted.
     */
    public static final int MALLOC_SIZE_OFFSET = LENGTH;
    public static final int MALLOC_TOKEN_OFFSET = LENGTH + 8;
    public static final int MALLOC_ACCESS_OFFSET = LENGTH + 12;
    public static final int MALLOC_NAME_LENGTH_OFFSET = LENGTH + 16;
    public static final int MALLOC_NAME_OFFSET = LENGTH + 20;
    public static final int MALLOC_FIXED_LENGTH = 20;
    public static final int MALLOC_DONE_TOKEN_OFFSET = LENGTH;
    public static final int MALLOC_DONE_STATUS_OFFSET = LENGTH + 4;
    public static final int MALLOC_DONE_ADDRESS_OFFSET = LENGTH + 8;
    public static final int MALLOC_DONE_RKEY_OFFSET = LENGTH + 16;
    public static final int MALLOC_DONE_LENGTH_OFFSET = LENGTH + 20;
    public static final int MALLOC_DONE_EPOCH_OFFSET = LENGTH + 28;
    public static final int MALLOC_DONE_ACCESS_OFFSET = LENGTH + 36;
    public static final int MALLOC_DONE_LENGTH = 40;

    private ControlHeader()
    {
    }
}
