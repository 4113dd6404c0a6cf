package io.dkv.verbs.soft;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

/**
 * Layout of a software completion queue: a power-of-two array of 64-byte entries, each published
 * by its sequence word (a bounded multi-producer queue, one consumer).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                            wr_id                              |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                            status                             |
 *  +---------------------------------------------------------------+
 *  |                   opcode (WcOpcode ordinal)                   |
 *  +---------------------------------------------------------------+
 *  |                           byte_len                            |
 *  +---------------------------------------------------------------+
 *  |                           imm_data                            |
 *  +---------------------------------------------------------------+
 *  |                            qp_num                             |
 *  +---------------------------------------------------------------+
 *  |                            src_qp                             |
 *  +---------------------------------------------------------------+
 *  |                           wc_flags                            |
 *  +---------------------------------------------------------------+
 *  |                       reserved (20 bytes)                    ...
 *  +---------------------------------------------------------------+
 *  |        sequence: position + 1 once published, + capacity      |
 *  |                 once consumed (slot free again)               |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class CompletionQueueDescriptor
{
    public static final int WR_ID_OFFSET = 0;
    public static final int STATUS_OFFSET = 8;
    public static final int OPCODE_OFFSET = 12;
    public static final int BYTE_LEN_OFFSET = 16;
    public static final int IMM_DATA_OFFSET = 20;
    public static final int QP_NUM_OFFSET = 24;
    public static final int SRC_QP_OFFSET = 28;
    public static final int WC_FLAGS_OFFSET = 32;
    public static final int SEQUENCE_OFFSET = 56;

    public static final int ENTRY_LENGTH = CACHE_LINE_LENGTH;

    private CompletionQueueDescriptor()
    {
    }
}
