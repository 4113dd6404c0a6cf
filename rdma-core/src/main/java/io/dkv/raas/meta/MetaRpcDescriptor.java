package io.dkv.raas.meta;

/**
 * Wire format of the MetaServer's RPCs, carried as RaaS messages to service {@link #SERVICE}. One
 * message is one frame; every request gets exactly one reply frame with the same request id. All
 * numbers are little-endian; names and messages are UTF-8.
 *
 * <pre>
 * request                                   reply
 *    0  type        byte   TYPE_*              0  type        byte   TYPE_REPLY
 *    1  version     byte   PROTOCOL_VERSION    1  version     byte   PROTOCOL_VERSION
 *    2  flags       short  FLAG_*              2  status      short  STATUS_*
 *    4  bodyLength  int    frame - 24 - 32     4  bodyLength  int
 *    8  requestId   long                       8  requestId   long   the request's (0 if unreadable)
 *   16  timestamp   long   sender's clock, ms 16  timestamp   long   the server's clock, ms
 *   24  body                                  24  body: per type when OK, else the error message
 *   24 + bodyLength: mac, 32 bytes            24 + bodyLength: mac, 32 bytes
 * </pre>
 *
 * <p>Every frame, both ways and between the two MetaServers too, ends in an HMAC-SHA256 over all
 * the bytes before it (header and body), keyed by the cluster secret (see {@link MetaFrameAuthenticator}).
 * A request with {@link #FLAG_OPERATOR} is keyed instead by the operator key derived from the
 * secret, and may remove any node or region. The receiver refuses a frame whose mac does not match,
 * whose timestamp is further than the window from its own clock, or whose requestId is not above the
 * last one on its connection ({@link #STATUS_UNAUTHENTICATED}), so a captured frame cannot be
 * replayed later or twice.
 *
 * <p>A node's records change only with its token ({@link #TOKEN_LENGTH} random bytes, all zero for
 * none): the node proposes it at REGISTER_NODE, the server keeps it with the record (never in the
 * tables nodes read) and answers with the token in force; HEARTBEAT, DEREGISTER_NODE,
 * PUBLISH_REGION and WITHDRAW_REGION must carry it ({@link #STATUS_FORBIDDEN} otherwise).
 *
 * <p>Bodies ({@code node}, {@code region} and {@code name} as encoded by {@link MetaMessageWriter}):
 * <pre>
 *   node:    nodeId long, role int, dctNumber int, dcKey long, epoch long, leaseExpiry long,
 *            providerLength short, addressLength short, provider bytes, address bytes
 *   token:   {@link #TOKEN_LENGTH} bytes, all zero for none
 *   region:  nodeId long, nodeEpoch long, address long, length long, rkey int, access int,
 *            layoutVersion int, name
 *   name:    nameLength int (at most {@link #MAX_NAME_BYTES}), UTF-8 bytes
 *   members: epoch long, replicas int, phase int, count int (at most {@link MetaTableDescriptor#MAX_MEMBER_SLOTS}),
 *            (nodeId long, state int, incarnation long, placement int) x count; in a replicated change phase -1
 *            leaves the phase as it is and placement 0 removes the member ({@link MembershipRecord#PHASE_KEPT},
 *            {@link MemberRecord#REMOVED})
 *   founders: count int (1 to {@link MetaTableDescriptor#MAX_MEMBER_SLOTS}), nodeId long x count: the memory nodes
 *            that founded the store, sent after members between the MetaServers once the sender's store is founded
 *
 *   BOOTSTRAP              ()                        -> serverNodeId long, epoch long, leaseMs long, count int,
 *                                                        region x count
 *   REGISTER_NODE          node (its lease ignored), token proposed -> leaseExpiry long, leaseMs long, token;
 *                          with {@link #FLAG_JOIN} a memory node never a member is registered as none: it asks
 *                          to be added by moving keys (BEGIN_ADD) once it serves; without it a memory node that is
 *                          no member is refused ({@link #STATUS_CONFLICT}) unless it may found the store; with
 *                          {@link #FLAG_RESTORED} a member back as another incarnation keeps its memory (its disk's)
 *   HEARTBEAT              nodeId long, epoch long, token            -> leaseExpiry long, leaseMs long
 *   DEREGISTER_NODE        nodeId long, epoch long, token            -> ()     (operator: epoch 0 is any)
 *   PUBLISH_REGION         region, token                             -> ()
 *   WITHDRAW_REGION        name, token                               -> ()     (operator: any region)
 *   MARK_LIVE              nodeId long, incarnation long             -> ()     a JOINING member of that
 *                          incarnation becomes LIVE ({@link #STATUS_CONFLICT} in any other state or incarnation);
 *                          any party with the secret may send it (the copier that refilled the member)
 *
 *   membership changes (any party with the secret: the driver of the change, or an operator), each answered with
 *   the whole membership as it is after it, and refused with {@link #STATUS_CONFLICT} naming the phase, node and
 *   epoch at fault; asking again for the change that is already so is answered OK, so a lost reply can be retried:
 *   BEGIN_ADD              nodeId long                -> members   a registered non-member enters (FILL)
 *   BEGIN_DRAIN            nodeId long                -> members   a live placed member leaves (FILL)
 *   ADVANCE_MEMBERSHIP     expectedPhase int          -> members   FILL, SWITCH, HANDOVER, CLEANUP, STEADY; OK when
 *                                                                  the phase is already the one after expectedPhase
 *   ABORT_MEMBERSHIP       ()                         -> members   FILL or SWITCH back to STEADY over the before
 *                                                                  placement
 *
 *   between the two MetaServers only (refused from any other node):
 *   REPLICATE_NODE         node (lease as given), token [, members changed [, founders]] -> ()
 *   REPLICATE_NODE_REMOVAL nodeId long [, members changed [, founders]]             -> ()
 *   REPLICATE_MEMBERS      members changed (none: the replica count) [, founders]   -> ()
 *   REPLICATE_REGION       region                    -> ()
 *   REPLICATE_REGION_REMOVAL name                    -> ()
 *   SNAPSHOT               nodeCount int, regionCount int, (node, token) x nodeCount, region x regionCount
 *                          [, members: the whole membership [, founders], in the FLAG_LAST part];
 *                          FLAG_FIRST starts a full state transfer, FLAG_LAST installs it -> ()
 *   CATCH_UP               servingSince long         -> () when a SNAPSHOT follows, STATUS_DECLINED when not
 * </pre>
 */
public final class MetaRpcDescriptor
{
    /** The RaaS service number MetaServers listen on. */
    public static final int SERVICE = 1;
    /**
     * 6: the phase HANDOVER (3) comes before CLEANUP (4, was 3) (5: each member of a membership carries when it last
     * left live; 4: memberships replicated between the MetaServers carry the founders once the store is founded; 3:
     * memberships carry the change's phase and each member's placement; 2: frames carry a timestamp and a mac; node
     * records changes carry the node's token).
     */
    public static final byte PROTOCOL_VERSION = 6;
    /**
     * Set in a membership's member count: each member is followed by when it last left live (a long). A membership
     * stored before that was kept has it clear, and its members read as never having left.
     */
    public static final int MEMBERS_LEFT_LIVE = 0x4000_0000;

    public static final int TYPE_OFFSET = 0;
    public static final int VERSION_OFFSET = 1;
    public static final int FLAGS_OFFSET = 2;
    public static final int STATUS_OFFSET = 2;
    public static final int BODY_LENGTH_OFFSET = 4;
    public static final int REQUEST_ID_OFFSET = 8;
    public static final int TIMESTAMP_OFFSET = 16;
    public static final int HEADER_LENGTH = 24;
    /** The HMAC-SHA256 that ends every frame. */
    public static final int MAC_LENGTH = 32;
    /** A node's token: what proves a change to its records comes from it. */
    public static final int TOKEN_LENGTH = 16;

    /** Longest frame a MetaServer accepts; larger ones are answered with {@link #STATUS_MALFORMED}. */
    public static final int MAX_FRAME_LENGTH = 64 * 1024;
    /** Longest region name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = MetaTableDescriptor.REGION_NAME_MAX;
    /** Longest error message a reply carries, in UTF-8 bytes. */
    public static final int MAX_ERROR_BYTES = 512;

    public static final byte TYPE_BOOTSTRAP = 1;
    public static final byte TYPE_REGISTER_NODE = 2;
    public static final byte TYPE_HEARTBEAT = 3;
    public static final byte TYPE_DEREGISTER_NODE = 4;
    public static final byte TYPE_PUBLISH_REGION = 5;
    public static final byte TYPE_WITHDRAW_REGION = 6;
    public static final byte TYPE_MARK_LIVE = 7;
    public static final byte TYPE_BEGIN_ADD = 8;
    public static final byte TYPE_BEGIN_DRAIN = 9;
    public static final byte TYPE_ADVANCE_MEMBERSHIP = 10;
    public static final byte TYPE_ABORT_MEMBERSHIP = 11;
    public static final byte TYPE_REPLICATE_NODE = 16;
    public static final byte TYPE_REPLICATE_NODE_REMOVAL = 17;
    public static final byte TYPE_REPLICATE_REGION = 18;
    public static final byte TYPE_REPLICATE_REGION_REMOVAL = 19;
    public static final byte TYPE_SNAPSHOT = 20;
    public static final byte TYPE_CATCH_UP = 21;
    public static final byte TYPE_REPLICATE_MEMBERS = 22;
    public static final byte TYPE_REPLY = 127;

    public static final short FLAG_FIRST = 1;
    public static final short FLAG_LAST = 2;
    /** The request comes from an operator: its mac is keyed by the operator key, and it may remove any record. */
    public static final short FLAG_OPERATOR = 4;
    /**
     * REGISTER_NODE: the memory node asks to join by moving keys rather than found the membership: placed after
     * only, in FILL, when members exist and no change runs.
     */
    public static final short FLAG_JOIN = 8;
    /**
     * REGISTER_NODE: the memory node's memory is what its data directory held (loaded before it serves), not empty:
     * a new incarnation so registered is not marked {@link io.dkv.raas.Membership#MEMORY_LOST}, and its copies may be
     * the ones to settle on when every copy of a key went down.
     */
    public static final short FLAG_RESTORED = 16;

    public static final short STATUS_OK = 0;
    /** The frame cannot be read: too short or long, lengths that disagree, a field out of range. */
    public static final short STATUS_MALFORMED = 1;
    public static final short STATUS_UNKNOWN_TYPE = 2;
    public static final short STATUS_UNSUPPORTED_VERSION = 3;
    public static final short STATUS_NAME_TOO_LONG = 4;
    /** The node is not registered, or registered as another incarnation: register (again). */
    public static final short STATUS_NOT_REGISTERED = 5;
    /** A live node of another id publishes a region of that name. */
    public static final short STATUS_NAME_TAKEN = 6;
    public static final short STATUS_TABLE_FULL = 7;
    /** Only the configured peer MetaServer may send this. */
    public static final short STATUS_NOT_PEER = 8;
    /** CATCH_UP: this server will not send its state (the asker has served longer). */
    public static final short STATUS_DECLINED = 9;
    /** The server failed to apply a valid request (e.g. its store failed). */
    public static final short STATUS_INTERNAL = 10;
    /** The frame's mac does not match (another cluster secret), or its timestamp or requestId is stale. */
    public static final short STATUS_UNAUTHENTICATED = 11;
    /** A node's records changed without its token. */
    public static final short STATUS_FORBIDDEN = 12;
    /**
     * MARK_LIVE: the member is not joining, or joins as another incarnation than the request names; a membership
     * change that the membership as it is does not allow.
     */
    public static final short STATUS_CONFLICT = 13;

    /* node body */
    public static final int NODE_ID_OFFSET = 0;
    public static final int NODE_ROLE_OFFSET = 8;
    public static final int NODE_DCT_NUMBER_OFFSET = 12;
    public static final int NODE_DC_KEY_OFFSET = 16;
    public static final int NODE_EPOCH_OFFSET = 24;
    public static final int NODE_LEASE_EXPIRY_OFFSET = 32;
    public static final int NODE_PROVIDER_LENGTH_OFFSET = 40;
    public static final int NODE_ADDRESS_LENGTH_OFFSET = 42;
    public static final int NODE_FIXED_LENGTH = 44;

    /* region body */
    public static final int REGION_NODE_ID_OFFSET = 0;
    public static final int REGION_NODE_EPOCH_OFFSET = 8;
    public static final int REGION_ADDRESS_OFFSET = 16;
    public static final int REGION_LENGTH_OFFSET = 24;
    public static final int REGION_RKEY_OFFSET = 32;
    public static final int REGION_ACCESS_OFFSET = 36;
    public static final int REGION_LAYOUT_VERSION_OFFSET = 40;
    public static final int REGION_NAME_OFFSET = 44;

    private MetaRpcDescriptor()
    {
    }

    public static String typeName(final int type)
    {
        return switch (type)
        {
            case TYPE_BOOTSTRAP -> "BOOTSTRAP";
            case TYPE_REGISTER_NODE -> "REGISTER_NODE";
            case TYPE_HEARTBEAT -> "HEARTBEAT";
            case TYPE_DEREGISTER_NODE -> "DEREGISTER_NODE";
            case TYPE_PUBLISH_REGION -> "PUBLISH_REGION";
            case TYPE_WITHDRAW_REGION -> "WITHDRAW_REGION";
            case TYPE_MARK_LIVE -> "MARK_LIVE";
            case TYPE_BEGIN_ADD -> "BEGIN_ADD";
            case TYPE_BEGIN_DRAIN -> "BEGIN_DRAIN";
            case TYPE_ADVANCE_MEMBERSHIP -> "ADVANCE_MEMBERSHIP";
            case TYPE_ABORT_MEMBERSHIP -> "ABORT_MEMBERSHIP";
            case TYPE_REPLICATE_NODE -> "REPLICATE_NODE";
            case TYPE_REPLICATE_NODE_REMOVAL -> "REPLICATE_NODE_REMOVAL";
            case TYPE_REPLICATE_REGION -> "REPLICATE_REGION";
            case TYPE_REPLICATE_REGION_REMOVAL -> "REPLICATE_REGION_REMOVAL";
            case TYPE_SNAPSHOT -> "SNAPSHOT";
            case TYPE_CATCH_UP -> "CATCH_UP";
            case TYPE_REPLICATE_MEMBERS -> "REPLICATE_MEMBERS";
            case TYPE_REPLY -> "REPLY";
            default -> "TYPE_" + type;
        };
    }

    public static String statusName(final int status)
    {
        return switch (status)
        {
            case STATUS_OK -> "OK";
            case STATUS_MALFORMED -> "MALFORMED";
            case STATUS_UNKNOWN_TYPE -> "UNKNOWN_TYPE";
            case STATUS_UNSUPPORTED_VERSION -> "UNSUPPORTED_VERSION";
            case STATUS_NAME_TOO_LONG -> "NAME_TOO_LONG";
            case STATUS_NOT_REGISTERED -> "NOT_REGISTERED";
            case STATUS_NAME_TAKEN -> "NAME_TAKEN";
            case STATUS_TABLE_FULL -> "TABLE_FULL";
            case STATUS_NOT_PEER -> "NOT_PEER";
            case STATUS_DECLINED -> "DECLINED";
            case STATUS_INTERNAL -> "INTERNAL";
            case STATUS_UNAUTHENTICATED -> "UNAUTHENTICATED";
            case STATUS_FORBIDDEN -> "FORBIDDEN";
            case STATUS_CONFLICT -> "CONFLICT";
            default -> "STATUS_" + status;
        };
    }
}
