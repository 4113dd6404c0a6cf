package io.dkv.verbs.shm;

/**
 * Header of a message in a shm receive ring; the payload of a SEND follows it.
 *
 * <pre>
 *   0  srcDeviceId  long   the sender's device
 *   8  srcQpn       int    the sender's QP
 *  12  psn          int    the sender's sequence number, echoed in the acknowledgement
 *  16  opcode       int    Opcode code: SEND, SEND_WITH_IMM, RDMA_WRITE_WITH_IMM
 *  20  immData      int
 *  24  byteLength   int    payload bytes (SEND) or bytes written (RDMA_WRITE_WITH_IMM)
 *  28  qkey         int    UD only
 *  32  dcKey        long   DC only
 *  40  payload
 * </pre>
 */
public final class ShmMessageDescriptor
{
    public static final int MSG_TYPE_ID = 1;

    public static final int SRC_DEVICE_OFFSET = 0;
    public static final int SRC_QPN_OFFSET = 8;
    public static final int PSN_OFFSET = 12;
    public static final int OPCODE_OFFSET = 16;
    public static final int IMM_OFFSET = 20;
    public static final int BYTE_LENGTH_OFFSET = 24;
    public static final int QKEY_OFFSET = 28;
    public static final int DC_KEY_OFFSET = 32;
    public static final int HEADER_LENGTH = 40;

    private ShmMessageDescriptor()
    {
    }
}
