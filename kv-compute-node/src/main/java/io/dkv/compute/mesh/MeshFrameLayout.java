package io.dkv.compute.mesh;

/**
 * The frames of a call between compute nodes, inside a LITE RPC ({@link io.dkv.raas.lite.RpcClient}), big-endian.
 * A request or reply longer than {@link #MAX_PAYLOAD} goes in parts: a request's parts are gathered by the callee
 * before its handler runs; a reply's rest is kept by the callee and fetched with {@link #TYPE_MORE} calls.
 *
 * <pre>
 *   request                                  reply
 *   0  type      byte  handler's number      0  status  byte  OK, FAILED (payload: the message, UTF-8)
 *   1  flags     byte  LAST: the last part   1  more    byte  1 when the caller must fetch more parts
 *   2  transfer  int   the caller's number   2  payload
 *                      of this request
 *   6  payload
 * </pre>
 */
public final class MeshFrameLayout
{
    public static final int TYPE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int TRANSFER_OFFSET = 2;
    public static final int REQUEST_HEADER = 6;

    public static final int STATUS_OFFSET = 0;
    public static final int MORE_OFFSET = 1;
    public static final int REPLY_HEADER = 2;

    /** The request is whole once this part is in. */
    public static final byte FLAG_LAST = 1;

    public static final byte STATUS_OK = 0;
    public static final byte STATUS_FAILED = 1;

    /** Fetch the next part of a reply: the transfer names which. */
    public static final byte TYPE_MORE = 0;
    /** A node's first call to a peer: its incarnation; the reply carries what the peer's participants hand over. */
    public static final byte TYPE_HELLO = 1;
    /** The first type free for handlers. */
    public static final byte FIRST_HANDLER_TYPE = 8;

    /** Bytes of payload in one part: the rest of the RPC's 1 MiB goes to headers. */
    public static final int MAX_PAYLOAD = (1 << 20) - 64;

    private MeshFrameLayout()
    {
    }
}
