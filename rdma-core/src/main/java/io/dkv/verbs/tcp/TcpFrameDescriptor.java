package io.dkv.verbs.tcp;

/**
 * Frames on a tcp link. A link is one TCP connection from an initiating device's engine to a
 * responding device's engine: requests flow one way, responses the other. Every frame starts with
 * its total length and type; integers are little-endian.
 *
 * <pre>
 * HELLO (first frame of a link, initiator to responder), 48 bytes
 *   0  frameLength int    48
 *   4  type        byte   TYPE_HELLO
 *   8  magic       long   "DKVLINK1"
 *  16  version     int
 *  20  addrLength  int    6 or 18
 *  24  address     bytes  the initiator's port address (where its own engine listens)
 *
 * REQUEST (initiator to responder), 64-byte header + payload
 *   0  frameLength int    64 + payload bytes (SEND, WRITE)
 *   4  type        byte   TYPE_REQUEST
 *   5  opcode      byte   Opcode code
 *   6  transport   byte   TRANSPORT_RC, TRANSPORT_UD, TRANSPORT_DC
 *   7  incarnation byte   of the requester QP, bumped by each reset: after an error the responder
 *                         drops the requester's frames until a new incarnation, so what the
 *                         requester flushed was never executed
 *   8  srcQpn      int    requester QP
 *  12  dstNumber   int    responder QP or DC target
 *  16  psn         int    requester sequence number, echoed in the response
 *  20  length      int    payload bytes, bytes to read, or 8 for atomics
 *  24  remoteAddr  long
 *  32  rkey        int
 *  36  immData     int
 *  40  compareAdd  long
 *  48  swap        long
 *  56  key         long   DC key (DC), queue key (UD)
 *
 * RESPONSE / RNR_NAK (responder to initiator), 24-byte header + payload
 *   0  frameLength int    24 + payload bytes (READ data)
 *   4  type        byte   TYPE_RESPONSE or TYPE_RNR_NAK
 *   5  status      byte   WcStatus code
 *   8  qpn         int    requester QP
 *  12  psn         int
 *  16  original    long   atomics: the remote word before the operation (host order)
 * </pre>
 */
public final class TcpFrameDescriptor
{
    public static final long HELLO_MAGIC = 0x314b4e494c564b44L;
    public static final int PROTOCOL_VERSION = 1;

    public static final byte TYPE_HELLO = 1;
    public static final byte TYPE_REQUEST = 2;
    public static final byte TYPE_RESPONSE = 3;
    public static final byte TYPE_RNR_NAK = 4;

    public static final byte TRANSPORT_RC = 0;
    public static final byte TRANSPORT_UD = 1;
    public static final byte TRANSPORT_DC = 2;

    public static final int FRAME_LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = 4;

    public static final int HELLO_LENGTH = 48;
    public static final int HELLO_MAGIC_OFFSET = 8;
    public static final int HELLO_VERSION_OFFSET = 16;
    public static final int HELLO_ADDRESS_LENGTH_OFFSET = 20;
    public static final int HELLO_ADDRESS_OFFSET = 24;

    public static final int REQUEST_HEADER_LENGTH = 64;
    public static final int REQ_OPCODE_OFFSET = 5;
    public static final int REQ_TRANSPORT_OFFSET = 6;
    public static final int REQ_INCARNATION_OFFSET = 7;
    public static final int REQ_SRC_QPN_OFFSET = 8;
    public static final int REQ_DST_OFFSET = 12;
    public static final int REQ_PSN_OFFSET = 16;
    public static final int REQ_LENGTH_OFFSET = 20;
    public static final int REQ_REMOTE_ADDR_OFFSET = 24;
    public static final int REQ_RKEY_OFFSET = 32;
    public static final int REQ_IMM_OFFSET = 36;
    public static final int REQ_COMPARE_ADD_OFFSET = 40;
    public static final int REQ_SWAP_OFFSET = 48;
    public static final int REQ_KEY_OFFSET = 56;

    public static final int RESPONSE_HEADER_LENGTH = 24;
    public static final int RESP_STATUS_OFFSET = 5;
    public static final int RESP_QPN_OFFSET = 8;
    public static final int RESP_PSN_OFFSET = 12;
    public static final int RESP_ORIGINAL_OFFSET = 16;

    private TcpFrameDescriptor()
    {
    }
}
