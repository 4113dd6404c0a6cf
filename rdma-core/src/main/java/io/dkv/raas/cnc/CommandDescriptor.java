package io.dkv.raas.cnc;

/**
 * Messages between clients and a standalone driver: their type ids and layout, the one place the
 * offsets are written down. The ring buffer's message type tells which message it is; every message
 * starts with the client id and a correlation id, which the response echoes (for one-sided requests
 * the correlation id is the completion's token). Each message is encoded and decoded by its
 * flyweight, named after it ({@link CorrelatedFlyweight} and those that extend it).
 *
 * <pre>
 * every command              0 clientId long, 8 correlationId long, 16 body     CorrelatedFlyweight
 *   ADD_CLIENT               16 serviceClass int, 20 weight int (both 0:      AttachFlyweight
 *                            the driver's default), 24 nodeId long: the node
 *                            the client is, whose services it listens on
 *                            (0: the driver's own), 32 role int: that node's,
 *                            which the driver registers in its directory
 *   REMOVE_CLIENT              -                                                CorrelatedFlyweight
 *   OPEN                     16 nodeId long                                     OpenFlyweight
 *   CONNECT                  16 nodeId long, 24 service int, 28 flags int       ConnectFlyweight
 *   LISTEN                   16 service int                                     ListenFlyweight
 *   ACCEPT                   16 listenerId int, 20 timeoutMs int                AcceptFlyweight
 *   CLOSE_LISTENER           16 targetId int: the listener's service            TargetFlyweight
 *   CLOSE_CONNECTION         16 targetId int: the connection's vQPN             TargetFlyweight
 *   READABLE                 16 targetId int: the connection's vQPN             TargetFlyweight
 *                            answered OK(1 or 0)
 *   POLL_ACCEPT              16 targetId int: the listener's service            TargetFlyweight
 *                            answered OK(vqpn, nodeId), vqpn 0 when none waits
 *   ONE_SIDED                16 vqpn int, 20 opcode int, 24 regionHandle int,   OneSidedFlyweight
 *                            28 length int, 32 remoteOffset long,
 *                            40 dataOffset long, 48 compareAdd long, 56 swap long
 *                            answered COMPLETION
 *   SEND                     16 vqpn int, 20 flags int, 24 length int,          SendFlyweight
 *                            32 dataOffset long
 *   RECV                     16 vqpn int, 20 timeoutMs int, 24 maxLength int,   RecvFlyweight
 *                            32 dataOffset long
 *   LOOKUP                   16 nameLength int, 20 name                         LookupFlyweight
 *                            answered REGION
 *   MALLOC                   16 nodeId long, 24 size long, 32 access int,       MallocFlyweight
 *                            36 nameLength int, 40 dataOffset long: where in
 *                            the client's data area the region's memory is,
 *                            -1 for the driver to allocate it, 48 name
 *                            answered REGION
 *   FREE                     16 regionHandle int                                FreeFlyweight
 *   MEMBERSHIP               16 maxLength int, 24 dataOffset long               MembershipFlyweight
 *                            answered OK(bytes), the membership in the data area
 *   NODES                    16 role int, 20 maxLength int, 24 dataOffset long  NodesFlyweight
 *                            answered OK(bytes), the role's live nodes in the
 *                            data area
 *
 * every response             0 clientId long, 8 correlationId long, 16 body     CorrelatedFlyweight
 *   OK                       16 value long, 24 value2 long                      OkFlyweight
 *   ERROR                    16 messageLength int, 20 message (UTF-8)           ErrorFlyweight
 *   COMPLETION               16 status int, 24 value long                       CompletionFlyweight
 *   REGION                   16 handle int, 20 rkey int, 24 nodeId long,        RegionFlyweight
 *                            32 nodeEpoch long, 40 address long, 48 length long,
 *                            56 access int, 60 layoutVersion int,
 *                            64 nameLength int, 68 name
 *   CLIENT_READY             16 nodeId long, 24 role int, 28 dct int,           ClientReadyFlyweight
 *                            32 dcKey long, 40 epoch long, 48 addressLength int,
 *                            52 providerLength int, 56 address, then provider name
 * </pre>
 */
public final class CommandDescriptor
{
    public static final int ADD_CLIENT = 1;
    public static final int REMOVE_CLIENT = 2;
    public static final int OPEN = 3;
    public static final int CONNECT = 4;
    public static final int LISTEN = 5;
    public static final int ACCEPT = 6;
    public static final int CLOSE_LISTENER = 7;
    public static final int CLOSE_CONNECTION = 8;
    public static final int ONE_SIDED = 9;
    public static final int SEND = 10;
    public static final int RECV = 11;
    public static final int LOOKUP = 12;
    public static final int MALLOC = 13;
    public static final int FREE = 14;
    public static final int READABLE = 15;
    public static final int POLL_ACCEPT = 16;
    public static final int MEMBERSHIP = 17;
    public static final int NODES = 18;

    public static final int RSP_OK = 101;
    public static final int RSP_ERROR = 102;
    public static final int RSP_COMPLETION = 103;
    public static final int RSP_REGION = 104;
    public static final int RSP_CLIENT_READY = 105;

    public static final int CLIENT_ID_OFFSET = 0;
    public static final int CORRELATION_OFFSET = 8;
    public static final int BODY_OFFSET = 16;

    public static final int OPEN_NODE_OFFSET = 16;
    public static final int OPEN_LENGTH = 24;

    public static final int CONNECT_NODE_OFFSET = 16;
    public static final int CONNECT_SERVICE_OFFSET = 24;
    public static final int CONNECT_FLAGS_OFFSET = 28;
    public static final int CONNECT_LENGTH = 32;

    public static final int LISTEN_SERVICE_OFFSET = 16;
    public static final int LISTEN_LENGTH = 20;

    public static final int ACCEPT_LISTENER_OFFSET = 16;
    public static final int ACCEPT_TIMEOUT_OFFSET = 20;
    public static final int ACCEPT_LENGTH = 24;

    public static final int TARGET_ID_OFFSET = 16;
    public static final int TARGET_LENGTH = 20;

    public static final int ONE_SIDED_VQPN_OFFSET = 16;
    public static final int ONE_SIDED_OPCODE_OFFSET = 20;
    public static final int ONE_SIDED_REGION_OFFSET = 24;
    public static final int ONE_SIDED_LENGTH_OFFSET = 28;
    public static final int ONE_SIDED_REMOTE_OFFSET_OFFSET = 32;
    public static final int ONE_SIDED_DATA_OFFSET = 40;
    public static final int ONE_SIDED_COMPARE_OFFSET = 48;
    public static final int ONE_SIDED_SWAP_OFFSET = 56;
    public static final int ONE_SIDED_MESSAGE_LENGTH = 64;

    public static final int SEND_VQPN_OFFSET = 16;
    public static final int SEND_FLAGS_OFFSET = 20;
    public static final int SEND_LENGTH_OFFSET = 24;
    public static final int SEND_DATA_OFFSET = 32;
    public static final int SEND_MESSAGE_LENGTH = 40;

    public static final int RECV_VQPN_OFFSET = 16;
    public static final int RECV_TIMEOUT_OFFSET = 20;
    public static final int RECV_MAX_LENGTH_OFFSET = 24;
    public static final int RECV_DATA_OFFSET = 32;
    public static final int RECV_MESSAGE_LENGTH = 40;

    public static final int LOOKUP_NAME_LENGTH_OFFSET = 16;
    public static final int LOOKUP_NAME_OFFSET = 20;

    public static final int MALLOC_NODE_OFFSET = 16;
    public static final int MALLOC_SIZE_OFFSET = 24;
    public static final int MALLOC_ACCESS_OFFSET = 32;
    public static final int MALLOC_NAME_LENGTH_OFFSET = 36;
    public static final int MALLOC_DATA_OFFSET = 40;
    public static final int MALLOC_NAME_OFFSET = 48;

    public static final int MEMBERSHIP_MAX_LENGTH_OFFSET = 16;
    public static final int MEMBERSHIP_DATA_OFFSET = 24;
    public static final int MEMBERSHIP_LENGTH = 32;

    public static final int ATTACH_CLASS_OFFSET = 16;
    public static final int ATTACH_WEIGHT_OFFSET = 20;
    public static final int ATTACH_NODE_ID_OFFSET = 24;
    public static final int ATTACH_ROLE_OFFSET = 32;
    public static final int ATTACH_LENGTH = 36;

    public static final int NODES_ROLE_OFFSET = 16;
    public static final int NODES_MAX_LENGTH_OFFSET = 20;
    public static final int NODES_DATA_OFFSET = 24;
    public static final int NODES_LENGTH = 32;

    public static final int FREE_REGION_OFFSET = 16;
    public static final int FREE_LENGTH = 20;

    public static final int OK_VALUE_OFFSET = 16;
    public static final int OK_VALUE2_OFFSET = 24;
    public static final int OK_LENGTH = 32;

    public static final int ERROR_MESSAGE_LENGTH_OFFSET = 16;
    public static final int ERROR_MESSAGE_OFFSET = 20;

    public static final int COMPLETION_STATUS_OFFSET = 16;
    public static final int COMPLETION_VALUE_OFFSET = 24;
    public static final int COMPLETION_LENGTH = 32;

    public static final int REGION_HANDLE_OFFSET = 16;
    public static final int REGION_RKEY_OFFSET = 20;
    public static final int REGION_NODE_OFFSET = 24;
    public static final int REGION_EPOCH_OFFSET = 32;
    public static final int REGION_ADDRESS_OFFSET = 40;
    public static final int REGION_LENGTH_OFFSET = 48;
    public static final int REGION_ACCESS_OFFSET = 56;
    public static final int REGION_LAYOUT_OFFSET = 60;
    public static final int REGION_NAME_LENGTH_OFFSET = 64;
    public static final int REGION_NAME_OFFSET = 68;

    public static final int READY_NODE_OFFSET = 16;
    public static final int READY_ROLE_OFFSET = 24;
    public static final int READY_DCT_OFFSET = 28;
    public static final int READY_DC_KEY_OFFSET = 32;
    public static final int READY_EPOCH_OFFSET = 40;
    public static final int READY_ADDRESS_LENGTH_OFFSET = 48;
    public static final int READY_PROVIDER_LENGTH_OFFSET = 52;
    public static final int READY_ADDRESS_OFFSET = 56;

    public static final int MAX_NAME_LENGTH = 128;
    public static final int MAX_ERROR_LENGTH = 512;

    private CommandDescriptor()
    {
    }
}
